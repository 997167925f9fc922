// `memdir serve --http` scaled out: three processes over one Redis, and over one PostgreSQL, behind a
// real HAProxy (Debian's package) balancing round robin with no stickiness, with the configuration
// the README shows, reached with the MCP SDK's own client. No skip: without haproxy or a server the
// test fails (`.ci/run` installs haproxy).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { databaseUrl, redisUrl } from '@memdir/test-support';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeExample } from '../../../scripts/readme-example.mjs';
import { tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, httpClient, startHttpServer, textOf } from './http-server.js';

const CLIENTS = 20;
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The README's HAProxy configuration, with this run's ports. */
function haproxyConfig(frontend: number, backends: number[]): string {
  const { code } = readmeExample(new URL('../README.md', import.meta.url), { name: 'haproxy' });
  let index = 0;
  const config = code
    .replace('bind 127.0.0.1:8787', `bind 127.0.0.1:${frontend}`)
    .replace(/(server memdir\d) 127\.0\.0\.1:878\d/g, (_line, name: string) => {
      return `${name} 127.0.0.1:${backends[index++]}`;
    });
  expect(index).toBe(backends.length);
  return config;
}

/** HAProxy in the foreground, stopped by the cleanups; resolves once it routes to a process. */
async function startHaproxy(dir: string, backends: number[]): Promise<URL> {
  execFileSync('haproxy', ['-v']); // throws (and fails the test) when haproxy is not installed
  const port = await freePort();
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, haproxyConfig(port, backends));
  const child: ChildProcess = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const origin = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ; ) {
    const status = await fetch(`${origin}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    if (child.exitCode !== null || Date.now() - started > 15_000) {
      throw new Error(`haproxy did not serve /healthz (last ${status}):\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return new URL(`${origin}/mcp`);
}

/** Three processes on `store`, one token per client on one namespace, HAProxy in front. */
async function cluster(store: string) {
  const made = await tempFolder();
  cleanups.push(made.remove);
  const tokens = join(made.path, 'tokens.json');
  const namespace = `scale-${process.pid}-${Date.now()}`;
  const secrets = await Promise.all(
    Array.from({ length: CLIENTS }, (_, n) => addToken(tokens, `client-${n}`, namespace)),
  );
  const processes: HttpServerProcess[] = await Promise.all(
    [0, 1, 2].map(() =>
      startHttpServer(['--store', store, '--tokens', tokens, '--rate', '10000', '--burst', '10000'], {
        cwd: made.path,
      }),
    ),
  );
  for (const each of processes) cleanups.push(each.stop);
  const url = await startHaproxy(
    made.path,
    processes.map((each) => Number(new URL(each.origin).port)),
  );
  const clients: Client[] = [];
  for (const secret of secrets) {
    const client = await httpClient({ url }, secret);
    cleanups.push(() => client.close());
    clients.push(client);
  }
  return { processes, clients };
}

const call = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'memory', arguments: args });

/** Tool calls (`tools/call`) a process answered with 200, from its access log. */
function answered(process: HttpServerProcess): number {
  return process.stderr().match(/method=tools\/call .*status=200 /g)?.length ?? 0;
}

describe.each([
  ['Redis', () => redisUrl()],
  ['PostgreSQL', () => databaseUrl()],
])('three memdir serve --http processes on %s behind HAProxy (round robin)', (_name, url) => {
  it(`${CLIENTS} clients x 20 calls are all answered, by every process; ${CLIENTS} clients x 40 inserts into one file lose none and repeat none while one process is SIGKILLed`, async () => {
    const { processes, clients } = await cluster(url());

    // Round 1: every call answered, each with its exact text.
    await Promise.all(
      clients.map(async (client, n) => {
        const path = `/memories/c${n}.md`;
        expect(textOf(await call(client, { command: 'create', path, file_text: `client ${n}` }))).toBe(
          `File created successfully at: ${path}`,
        );
        for (let i = 1; i < 20; i++) {
          expect(textOf(await call(client, { command: 'view', path }))).toBe(
            `Here's the content of ${path} with line numbers:\n     1\tclient ${n}`,
          );
        }
      }),
    );
    // Each process writes its access lines once per turn of its event loop: wait for the last ones.
    let served = processes.map(answered);
    for (
      let waited = 0;
      served.reduce((sum, count) => sum + count, 0) < CLIENTS * 20 && waited < 5000;
      waited += 50
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      served = processes.map(answered);
    }
    expect(served.reduce((sum, count) => sum + count, 0)).toBe(CLIENTS * 20);
    for (const count of served) expect(count).toBeGreaterThan(CLIENTS * 2);

    // Round 2: inserts into one file; a third of the way, one process is killed under them.
    const shared = '/memories/shared.md';
    expect(textOf(await call(clients[0]!, { command: 'create', path: shared, file_text: 'start' }))).toBe(
      `File created successfully at: ${shared}`,
    );
    // A view is safe to send again: one that meets the dying process (HAProxy's 502 for a request
    // the process took and never answered) is sent again through the balancer.
    const lines = async (client: Client) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return textOf(await call(client, { command: 'view', path: shared }))
            .split('\n')
            .slice(1)
            .map((line) => line.slice(7));
        } catch (error) {
          if (attempt === 3) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    const victim = processes[1]!;
    const total = CLIENTS * 40;
    let confirmed = 0;
    const failures: string[] = [];
    await Promise.all(
      clients.map(async (client, n) => {
        for (let i = 0; i < 40; i++) {
          const line = `c${n}-${i}`;
          for (let attempt = 1; ; attempt++) {
            let result: Awaited<ReturnType<typeof call>>;
            try {
              result = await call(client, {
                command: 'insert',
                path: shared,
                insert_line: 1,
                insert_text: line,
              });
            } catch (error) {
              // The call was in flight on the process that died: it may or may not have landed.
              // A careful client reads before it tries again through the balancer.
              failures.push(`${line}: ${(error as Error).message.slice(0, 80)}`);
              if (attempt === 3) throw new Error(`${line} failed 3 times; failures: ${failures.join(' | ')}`);
              if ((await lines(client)).includes(line)) break;
              continue;
            }
            expect(textOf(result)).toBe(`The file ${shared} has been edited.`);
            break;
          }
          if (++confirmed === Math.floor(total / 3)) victim.child.kill('SIGKILL');
        }
      }),
    );
    expect(await victim.exited).toBe('SIGKILL');
    // At most the calls in flight on the dead process failed: one per client at most.
    expect(failures.length).toBeLessThanOrEqual(CLIENTS);
    const after = await lines(clients[0]!);
    expect(after[0]).toBe('start');
    const inserted = after.slice(1);
    const expected = clients.flatMap((_client, n) => Array.from({ length: 40 }, (_, i) => `c${n}-${i}`));
    expect(inserted.length).toBe(total);
    expect([...inserted].sort()).toEqual(expected.sort());
    await call(clients[0]!, { command: 'delete', path: shared });
    for (let n = 0; n < CLIENTS; n++)
      await call(clients[0]!, { command: 'delete', path: `/memories/c${n}.md` });
  }, 180_000);
});
