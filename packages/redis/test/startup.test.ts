// What happens before the first command and after the last: the server check (memory policy, a
// Cluster behind a single connection), connecting lazily, closing what the store opened and never
// what the user passed, and the CLI's openStore.
import { databaseUrl, type PrivateServer, startImpostor, startPrivateRedis } from '@memdir/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/cli.js';
import { createRedisDriver, createRedisStore } from '../src/index.js';
import { clusterUrl, deleteUnder, newRedis, redisUrl, uniquePrefix } from './helpers.js';

const view = { command: 'view' as const, path: '/memories' };
const EMPTY =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories";

describe('the server check', () => {
  let server: PrivateServer;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(() => server.close());

  it('refuses a maxmemory-policy that may evict any key, with what to change; accepts noeviction and volatile-*', async () => {
    const admin = newRedis(server.url);
    await admin.connect();
    try {
      for (const policy of ['allkeys-lru', 'allkeys-lfu', 'allkeys-random']) {
        await admin.config('SET', 'maxmemory-policy', policy);
        const store = createRedisStore({ url: server.url });
        const refusal = {
          code: 'BACKEND',
          message: `The memory store cannot use this Redis server: its maxmemory-policy is ${policy}, so when memory runs short Redis may evict a key of a namespace and lose or corrupt memory files; set maxmemory-policy to noeviction (or a volatile-* policy).`,
        };
        await expect(store.view(view)).rejects.toMatchObject(refusal);
        // Once refused, always refused: the store never writes to that server.
        await expect(
          store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' }),
        ).rejects.toMatchObject(refusal);
        await store.close();
      }
      expect(await admin.dbsize()).toBe(0);
      for (const policy of ['noeviction', 'volatile-lru', 'volatile-ttl']) {
        await admin.config('SET', 'maxmemory-policy', policy);
        const store = createRedisStore({ url: server.url });
        expect(await store.view(view)).toBe(EMPTY);
        await store.close();
      }
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.quit();
    }
  });

  it('refuses a single connection to a Cluster node, and says to pass a Cluster', async () => {
    const single = newRedis(clusterUrl());
    const driver = createRedisDriver({ client: single });
    await expect(driver.ready()).rejects.toMatchObject({
      code: 'BACKEND',
      message:
        'The memory store cannot use this Redis server: it is a Redis Cluster node, and the client given is a single connection: pass an ioredis Cluster instead.',
    });
    single.disconnect();
  });

  it('a server that is down at startup fails fast in plain words, and the store connects once it is up', async () => {
    await server.stop();
    const store = createRedisStore({ url: server.url });
    const started = Date.now();
    const failure = await store.view(view).then(
      () => undefined,
      (error: unknown) => error as Error & { code: string },
    );
    expect(failure?.code).toBe('BACKEND');
    expect(failure?.message).toBe('The memory store is unavailable: cannot connect to Redis. Try again.');
    expect(Date.now() - started).toBeLessThan(5_000);
    await server.restart();
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        expect(await store.view(view)).toBe(EMPTY);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await store.close();
  }, 30_000);
});

describe('connections', () => {
  async function connectionsNamed(name: string): Promise<number> {
    const admin = newRedis();
    await admin.connect();
    const list = (await admin.call('CLIENT', 'LIST')) as string;
    await admin.quit();
    return list.split('\n').filter((line) => line.includes(`name=${name} `)).length;
  }

  it('makes no connection before the first command, and close() ends the one it made, with or without a namespace', async () => {
    for (const namespace of [undefined, 'tenant']) {
      const name = `memdir-close-${Math.random().toString(36).slice(2, 8)}`;
      const prefix = uniquePrefix('l');
      const store = createRedisStore({
        url: redisUrl(),
        keyPrefix: prefix,
        namespace,
        redisOptions: { connectionName: name },
      });
      expect(await connectionsNamed(name)).toBe(0);
      await store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' });
      expect(await connectionsNamed(name)).toBe(1);
      await store.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await connectionsNamed(name)).toBe(0);
      const admin = newRedis();
      await admin.connect();
      await deleteUnder(admin, prefix);
      await admin.quit();
    }
  });

  it('never closes the user\u2019s client, and a namespaced driver\u2019s close() leaves the parent open', async () => {
    const client = newRedis();
    const prefix = uniquePrefix('l');
    const store = createRedisStore({ client, keyPrefix: prefix, namespace: 'mine' });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' });
    await store.close();
    expect(client.status).toBe('ready');
    const driver = createRedisDriver({ url: redisUrl(), keyPrefix: prefix });
    await driver.namespace('inner').close();
    await expect(driver.namespace('mine').read('a.md' as never)).resolves.toMatchObject({ content: 'x' });
    await driver.close();
    await deleteUnder(client, prefix);
    await client.quit();
  });

  it('refuses options that cannot work, before connecting', () => {
    expect(() => createRedisStore({ url: 'http://127.0.0.1:6379' })).toThrow(
      'Invalid @memdir/redis option url: it must start with redis:// or rediss://',
    );
    expect(() => createRedisStore({ url: redisUrl(), maxSubtreeEntries: 0 })).toThrow(
      'Invalid @memdir/redis option maxSubtreeEntries: expected a positive integer, got 0',
    );
    expect(() => createRedisStore({ url: redisUrl(), namespace: 'no/slash' })).toThrow(
      /Invalid @memdir\/core option namespace/,
    );
  });
});

describe('the CLI\u2019s openStore', () => {
  it('opens redis:// URLs (a keyPrefix from the query), standalone or a Cluster node', async () => {
    for (const url of [redisUrl(), clusterUrl()]) {
      const prefix = uniquePrefix('cli');
      const store = await openStore(`${url}?keyPrefix=${encodeURIComponent(prefix)}`, { namespace: 'cli' });
      await store.create({ command: 'create', path: '/memories/a.md', file_text: 'from the CLI' });
      expect(await store.view({ command: 'view', path: '/memories/a.md' })).toContain('from the CLI');
      await store.delete({ command: 'delete', path: '/memories/a.md' });
      await store.close();
    }
  });

  it('reports an unreachable server at once, and never prints the password of the URL', async () => {
    const error = await openStore('redis://memdir:s3cret-pass@127.0.0.1:1', {}).then(
      () => undefined,
      (failure: unknown) => failure as Error & { code?: string },
    );
    expect(error?.code).toBe('BACKEND');
    expect(error?.message).toBe('The memory store is unavailable: cannot connect to Redis. Try again.');
    expect(error?.message).not.toContain('s3cret');
    expect(error?.message).not.toContain('127.0.0.1');
  });

  it('a URL whose port reaches an HTTP server says so, not "Unknown RESP type"', async () => {
    const http = await startImpostor('http');
    try {
      const error = await openStore(`redis://memdir:s3cret-pass@127.0.0.1:${http.port}`, {}).then(
        () => undefined,
        (failure: unknown) => failure as Error & { code?: string; reason?: string; cause?: Error },
      );
      expect(error).toMatchObject({
        code: 'BACKEND',
        reason: 'misconfigured',
        message:
          "The memory store is unavailable: the server found speaks HTTP, not Redis; check the port. Trying again will not help until the store's configuration is fixed.",
      });
      // What the CLI prints after "Cannot open store URL: ".
      expect(error?.cause?.message).toBe('the server found speaks HTTP, not Redis; check the port');
    } finally {
      await http.close();
    }
  });

  it('a silent port: the deadline\u2019s sentence with its seconds (not ioredis\u2019s "Command timed out"), and it ends', async () => {
    const silent = await startImpostor('silent');
    try {
      const started = Date.now();
      const error = await openStore(`redis://127.0.0.1:${silent.port}`, { timeoutMs: 1_000 }).then(
        () => undefined,
        (failure: unknown) => failure as Error & { code?: string; reason?: string; cause?: Error },
      );
      expect(error).toMatchObject({
        code: 'BACKEND',
        reason: 'timeout',
        message: 'The memory store is unavailable: it did not answer within 1 second. Try again.',
      });
      // What the CLI prints after "Cannot open store URL: ".
      expect(error?.cause?.message).toBe('Redis did not answer within 1 second');
      // The deadline, then close()'s own bounded wait: generous, since the machine is shared.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await silent.close();
    }
  }, 30_000);

  it('a URL whose port reaches PostgreSQL says so, not "max retries per request"', async () => {
    const port = new URL(databaseUrl()).port;
    await expect(openStore(`redis://127.0.0.1:${port}`, {})).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'misconfigured',
      message:
        "The memory store is unavailable: the server found speaks PostgreSQL, not Redis; check the port. Trying again will not help until the store's configuration is fixed.",
    });
  });
});
