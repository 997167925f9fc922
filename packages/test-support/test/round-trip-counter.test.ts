import { randomUUID } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, test } from 'vitest';
import {
  databaseUrl,
  type RoundTripCounter,
  redisUrl,
  s3Server,
  startRoundTripCounter,
} from '../src/index.js';
import { connectPg, connectRedis, s3Client } from './clients.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function counterFor(target: string): Promise<RoundTripCounter> {
  const counter = await startRoundTripCounter(target);
  cleanups.push(() => counter.close());
  return counter;
}

/** ioredis's own count of what it sent: one per command, one per MULTI batch (its tracing channels). */
function ioredisView() {
  const seen = { commands: 0, batches: 0 };
  const onCommand = () => void seen.commands++;
  const onBatch = () => void seen.batches++;
  subscribe('tracing:ioredis:command:start', onCommand);
  subscribe('tracing:ioredis:batch:start', onBatch);
  cleanups.push(() => {
    unsubscribe('tracing:ioredis:command:start', onCommand);
    unsubscribe('tracing:ioredis:batch:start', onBatch);
  });
  return seen;
}

describe('round-trip counter with ioredis', () => {
  test('one command is one turn, as ioredis counts it', async () => {
    const counter = await counterFor(redisUrl());
    const redis = await connectRedis(counter.url);
    cleanups.push(() => redis.disconnect());
    const key = `test-support:${randomUUID()}`;
    const view = ioredisView();
    counter.resetStats();

    await redis.set(key, 'v');
    expect(counter.stats().turns).toBe(1);
    await redis.get(key);
    await redis.del(key);
    expect(counter.stats().turns).toBe(3);
    expect(view.commands).toBe(3);
  });

  test('a pipeline is one turn, whatever its length', async () => {
    const counter = await counterFor(redisUrl());
    const redis = await connectRedis(counter.url);
    cleanups.push(() => redis.disconnect());
    const key = `test-support:${randomUUID()}`;
    counter.resetStats();

    const pipeline = redis.pipeline();
    for (let i = 0; i < 50; i++) pipeline.rpush(key, String(i));
    pipeline.lrange(key, 0, -1).del(key);
    const results = await pipeline.exec();
    expect(results).toHaveLength(52);
    expect(counter.stats().turns).toBe(1);
  });

  test('a MULTI transaction is one turn, and one batch for ioredis', async () => {
    const counter = await counterFor(redisUrl());
    const redis = await connectRedis(counter.url);
    cleanups.push(() => redis.disconnect());
    const key = `test-support:${randomUUID()}`;
    const view = ioredisView();
    counter.resetStats();

    await redis.multi().set(key, '1').incr(key).del(key).exec();
    expect(counter.stats().turns).toBe(1);
    expect(view.batches).toBe(1);
  });

  test('bytes are counted each way', async () => {
    const counter = await counterFor(redisUrl());
    const redis = await connectRedis(counter.url);
    cleanups.push(() => redis.disconnect());
    counter.resetStats();
    await redis.echo('x'.repeat(1000));
    const stats = counter.stats();
    // "*2\r\n$4\r\necho\r\n$1000\r\n" + 1000 + "\r\n" out, "$1000\r\n" + 1000 + "\r\n" back.
    expect(stats.bytesToServer).toBe(23 + 1000);
    expect(stats.bytesToClient).toBe(1000 + 9);
  });
});

describe('round-trip counter with pg', () => {
  test('a parameterised query is one turn', async () => {
    const counter = await counterFor(databaseUrl());
    const client = await connectPg(counter.url);
    cleanups.push(() => client.end());
    counter.resetStats();
    const result = await client.query('SELECT $1::int + 1 AS two', [1]);
    expect(result.rows).toEqual([{ two: 2 }]);
    expect(counter.stats().turns).toBe(1);
  });

  test('BEGIN; SELECT; COMMIT as three queries is three turns; as one simple query, one', async () => {
    const counter = await counterFor(databaseUrl());
    const client = await connectPg(counter.url);
    cleanups.push(() => client.end());
    let queries = 0;
    const query = (text: string) => {
      queries += 1;
      return client.query(text);
    };
    counter.resetStats();
    await query('BEGIN');
    await query('SELECT 1');
    await query('COMMIT');
    expect(counter.stats().turns).toBe(queries);
    expect(queries).toBe(3);

    counter.resetStats();
    await client.query('BEGIN; SELECT 1; COMMIT');
    expect(counter.stats().turns).toBe(1);
  });

  test('connecting is one turn with trust authentication', async () => {
    const counter = await counterFor(databaseUrl());
    const client = await connectPg(counter.url);
    cleanups.push(() => client.end());
    expect(counter.stats()).toMatchObject({ connections: 1, turns: 1 });
  });
});

describe('round-trip counter with the S3 SDK', () => {
  test('one PUT, GET or HEAD is one turn and one HTTP request, as the SDK counts them', async () => {
    const { bucket } = s3Server();
    const counter = await counterFor(s3Server().clientConfig.endpoint);
    const s3 = s3Client(counter.url);
    cleanups.push(() => s3.destroy());
    let sent = 0;
    // The deserialize step runs once per attempt, retries included: the SDK's own request count.
    s3.middlewareStack.add(
      (next) => async (args) => {
        sent += 1;
        return next(args);
      },
      { step: 'deserialize', name: 'countRequests' },
    );
    const key = `test-support/${randomUUID()}`;

    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'hello' }));
    expect(counter.stats()).toMatchObject({ turns: 1, httpRequests: 1 });
    expect(put.$metadata.attempts).toBe(1);

    counter.resetStats();
    const get = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(await get.Body?.transformToString()).toBe('hello');
    expect(counter.stats()).toMatchObject({ turns: 1, httpRequests: 1 });

    counter.resetStats();
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(counter.stats()).toMatchObject({ turns: 1, httpRequests: 1 });
    expect(sent).toBe(3);
  });

  test('a PUT over 2 MB is two turns: the SDK asks for 100 Continue before it sends the body', async () => {
    const { bucket } = s3Server();
    const counter = await counterFor(s3Server().clientConfig.endpoint);
    const s3 = s3Client(counter.url);
    cleanups.push(() => s3.destroy());
    const key = `test-support/${randomUUID()}`;
    const put = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.alloc(3_000_000, 1) }),
    );
    expect(put.$metadata.attempts).toBe(1);
    expect(counter.stats()).toMatchObject({ turns: 2, httpRequests: 1 });
  });
});
