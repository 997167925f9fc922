// The memory stores API as a store URL of the CLI, against a real `memdir serve --http` on the
// filesystem store: `memdir copy` from PostgreSQL into the API's store and back, the six commands,
// an archived store read-only, and the key never printed, whatever goes wrong.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { databaseUrl } from '@memdir/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, BIN, childEnv, startApiServer } from './api-server.js';

const execute = promisify(execFile);

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `memdir ...args` with `env` added to a clean environment. */
async function memdir(args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<Run> {
  try {
    const child = execute(process.execPath, [BIN, ...args], { env: childEnv(env), timeout: 60_000 });
    if (input !== undefined) child.child.stdin!.end(input);
    else child.child.stdin!.end();
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const SCHEMA = `memdir_memstore_cli_${process.pid}`;
const FILES: Record<string, string> = {
  '/memories/notes/a.md': 'alpha\nbeta\n',
  '/memories/notes/deep/b.md': 'Ünïcödé 🎉\n',
  '/memories/.hidden': 'kept\n',
  '/memories/top.txt': '',
};

let server: ApiServer;
let postgresUrl: string;

beforeAll(async () => {
  server = await startApiServer(`file:${mkdtempSync(join(tmpdir(), 'memdir-memstore-cli-'))}`);
  const url = new URL(databaseUrl());
  url.searchParams.set('schema', SCHEMA);
  postgresUrl = url.href;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await client.end();
});

const keyEnv = () => ({ MEMDIR_MEMORY_STORES_KEY: server.key });

describe('memdir copy between PostgreSQL and a memory stores API', { timeout: 120_000 }, () => {
  it('copies every file into the API store, then back into PostgreSQL, byte for byte', async () => {
    for (const [path, text] of Object.entries(FILES)) {
      const made = await memdir(
        ['create', path, '-', '--store', postgresUrl, '--namespace', 'from'],
        {},
        text,
      );
      expect(made.stderr).toBe('');
      expect(made.code).toBe(0);
    }
    const id = await server.newStore('copy');
    const into = await memdir(
      ['copy', '--from', postgresUrl, '--namespace', 'from:', '--to', server.url(id)],
      keyEnv(),
    );
    expect(into.stderr).not.toContain(server.key);
    expect(into.code, into.stderr).toBe(0);

    const held: Record<string, string> = {};
    for await (const item of server.client.beta.memoryStores.memories.list(id, { view: 'full', limit: 20 })) {
      if (item.type === 'memory') held[`/memories${item.path}`] = item.content ?? '';
    }
    expect(held).toEqual(FILES);

    const back = await memdir(
      ['copy', '--from', server.url(id), '--to', postgresUrl, '--namespace', ':back'],
      keyEnv(),
    );
    expect(back.code, back.stderr).toBe(0);
    // What view shows of each file (its content, line by line) is the same in both namespaces.
    for (const path of Object.keys(FILES)) {
      const original = await memdir(['view', path, '--store', postgresUrl, '--namespace', 'from']);
      const copied = await memdir(['view', path, '--store', postgresUrl, '--namespace', 'back']);
      expect(copied.code, copied.stderr).toBe(0);
      expect(copied.stdout).toBe(original.stdout);
    }
    expect(
      (await memdir(['view', '/memories/notes/a.md', '--store', postgresUrl, '--namespace', 'back'])).stdout,
    ).toBe(
      "Here's the content of /memories/notes/a.md with line numbers:\n     1\talpha\n     2\tbeta\n     3\t\n",
    );
  });
});

describe('the six commands through a memstore+http:// URL', { timeout: 120_000 }, () => {
  it('create, view, str_replace, insert, rename and delete act on the API store', async () => {
    const id = await server.newStore('commands');
    const store = ['--store', server.url(id)];
    const run = (...args: string[]) => memdir([...args, ...store], keyEnv());
    expect((await run('create', '/memories/plan.md', '--text', 'one\ntwo\n')).code).toBe(0);
    const replaced = await run('str_replace', '/memories/plan.md', '--old', 'two', '--new', 'TWO');
    expect(replaced.code, replaced.stderr).toBe(0);
    expect((await run('insert', '/memories/plan.md', '--line', '0', '--text', 'zero')).code).toBe(0);
    expect((await run('rename', '/memories/plan.md', '/memories/done/plan.md')).code).toBe(0);
    const memories = await server.client.beta.memoryStores.memories.list(id, { view: 'full' });
    expect(memories.data.map((item) => [item.path, item.type === 'memory' ? item.content : null])).toEqual([
      ['/done/plan.md', 'zero\none\nTWO\n'],
    ]);
    const view = await run('view', '/memories');
    expect(view.stdout).toContain('/memories/done/plan.md');
    expect((await run('delete', '/memories/done')).code).toBe(0);
    expect((await server.client.beta.memoryStores.memories.list(id)).data).toEqual([]);
  });

  it('reads the key from ANTHROPIC_API_KEY when MEMDIR_MEMORY_STORES_KEY is not set', async () => {
    const id = await server.newStore('fallback');
    const made = await memdir(['create', '/memories/x.md', '--text', 'x', '--store', server.url(id)], {
      ANTHROPIC_API_KEY: server.key,
    });
    expect(made.code, made.stderr).toBe(0);
  });

  it('opens an archived store read-only: a change is READ_ONLY, a view works', async () => {
    const id = await server.newStore('archived');
    await server.client.beta.memoryStores.memories.create(id, { path: '/kept.md', content: 'kept' });
    await server.client.beta.memoryStores.archive(id);
    const view = await memdir(['view', '/memories/kept.md', '--store', server.url(id)], keyEnv());
    expect(view.stdout).toBe("Here's the content of /memories/kept.md with line numbers:\n     1\tkept\n");
    const change = await memdir(
      ['create', '/memories/new.md', '--text', 'x', '--store', server.url(id)],
      keyEnv(),
    );
    expect(change.code).toBe(1);
    expect(change.stderr).toContain('read-only (the memory store is archived)');
  });
});

describe('the key is never printed', { timeout: 120_000 }, () => {
  const secret = 'sk-memdir-test-SECRET-0123456789';

  it('a wrong key: exit 2, the API refused it, and the key shows nowhere', async () => {
    const id = await server.newStore('wrong-key');
    const run = await memdir(['view', '--store', server.url(id)], { MEMDIR_MEMORY_STORES_KEY: secret });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'the API key was refused (the memory stores API answered 401 authentication_error)',
    );
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it('a key in the URL is refused, with the variable to use, and not shown', async () => {
    const id = await server.newStore('url-key');
    const origin = new URL(server.origin);
    for (const userinfo of [`${secret}@`, `alice:${secret}@`]) {
      const url = `memstore+http://${userinfo}${origin.host}/${id}`;
      const run = await memdir(['view', '--store', url], keyEnv());
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('must not hold a user or key');
      expect(run.stderr).toContain('MEMDIR_MEMORY_STORES_KEY');
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });

  it('a key as a query parameter is refused before anything is sent, and not shown', async () => {
    const id = await server.newStore('query-key');
    const run = await memdir(['view', '--store', `${server.url(id)}?key=${secret}`], keyEnv());
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: Invalid store URL ${server.url(id)}?key=***: unknown parameter "key"\nmemstore+http:// URLs (@memdir/memory-stores) take no parameters.\n`,
    });
  });

  it('no key: exit 2, naming the variables', async () => {
    const run = await memdir(['view', '--store', server.url('memstore_nokey')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no key: set MEMDIR_MEMORY_STORES_KEY (or ANTHROPIC_API_KEY)');
  });

  it('a store that does not exist, a namespace, plain http to another host: exit 2, no key shown', async () => {
    const env = { MEMDIR_MEMORY_STORES_KEY: server.key };
    const missing = await memdir(['view', '--store', server.url('memstore_doesnotexist')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('the memory store does not exist');
    const id = await server.newStore('namespace');
    const namespaced = await memdir(['view', '--store', server.url(id), '--namespace', 'x'], env);
    expect(namespaced.code).toBe(2);
    expect(namespaced.stderr).toContain('has no namespaces');
    const remote = await memdir(['view', '--store', `memstore+http://example.com/${id}`], env);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('memstore+http:// is only for a server on this machine');
    for (const run of [missing, namespaced, remote])
      expect(run.stdout + run.stderr).not.toContain(server.key);
  });
});
