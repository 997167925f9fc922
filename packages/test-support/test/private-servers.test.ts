import { existsSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { type PrivateServer, startPrivatePostgres, startPrivateRedis } from '../src/index.js';
import { tryConnect } from '../src/net.js';
import { connectPg, connectRedis, timed } from './clients.js';

const servers: PrivateServer[] = [];
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const server of servers.splice(0)) await server.close();
});

const refused = async (port: number) =>
  ((await tryConnect({ host: '127.0.0.1', port }, 1000))?.message ?? '').includes('ECONNREFUSED');

describe('private Redis', () => {
  test('kill is a crash: clients see the connection drop, and restart brings it back empty on the same port', async () => {
    const server = await startPrivateRedis();
    servers.push(server);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    const redis = await connectRedis(server.url);
    cleanups.push(() => redis.disconnect());
    await redis.set('k', 'v');
    expect(await redis.debug('SLEEP', '0')).toBe('OK');

    const closed = new Promise((resolve) => redis.once('close', resolve));
    await server.kill();
    await closed;
    expect(server.pid).toBeUndefined();
    expect(await refused(server.port)).toBe(true);

    await server.restart();
    const again = await connectRedis(server.url);
    cleanups.push(() => again.disconnect());
    expect(await again.get('k')).toBeNull();
  });

  test('pause makes it answer nothing until resume', async () => {
    const server = await startPrivateRedis();
    servers.push(server);
    const redis = await connectRedis(server.url, { commandTimeout: 400 });
    cleanups.push(() => redis.disconnect());
    server.pause();
    const paused = await timed(redis.ping());
    expect(paused.error?.message).toBe('Command timed out');
    server.resume();
    expect(await redis.ping('back')).toBe('back');
  });

  test('close stops it and deletes its folder', async () => {
    const server = await startPrivateRedis({ args: ['--maxmemory-policy', 'noeviction'] });
    const redis = await connectRedis(server.url);
    expect(await redis.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    redis.disconnect();
    await server.close();
    await server.close();
    expect(existsSync(server.dir)).toBe(false);
    expect(await refused(server.port)).toBe(true);
  });
});

describe('private PostgreSQL', () => {
  test('kill is a crash; restart recovers the committed data on the same port', async () => {
    const server = await startPrivatePostgres();
    servers.push(server);
    const client = await connectPg(server.url);
    await client.query('CREATE TABLE t (n int)');
    await client.query('INSERT INTO t VALUES (1), (2)');

    await server.kill();
    const after = await timed(client.query('SELECT 1'));
    expect(after.error).toBeDefined();
    expect(await refused(server.port)).toBe(true);

    await server.restart();
    const again = await connectPg(server.url);
    cleanups.push(() => again.end());
    expect((await again.query('SELECT sum(n)::int AS total FROM t')).rows).toEqual([{ total: 3 }]);
  });

  test('stop ends open sessions (fast shutdown), and restart starts it again', async () => {
    const server = await startPrivatePostgres({ settings: { max_connections: '7' } });
    servers.push(server);
    const client = await connectPg(server.url);
    expect((await client.query('SHOW max_connections')).rows).toEqual([{ max_connections: '7' }]);
    const stop = await timed(server.stop());
    expect(stop.error).toBeUndefined();
    expect((await timed(client.query('SELECT 1'))).error).toBeDefined();
    await server.restart();
    const again = await connectPg(server.url);
    cleanups.push(() => again.end());
    expect((await again.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
