// Every BACKEND failure carries a reason (and an outcome), on the real servers: a wrong password
// or none, a database the server does not have, an unusable server, a port nobody listens on, a
// busy server, a closed store or driver. Misconfigured stores do not tell the model to try again,
// and the server's own words stay on `cause` for operators.
import { isMemoryToolError, type MemoryStore, type MemoryToolError } from '@memdir/core';
import { type PrivateServer, startPrivateRedis } from '@memdir/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisDriver, createRedisStore } from '../src/index.js';
import { deleteUnder, newRedis, redisUrl, uniquePrefix } from './helpers.js';

const view = { command: 'view' as const, path: '/memories' };
const TRYING_AGAIN_WILL_NOT_HELP = "Trying again will not help until the store's configuration is fixed.";

async function failure(run: Promise<unknown>): Promise<MemoryToolError> {
  try {
    await run;
  } catch (error) {
    if (isMemoryToolError(error)) return error;
    throw error;
  }
  throw new Error('the command succeeded');
}

async function failureOf(url: string, options: { timeoutMs?: number } = {}): Promise<MemoryToolError> {
  const store = createRedisStore({ url, ...options });
  try {
    return await failure(store.view(view));
  } finally {
    await store.close();
  }
}

describe('misconfigured', () => {
  let server: PrivateServer;
  let port: number;
  beforeAll(async () => {
    server = await startPrivateRedis({ args: ['--requirepass', 'right-password'] });
    port = server.port;
  });
  afterAll(() => server.close());

  it('a wrong password, or none: misconfigured, nothing to retry, the server\u2019s reply on cause', async () => {
    const wrong = await failureOf(`redis://:wrong-password@127.0.0.1:${port}`);
    expect(wrong).toMatchObject({ code: 'BACKEND', reason: 'misconfigured', outcome: 'not-applied' });
    expect(wrong.message).toBe(
      `The memory store is unavailable: Redis refused the credentials. ${TRYING_AGAIN_WILL_NOT_HELP}`,
    );
    expect(wrong.message).not.toContain('wrong-password');
    expect((wrong.cause as Error).message).toMatch(/^WRONGPASS /);
    const none = await failureOf(`redis://127.0.0.1:${port}`);
    expect(none).toMatchObject({ code: 'BACKEND', reason: 'misconfigured' });
    expect((none.cause as Error).message).toMatch(/^NOAUTH /);
    // The right one works.
    const store = createRedisStore({ url: `redis://:right-password@127.0.0.1:${port}` });
    await expect(store.view(view)).resolves.toContain('/memories');
    await store.close();
  });

  it('a database the server does not have: misconfigured (ioredis would carry on in database 0)', async () => {
    const error = await failureOf(`redis://:right-password@127.0.0.1:${port}/99`);
    expect(error).toMatchObject({
      code: 'BACKEND',
      reason: 'misconfigured',
      outcome: 'not-applied',
      message:
        'The memory store cannot use this Redis server: it has no database 99 (the number after the address): use one of the databases its databases setting allows.',
    });
    expect(error.cause).toBeInstanceOf(Error);
    const admin = newRedis(`redis://:right-password@127.0.0.1:${port}`);
    await admin.connect();
    expect(await admin.dbsize()).toBe(0);
    admin.disconnect();
  });

  it('an unusable server (an eviction policy that may drop memdir\u2019s keys): misconfigured', async () => {
    const admin = newRedis(`redis://:right-password@127.0.0.1:${port}`);
    await admin.connect();
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const error = await failureOf(`redis://:right-password@127.0.0.1:${port}`);
      expect(error).toMatchObject({ code: 'BACKEND', reason: 'misconfigured', outcome: 'not-applied' });
      expect((error.cause as Error).message).toContain('maxmemory-policy is allkeys-lru');
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      admin.disconnect();
    }
  });
});

describe('unavailable, busy, closed', () => {
  it('a port nobody listens on: unavailable, at once', async () => {
    const started = Date.now();
    const error = await failureOf('redis://127.0.0.1:1');
    expect(error).toMatchObject({
      code: 'BACKEND',
      reason: 'unavailable',
      outcome: 'not-applied',
      message: 'The memory store is unavailable: cannot connect to Redis. Try again.',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a server running a long script: busy, and the change was not applied', async () => {
    const server = await startPrivateRedis({ args: ['--busy-reply-threshold', '50'] });
    const blocker = newRedis(server.url);
    const admin = newRedis(server.url);
    const store = createRedisStore({ url: server.url, timeoutMs: 3_000 });
    try {
      await store.view(view);
      await blocker.connect();
      await admin.connect();
      const spinning = blocker
        .eval(
          'local t = tonumber(redis.call("TIME")[1]) + 2 while tonumber(redis.call("TIME")[1]) < t do end',
          0,
        )
        .catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      const error = await failure(
        store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' }),
      );
      expect(error).toMatchObject({ code: 'BACKEND', reason: 'busy', outcome: 'not-applied' });
      expect(error.message).toBe(
        'The memory store is unavailable: Redis is busy running another script. Try again.',
      );
      await admin.call('SCRIPT', 'KILL').catch(() => {});
      await spinning;
      await expect(store.view({ command: 'view', path: '/memories/a.md' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      await store.close();
      blocker.disconnect();
      admin.disconnect();
      await server.close();
    }
  }, 30_000);

  it('a closed store and a closed driver: closed, nothing sent', async () => {
    const prefix = uniquePrefix('c');
    const store: MemoryStore = createRedisStore({ url: redisUrl(), keyPrefix: prefix });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' });
    await store.close();
    expect(await failure(store.view(view))).toMatchObject({ code: 'BACKEND', reason: 'closed' });
    const driver = createRedisDriver({ url: redisUrl(), keyPrefix: prefix });
    await driver.ready();
    await driver.close();
    const error = await failure(driver.write('b.md' as never, 'x', { op: 'closed-op-0000000000000000' }));
    expect(error).toMatchObject({ code: 'BACKEND', reason: 'closed', outcome: 'not-applied' });
    const admin = newRedis();
    await admin.connect();
    await deleteUnder(admin, prefix);
    admin.disconnect();
  });
});
