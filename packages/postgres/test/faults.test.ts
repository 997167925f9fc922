// Failures with the fault proxy and the real server: a dead server, dropped connections, a
// restart, a backend terminated mid-command (a silent or slow one: deadline.test.ts). Bounds are generous (the machine is shared); what is
// asserted is the error, its words, and that the store goes on.
import { createHash } from 'node:crypto';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { isMemoryToolError } from '@memdir/core';
import { redisUrl, startFaultProxy, startImpostor, startPrivatePostgres } from '@memdir/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresMemoryStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** The outcome of a command and how long it took. */
async function timed(
  promise: Promise<string>,
): Promise<{ ms: number; ok?: string; code?: string; message?: string; reason?: string }> {
  const started = Date.now();
  try {
    const ok = await promise;
    return { ms: Date.now() - started, ok };
  } catch (error) {
    if (!isMemoryToolError(error)) throw error;
    return { ms: Date.now() - started, code: error.code, message: error.message, reason: error.reason };
  }
}

async function proxiedStore(options: { timeoutMs?: number } = {}) {
  const schema = freshSchema();
  const proxy = await startFaultProxy({ target: databaseUrl() });
  const store = createPostgresStore({ connectionString: proxy.url, schema, ...options });
  cleanups.push(() => dropSchema(admin, schema));
  cleanups.push(() => proxy.close());
  cleanups.push(() => store.close());
  return { store, proxy, schema };
}

const view = (store: PostgresMemoryStore, path = '/memories') => store.view({ command: 'view', path });

describe('a dead server', () => {
  it('a server that is down gives BACKEND at once, in plain words without host, port or password', async () => {
    const proxy = await startFaultProxy({ target: databaseUrl() });
    const url = new URL(proxy.url);
    await proxy.close();
    url.username = 'someone';
    url.password = 's3cret-pw';
    const store = createPostgresStore({ connectionString: url.toString(), schema: freshSchema() });
    cleanups.push(() => store.close());
    const outcome = await timed(view(store));
    expect(outcome.code).toBe('BACKEND');
    expect(outcome.ms).toBeLessThan(5_000);
    expect(outcome.message).toBe('The memory store is unavailable: cannot connect to PostgreSQL. Try again.');
    expect(outcome.reason).toBe('unavailable');
    for (const secret of ['s3cret', 'someone', url.port, '127.0.0.1'])
      expect(outcome.message).not.toContain(secret);
  });
});

describe('a URL whose port reaches another kind of server', () => {
  // pg's own words name neither the server nor the fix ("Connection terminated unexpectedly" from
  // an HTTP server; Redis waits for a line end that never comes, until the deadline).
  const misconfigured = (found: string) => ({
    code: 'BACKEND',
    reason: 'misconfigured',
    message: `The memory store is unavailable: the server found speaks ${found}, not PostgreSQL; check the port. Trying again will not help until the store's configuration is fixed.`,
  });

  it('an HTTP server is named', async () => {
    const http = await startImpostor('http');
    cleanups.push(() => http.close());
    const store = createPostgresStore({
      connectionString: `postgres://someone:s3cret-pw@127.0.0.1:${http.port}/memdir`,
      schema: freshSchema(),
    });
    cleanups.push(() => store.close());
    expect(await timed(view(store))).toMatchObject(misconfigured('HTTP'));
  });

  it('Redis is named, well before the deadline', async () => {
    const store = createPostgresStore({
      connectionString: `postgres://someone:s3cret-pw@127.0.0.1:${new URL(redisUrl()).port}/memdir`,
      schema: freshSchema(),
      timeoutMs: 10_000,
    });
    cleanups.push(() => store.close());
    const outcome = await timed(view(store));
    expect(outcome).toMatchObject(misconfigured('Redis'));
    expect(outcome.ms).toBeLessThan(8_000);
  });
});

describe('a silent server', () => {
  // A port that accepts connections and never answers: the command fails at its deadline, and
  // closing the store does not then wait for the connection attempt's own timeout (10 s by
  // default), which made `memdir view` take twice the time its message named.
  it('a command gets BACKEND (timeout) at its deadline, and close() resolves at once', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const store = createPostgresStore({
        connectionString: `postgres://someone:pw@127.0.0.1:${port}/db`,
        schema: freshSchema(),
        timeoutMs: 1_000,
      });
      const outcome = await timed(view(store));
      expect(outcome.code).toBe('BACKEND');
      expect(outcome.reason).toBe('timeout');
      expect(outcome.ms).toBeLessThan(1_500);
      const started = Date.now();
      await store.close();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 30_000);
});

describe('dropped connections', () => {
  it('connections reset while idle: the next command reconnects and succeeds', async () => {
    const { store, proxy } = await proxiedStore();
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await Promise.all(Array.from({ length: 5 }, () => view(store)));
    proxy.setMode('reset');
    proxy.setMode('pass');
    expect(await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' })).toBe(
      'File created successfully at: /memories/b.md',
    );
    expect(await view(store, '/memories/a.md')).toContain('     1\ta');
  });

  it('inserts whose connections are reset mid-flight are applied at most once, and each one reported done is there', async () => {
    const { store, proxy } = await proxiedStore();
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'start' });
    const inserts = Array.from({ length: 100 }, (_, index) =>
      timed(
        store.insert({
          command: 'insert',
          path: '/memories/log.md',
          insert_line: 1,
          insert_text: `line ${index}`,
        }),
      ),
    );
    const chaos = (async () => {
      for (let round = 0; round < 6; round++) {
        await new Promise((resolve) => setTimeout(resolve, 15));
        proxy.setMode('reset');
        proxy.setMode('pass');
      }
    })();
    const results = await Promise.all(inserts);
    await chaos;
    for (const result of results) if (result.code !== undefined) expect(result.code).toBe('BACKEND');
    const lines = (await view(store, '/memories/log.md'))
      .split('\n')
      .slice(1)
      .map((line) => line.slice(line.indexOf('\t') + 1));
    expect(new Set(lines).size).toBe(lines.length);
    results.forEach((result, index) => {
      if (result.ok !== undefined) expect(lines).toContain(`line ${index}`);
    });
    expect(results.filter((result) => result.ok !== undefined).length).toBeGreaterThan(50);
    // History saw exactly the inserts that happened, each once, and the newest is the file.
    const versions = (await store.history({ path: '/memories/log.md', limit: 1_000 })).versions;
    expect(versions).toHaveLength(lines.length);
    expect(versions.filter((version) => version.operation === 'modified')).toHaveLength(lines.length - 1);
    const content = lines.join('\n');
    expect(versions[0]!.sha256).toBe(createHash('sha256').update(content, 'utf8').digest('hex'));
  });

  it('idle connections killed by the server do not crash the process, and the store goes on', async () => {
    const schema = freshSchema();
    const store = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => dropSchema(admin, schema));
    cleanups.push(() => store.close());
    await Promise.all(
      Array.from({ length: 4 }, (_, index) =>
        store.create({ command: 'create', path: `/memories/${index}.md`, file_text: 'x' }),
      ),
    );
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'memdir' AND state = 'idle' AND pid <> pg_backend_pid()",
    );
    expect(rows.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await view(store, '/memories/0.md')).toContain('     1\tx');
  });
});

describe('the server itself', () => {
  it('a backend terminated mid-command leaves nothing half-done, and the command or the next one succeeds', async () => {
    const schema = freshSchema();
    const store = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => dropSchema(admin, schema));
    cleanups.push(() => store.close());
    await store.create({ command: 'create', path: '/memories/dir/a.md', file_text: 'a' });
    // Hold the namespace's lock so the rename waits inside move_v4, then kill its backend.
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(${0x6d640002}, hashtext(''))`);
      const rename = timed(
        store.rename({ command: 'rename', old_path: '/memories/dir', new_path: '/memories/moved' }),
      );
      let killed = 0;
      for (let tries = 0; tries < 100 && killed === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { rows } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%move_v4%' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
        );
        killed = rows.length;
      }
      expect(killed).toBe(1);
      await holder.query('COMMIT');
      const outcome = await rename;
      // The driver ran it again on a new connection (its op id makes that safe) or reported it.
      if (outcome.ok === undefined) expect(outcome.code).toBe('BACKEND');
      const { rows } = await admin.query(`SELECT path FROM "${schema}".files ORDER BY path`);
      expect([['dir/a.md'], ['moved/a.md']]).toContainEqual(rows.map((row) => row.path));
      if (outcome.ok !== undefined) expect(rows[0].path).toBe('moved/a.md');
      // Its version is there exactly when the rename is.
      const renamed = (await store.history({ operations: ['renamed'] })).versions;
      expect(renamed.map((version) => version.path)).toEqual(
        rows[0].path === 'moved/a.md' ? ['/memories/moved/a.md'] : [],
      );
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      holder.release();
    }
    expect(await store.create({ command: 'create', path: '/memories/after.md', file_text: 'x' })).toBe(
      'File created successfully at: /memories/after.md',
    );
  });

  it('the server restarted: the store reconnects and goes on, data intact', async () => {
    const server = await startPrivatePostgres();
    cleanups.push(() => server.close());
    const store = createPostgresStore({ connectionString: server.url });
    cleanups.push(() => store.close());
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'before' });
    await Promise.all(Array.from({ length: 3 }, () => view(store)));
    await server.restart();
    const after = await timed(view(store, '/memories/a.md'));
    expect(after.ok).toContain('     1\tbefore');
    expect(await store.create({ command: 'create', path: '/memories/b.md', file_text: 'after' })).toBe(
      'File created successfully at: /memories/b.md',
    );
    await server.stop();
    const down = await timed(view(store));
    expect(down.code).toBe('BACKEND');
    expect(down.ms).toBeLessThan(6_500);
  });
});
