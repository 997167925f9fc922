import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, test } from 'vitest';
import { databaseUrl, type FaultProxy, redisUrl, s3Server, startFaultProxy } from '../src/index.js';
import { tryConnect } from '../src/net.js';
import { connectPg, connectRedis, s3Client, timed } from './clients.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxyTo(target: string): Promise<FaultProxy> {
  const proxy = await startFaultProxy({ target });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** Sends raw bytes on a fresh connection and collects every byte until the other side closes. */
function rawExchange(port: number, request: string): Promise<{ received: Buffer; how: 'end' | 'error' }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.once('end', () => resolve({ received: Buffer.concat(chunks), how: 'end' }));
    socket.once('error', () => resolve({ received: Buffer.concat(chunks), how: 'error' }));
  });
}

const resp = (...args: string[]) =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

describe('fault proxy against Redis', () => {
  test('pass forwards commands and replies', async () => {
    const proxy = await proxyTo(redisUrl());
    const redis = await connectRedis(proxy.url);
    cleanups.push(() => redis.disconnect());
    const key = `test-support:${randomUUID()}`;
    await redis.set(key, 'value');
    expect(await redis.get(key)).toBe('value');
    await redis.del(key);
  });

  test('stall makes an ioredis call hang until its own timeout, and the bytes flow again in order after pass', async () => {
    const proxy = await proxyTo(redisUrl());
    const redis = await connectRedis(proxy.url, { commandTimeout: 500 });
    cleanups.push(() => redis.disconnect());
    proxy.setMode('stall');
    const stalled = await timed(redis.ping('stalled'));
    expect(stalled.error?.message).toBe('Command timed out');
    expect(stalled.ms).toBeGreaterThanOrEqual(450);
    proxy.setMode('pass');
    // The stalled PING reaches the server now; its late reply goes to it, not to this one.
    expect(await redis.ping('after')).toBe('after');
  });

  test('stall holds new connections too: accepted, never answered until pass', async () => {
    const proxy = await proxyTo(redisUrl());
    proxy.setMode('stall');
    const socket = createConnection({ host: '127.0.0.1', port: proxy.port });
    cleanups.push(() => socket.destroy());
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(resp('PING'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toEqual([]);
    expect(proxy.stats().connections).toBe(1);
    const answered = new Promise((resolve) => socket.once('data', resolve));
    proxy.setMode('pass');
    await answered;
    expect(Buffer.concat(received).toString('latin1')).toBe('+PONG\r\n');
  });

  test('reset drops open connections and refuses new ones with a TCP reset', async () => {
    const proxy = await proxyTo(redisUrl());
    const redis = await connectRedis(proxy.url);
    cleanups.push(() => redis.disconnect());
    const closed = new Promise((resolve) => redis.once('close', resolve));
    proxy.setMode('reset');
    await closed;
    const call = await timed(redis.ping());
    expect(call.error).toBeDefined();
    const raw = await rawExchange(proxy.port, resp('PING'));
    expect(raw.received.length).toBe(0);
    expect(raw.how).toBe('error');
  });

  test('latency delays each direction by its milliseconds', async () => {
    const proxy = await proxyTo(redisUrl());
    const redis = await connectRedis(proxy.url);
    cleanups.push(() => redis.disconnect());
    proxy.setMode({ kind: 'latency', ms: 150 });
    const call = await timed(redis.ping());
    expect(call.value).toBe('PONG');
    expect(call.ms).toBeGreaterThanOrEqual(290);
    proxy.setMode('pass');
    expect(await redis.ping()).toBe('PONG');
  });

  test('cut sends the first N bytes of a reply, then drops the connection', async () => {
    const key = `test-support:${randomUUID()}`;
    const value = 'x'.repeat(10_000);
    const direct = await connectRedis(redisUrl());
    cleanups.push(() => direct.disconnect());
    await direct.set(key, value);
    cleanups.push(() => direct.del(key));

    const proxy = await proxyTo(redisUrl());
    // Connected first: the cut counts from the mode on, and ioredis's ready check has its reply.
    const redis = await connectRedis(proxy.url);
    cleanups.push(() => redis.disconnect());
    proxy.setMode({ kind: 'cut', afterBytes: 100 });
    const raw = await rawExchange(proxy.port, resp('GET', key));
    expect(raw.received.length).toBe(100);
    expect(raw.received.toString('latin1')).toBe(`$10000\r\n${value}`.slice(0, 100));

    const call = await timed(redis.get(key));
    expect(call.error).toBeDefined();
    expect(call.value).toBeUndefined();
  });

  test('close leaves nothing open, stalled connections included', async () => {
    const proxy = await startFaultProxy({ target: redisUrl() });
    const redis = await connectRedis(proxy.url);
    const closed = new Promise((resolve) => redis.once('close', resolve));
    proxy.setMode('stall');
    await proxy.close();
    await closed;
    expect((await tryConnect({ host: '127.0.0.1', port: proxy.port }))?.message).toMatch(/ECONNREFUSED/);
    redis.disconnect();
  });
});

describe('fault proxy against PostgreSQL', () => {
  test('reset makes pg fail fast, on a new connection and on an open one', async () => {
    const proxy = await proxyTo(databaseUrl());
    const open = await connectPg(proxy.url);
    cleanups.push(() => open.end().catch(() => {}));
    expect((await open.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

    proxy.setMode('reset');
    const query = await timed(open.query('SELECT 1'));
    expect(query.error).toBeDefined();
    expect(query.ms).toBeLessThan(5000);
    const connect = await timed(connectPg(proxy.url));
    expect(connect.error?.code ?? connect.error?.message).toMatch(/ECONNRESET|terminated/);
    expect(connect.ms).toBeLessThan(5000);
  });

  test('stall makes a pg query wait for its own timeout', async () => {
    const proxy = await proxyTo(databaseUrl());
    const client = await connectPg(proxy.url, { query_timeout: 500 });
    cleanups.push(() => client.end().catch(() => {}));
    proxy.setMode('stall');
    const query = await timed(client.query('SELECT 1'));
    expect(query.error?.message).toMatch(/timeout/i);
    expect(query.ms).toBeGreaterThanOrEqual(450);
  });

  test('cut ends a result midway: pg sees the connection end', async () => {
    const proxy = await proxyTo(databaseUrl());
    const client = await connectPg(proxy.url);
    cleanups.push(() => client.end().catch(() => {}));
    proxy.setMode({ kind: 'cut', afterBytes: 50 });
    const query = await timed(client.query("SELECT repeat('x', 10000) AS big"));
    expect(query.error?.message).toMatch(/terminated|closed|ended/i);
    expect(proxy.stats().bytesToClient).toBeGreaterThan(50);
  });
});

describe('fault proxy against radosgw (S3)', () => {
  test('slow-down answers the Nth request with 503 SlowDown; the SDK retries and succeeds', async () => {
    const { bucket } = s3Server();
    const proxy = await proxyTo(s3Server().clientConfig.endpoint);
    const s3 = s3Client(proxy.url, 3);
    cleanups.push(() => s3.destroy());
    const key = `test-support/${randomUUID()}`;
    proxy.setMode({ kind: 'slow-down', nth: 2 });
    const first = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'one' }));
    expect(first.$metadata.attempts).toBe(1);
    const second = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'two' }));
    expect(second.$metadata.attempts).toBe(2);
    expect(proxy.stats().httpRequests).toBe(3);
    const read = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(await read.Body?.transformToString()).toBe('two');
  });

  test('without retries the SDK reports the SlowDown error, status 503', async () => {
    const { bucket } = s3Server();
    const proxy = await proxyTo(s3Server().clientConfig.endpoint);
    const s3 = s3Client(proxy.url, 1);
    cleanups.push(() => s3.destroy());
    proxy.setMode({ kind: 'slow-down', nth: 1 });
    const put = await timed(
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: `test-support/${randomUUID()}`, Body: 'x' })),
    );
    expect(put.error?.name).toBe('SlowDown');
    expect((put.error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(503);
  });

  test('slow-down answers a request that waits for 100 Continue at once; the SDK retries with its body', async () => {
    const { bucket } = s3Server();
    const proxy = await proxyTo(s3Server().clientConfig.endpoint);
    const s3 = s3Client(proxy.url, 3);
    cleanups.push(() => s3.destroy());
    const key = `test-support/${randomUUID()}`;
    const body = Buffer.alloc(3_000_000, 7);
    proxy.setMode({ kind: 'slow-down', nth: 1 });
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    expect(put.$metadata.attempts).toBe(2);
    const read = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(Buffer.from(await read.Body!.transformToByteArray()).equals(body)).toBe(true);
  });

  test('slow-down on a request with a chunked body waits for its end', async () => {
    const proxy = await proxyTo(s3Server().clientConfig.endpoint);
    proxy.setMode({ kind: 'slow-down', nth: 1 });
    const request =
      'PUT /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
    const raw = await rawExchange(proxy.port, request);
    const text = raw.received.toString('latin1');
    expect(text.startsWith('HTTP/1.1 503 Slow Down\r\n')).toBe(true);
    expect(text).toContain('<Code>SlowDown</Code>');
  });

  test('stall makes an S3 call wait for its abort signal', async () => {
    const { bucket } = s3Server();
    const proxy = await proxyTo(s3Server().clientConfig.endpoint);
    const s3 = s3Client(proxy.url, 1);
    cleanups.push(() => s3.destroy());
    proxy.setMode('stall');
    const get = await timed(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'test-support/none' }), {
        abortSignal: AbortSignal.timeout(500),
      }),
    );
    expect(get.error?.name).toMatch(/Abort|Timeout/);
    expect(get.ms).toBeGreaterThanOrEqual(450);
  });
});
