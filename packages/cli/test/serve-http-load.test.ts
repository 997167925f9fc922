// `memdir serve --http` under a short real load on Redis and PostgreSQL (the long one, 50 clients x 200
// commands with latencies, is `pnpm bench --section serve`), and under faults: killed with SIGKILL in
// the middle of a load, and in front of a store that stalls.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { databaseUrl, redisUrl, startFaultProxy } from '@memdir/test-support';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { tempFolder } from './helpers.js';
import { addToken, httpClient, startHttpServer, textOf } from './http-server.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function folder(): Promise<string> {
  const made = await tempFolder();
  cleanups.push(made.remove);
  return made.path;
}

/** `count` tokens on one namespace, a server on `store`, and one connected client per token. */
async function team(store: string, count: number, namespace: string, cwd?: string) {
  const dir = cwd ?? (await folder());
  const tokens = join(dir, 'tokens.json');
  const secrets: string[] = [];
  for (let index = 0; index < count; index++)
    secrets.push(await addToken(tokens, `client-${index}`, namespace));
  const server = await startHttpServer(
    ['--store', store, '--tokens', tokens, '--rate', '10000', '--burst', '10000'],
    {
      cwd: dir,
    },
  );
  cleanups.push(server.stop);
  const clients: Client[] = [];
  for (const secret of secrets) {
    const client = await httpClient(server, secret);
    cleanups.push(() => client.close().catch(() => {}));
    clients.push(client);
  }
  return { server, clients, secrets, tokens, dir };
}

const call = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'memory', arguments: args });

describe.each([
  ['Redis', () => redisUrl()],
  ['PostgreSQL', () => databaseUrl()],
])('memdir serve --http on %s, under load', (_name, url) => {
  it('4 clients x 50 commands: every command succeeds, and no concurrent insert is lost', async () => {
    const namespace = `serve-load-${process.pid}-${Date.now()}`;
    const { clients } = await team(url(), 4, namespace);
    const shared = '/memories/shared.md';
    expect(textOf(await call(clients[0]!, { command: 'create', path: shared, file_text: 'start' }))).toBe(
      `File created successfully at: ${shared}`,
    );
    const failures: string[] = [];
    const inserted: string[] = [];
    await Promise.all(
      clients.map(async (client, n) => {
        for (let i = 0; i < 50; i++) {
          const own = `/memories/c${n}/f${i - (i % 4)}.md`;
          const step = i % 4;
          const args =
            step === 0
              ? { command: 'insert', path: shared, insert_line: 1, insert_text: `c${n}-${i}` }
              : step === 1
                ? { command: 'create', path: own, file_text: `client ${n} v1` }
                : step === 2
                  ? { command: 'view', path: own }
                  : { command: 'str_replace', path: own, old_str: 'v1', new_str: 'v2' };
          const result = await call(client, args);
          if (result.isError) failures.push(`${JSON.stringify(args)}: ${textOf(result)}`);
          else if (step === 0) inserted.push(`c${n}-${i}`);
        }
      }),
    );
    expect(failures).toEqual([]);
    const lines = textOf(await call(clients[1]!, { command: 'view', path: shared }))
      .split('\n')
      .slice(1)
      .map((line) => line.slice(7));
    expect(lines[0]).toBe('start');
    expect(lines.slice(1).sort()).toEqual(inserted.sort());
    expect(inserted).toHaveLength(4 * 13);
    for (const path of [shared, '/memories/c0', '/memories/c1', '/memories/c2', '/memories/c3']) {
      await call(clients[0]!, { command: 'delete', path });
    }
  });
});

describe('memdir serve --http under faults', () => {
  it('SIGKILL in the middle of a load leaves every file whole, and a new server serves them', async () => {
    const cwd = await folder();
    const { server, clients, tokens, secrets } = await team('file:./data', 4, 'team', cwd);
    await call(clients[0]!, { command: 'create', path: '/memories/shared.md', file_text: 'start' });
    const acknowledged: string[] = [];
    let killed = false;
    const loops = clients.map(async (client, n) => {
      for (let version = 0; !killed; version++) {
        const tag = `c${n}-v${version}`;
        try {
          const created = await call(client, {
            command: 'create',
            path: `/memories/c${n}.md`,
            file_text: body(tag),
          });
          expect(created.isError).toBeUndefined();
          const line = `${tag} inserted`;
          const insert = await call(client, {
            command: 'insert',
            path: '/memories/shared.md',
            insert_line: 1,
            insert_text: line,
          });
          if (!insert.isError) acknowledged.push(line);
        } catch {
          return; // the server is gone
        }
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill('SIGKILL');
    killed = true;
    await Promise.all(loops);
    expect(await server.exited).toBe('SIGKILL');

    // On disk: each client's file is one whole version; the shared file holds every acknowledged line.
    const memories = join(cwd, 'data', 'namespaces', 'team', 'memories');
    const names = (await readdir(memories)).filter((name) => !name.startsWith('.')).sort();
    expect(names).toEqual(['c0.md', 'c1.md', 'c2.md', 'c3.md', 'shared.md']);
    for (const name of names.filter((entry) => entry !== 'shared.md')) {
      const content = await readFile(join(memories, name), 'utf8');
      const tag = /^begin (\S+)\n/.exec(content)?.[1];
      expect(tag, name).toBeDefined();
      expect(content === body(tag!), `${name} is torn`).toBe(true);
    }
    const lines = (await readFile(join(memories, 'shared.md'), 'utf8')).split('\n');
    expect(lines[0]).toBe('start');
    for (const line of lines.slice(1)) expect(line).toMatch(/^c\d-v\d+ inserted$/);
    for (const line of acknowledged) expect(lines).toContain(line);

    const again = await startHttpServer(['--store', 'file:./data', '--tokens', tokens], { cwd });
    cleanups.push(again.stop);
    const fresh = await httpClient(again, secrets[0]!);
    cleanups.push(() => fresh.close());
    const listing = textOf(await call(fresh, { command: 'view', path: '/memories' }));
    expect(
      listing
        .split('\n')
        .slice(2)
        .map((line) => line.split('\t')[1]),
    ).toEqual(names.map((name) => `/memories/${name}`));
    const insert = await call(fresh, {
      command: 'insert',
      path: '/memories/shared.md',
      insert_line: 0,
      insert_text: 'after',
    });
    expect(insert.isError).toBeUndefined();
  });

  it('a stalled store: each client gets a tool error within the deadline, and the server recovers', async () => {
    const proxy = await startFaultProxy({ target: redisUrl() });
    cleanups.push(() => proxy.close());
    const namespace = `serve-stall-${process.pid}-${Date.now()}`;
    const { server, clients } = await team(proxy.url, 3, namespace);
    for (const [n, client] of clients.entries()) {
      await call(client, { command: 'create', path: `/memories/c${n}.md`, file_text: `client ${n}` });
    }
    proxy.setMode('stall');
    const answers = await Promise.all(
      clients.map(async (client, n) => {
        const started = Date.now();
        const result = await call(client, { command: 'view', path: `/memories/c${n}.md` });
        return { result, ms: Date.now() - started };
      }),
    );
    for (const { result, ms } of answers) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Error: The memory store is unavailable: .*Try again\.$/);
      // The store's deadline is 5 s; the rest is the machine's load.
      expect(ms).toBeLessThan(6500);
    }
    // The store does not answer: not ready, though the process is up.
    expect((await fetch(`${server.origin}/readyz`)).status).toBe(503);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    proxy.setMode('pass');
    for (const [n, client] of clients.entries()) {
      let text = '';
      for (let attempt = 0; attempt < 50 && !text.startsWith("Here's"); attempt++) {
        text = textOf(await call(client, { command: 'view', path: `/memories/c${n}.md` }));
        if (!text.startsWith("Here's")) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(text).toBe(`Here's the content of /memories/c${n}.md with line numbers:\n     1\tclient ${n}`);
      await call(client, { command: 'delete', path: `/memories/c${n}.md` });
    }
    let health = 0;
    for (let attempt = 0; attempt < 50 && health !== 200; attempt++) {
      health = (await fetch(`${server.origin}/readyz`)).status;
      if (health !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(health).toBe(200);
  });
});

/** A file's content for one version: large enough that a kill can land while it is written. */
function body(tag: string): string {
  return `begin ${tag}\n${`${tag} `.repeat(20_000)}\nend ${tag}`;
}
