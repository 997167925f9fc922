// The identity section (issue 29, docs/identity.md), in one run: round trips of the record calls
// (`store.records`: get, locate, a page of 100, update by id, remove by id) on PostgreSQL and Redis,
// counted on the wire through a loopback proxy; on PostgreSQL a page of 100 records against one raw
// keyset SELECT of 100 rows by primary key, interleaved; on S3 the requests of a page of 100 records
// in a process that has seen the files and in one that has not.

import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { MemdirStore, MemoryRecord } from '@memdir/core';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { createS3Store } from '@memdir/s3';
import { type RoundTripCounter, startRoundTripCounter, startServers } from '@memdir/test-support';
import pg from 'pg';
import { compare } from '../interleave.js';
import { configOf } from './s3.js';
import type { BenchSection, SectionContext } from './section.js';

/** Files seeded for each store: two pages of 100 and a bit. */
const FILES = 250;

interface Call {
  readonly label: string;
  readonly goal: number;
  readonly run: (
    store: MemdirStore,
    ids: { first: string; moving: string; doomed: string },
  ) => Promise<unknown>;
}

const CALLS: readonly Call[] = [
  {
    label: 'records.get (a file by path)',
    goal: 1,
    run: (store) => store.records.get('/memories/f/0001.md'),
  },
  { label: 'records.locate (a file by id)', goal: 1, run: (store, ids) => store.records.locate(ids.first) },
  {
    label: 'records.locate with content',
    goal: 1,
    run: (store, ids) => store.records.locate(ids.first, { content: true }),
  },
  { label: 'records.list, a page of 100', goal: 1, run: (store) => store.records.list({ limit: 100 }) },
  {
    label: 'records.list depth 1, a page of 100',
    goal: 1,
    run: (store) => store.records.list({ depth: 1, limit: 100 }),
  },
  {
    label: 'records.update by id: content',
    goal: 1,
    run: (store, ids) => store.records.update(ids.first, { content: `changed ${Date.now()}` }),
  },
  {
    label: 'records.update by id: path and content',
    goal: 1,
    run: (store, ids) =>
      store.records.update(ids.moving, {
        content: `moved ${Date.now()}`,
        path: `/memories/m/${Date.now()}.md`,
      }),
  },
];

async function seed(store: MemdirStore): Promise<{ first: string; moving: string; doomed: string }> {
  for (let index = 0; index < FILES; index++) {
    const folder = index % 5 === 0 ? `d${index % 7}/` : '';
    await store.create({
      command: 'create',
      path: `/memories/f/${folder}${String(index).padStart(4, '0')}.md`,
      file_text: `file ${index}\n`.repeat(8),
    });
  }
  await store.create({ command: 'create', path: '/memories/move-me.md', file_text: 'moving' });
  await store.create({ command: 'create', path: '/memories/doomed.md', file_text: 'doomed' });
  const idOf = async (path: string) => ((await store.records.get(path)) as MemoryRecord).id;
  return {
    first: await idOf('/memories/f/0001.md'),
    moving: await idOf('/memories/move-me.md'),
    doomed: await idOf('/memories/doomed.md'),
  };
}

/** Round trips of each call on `store`, through `counter`, after one warm-up call each. */
async function roundTrips(
  store: MemdirStore,
  counter: RoundTripCounter,
  ids: { first: string; moving: string; doomed: string },
): Promise<string[]> {
  const rows: string[] = [];
  for (const call of CALLS) {
    await call.run(store, ids);
    counter.resetStats();
    await call.run(store, ids);
    const turns = counter.stats().turns;
    rows.push(`| ${call.label} | ${turns} | ${call.goal} | ${turns <= call.goal ? 'PASS' : 'ABOVE'} |`);
  }
  counter.resetStats();
  await store.records.remove(ids.doomed);
  const removeTurns = counter.stats().turns;
  rows.push(
    `| records.remove by id (locate, then a remove under the id) | ${removeTurns} | 2 | ${removeTurns <= 2 ? 'PASS' : 'ABOVE'} |`,
  );
  return rows;
}

const TABLE_HEAD = ['| call | round trips on the wire | goal | result |', '|---|---:|---:|---|'];

async function postgresPart(context: SectionContext, lines: string[]): Promise<void> {
  const servers = await startServers(['postgres'], { log: context.log });
  const url = servers.env['DATABASE_URL']!;
  const schema = `memdir_bench_identity_${process.pid}`;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  admin.on('error', () => {});
  const counter = await startRoundTripCounter(url);
  const pool = new pg.Pool({ connectionString: counter.url, max: 4 });
  pool.on('error', () => {});
  const direct = new pg.Pool({ connectionString: url, max: 4 });
  direct.on('error', () => {});
  const store = createPostgresStore({ pool, schema, namespace: 'identity' });
  const timed = createPostgresStore({ pool: direct, schema, namespace: 'identity' });
  try {
    await store.setup();
    context.log('[identity] PostgreSQL: seeding and counting round trips');
    const ids = await seed(store);
    lines.push('### PostgreSQL', '', ...TABLE_HEAD, ...(await roundTrips(store, counter, ids)), '');
    context.log('[identity] PostgreSQL: a page of 100 records against a raw keyset SELECT of 100 rows');
    const rounds = context.quick ? 3 : 10;
    const count = context.quick ? 30 : 100;
    const raw = `SELECT path, size, version FROM "${schema}".files WHERE ns = $1 AND path > $2 ORDER BY path LIMIT 100`;
    const ns = 'identity';
    const result = await compare(
      {
        memdir: () => timed.records.list({ limit: 100 }),
        raw: () => direct.query(raw, [ns, '']),
      },
      rounds,
      count,
    );
    const ratio = result.memdir.p50 / result.raw.p50;
    lines.push(
      `A page of 100 records (\`records.list({ limit: 100 })\`, no content) against one raw keyset \`SELECT\` of 100 rows by primary key, interleaved, ${rounds} rounds of ${count}:`,
      '',
      '| side | p50 (µs) | mean (µs) |',
      '|---|---:|---:|',
      `| records.list, 100 | ${result.memdir.p50.toFixed(0)} | ${result.memdir.mean.toFixed(0)} |`,
      `| raw keyset SELECT, 100 rows | ${result.raw.p50.toFixed(0)} | ${result.raw.mean.toFixed(0)} |`,
      '',
      `Ratio of the p50s: ${ratio.toFixed(2)}x (goal: at most 2x): ${ratio <= 2 ? 'PASS' : 'ABOVE'}.`,
      '',
    );
  } finally {
    await store.close().catch(() => {});
    await timed.close().catch(() => {});
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await Promise.all([admin.end(), pool.end(), direct.end()]).catch(() => {});
    await counter.close();
    await servers.stop();
  }
}

async function redisPart(context: SectionContext, lines: string[]): Promise<void> {
  const servers = await startServers(['redis'], { log: context.log });
  const url = servers.env['REDIS_URL']!;
  const counter = await startRoundTripCounter(url);
  const keyPrefix = `memdir-bench-identity-${process.pid}:`;
  const store = createRedisStore({ url: counter.url, keyPrefix, namespace: 'identity' });
  try {
    context.log('[identity] Redis: seeding and counting round trips');
    const ids = await seed(store);
    // A warm-up on the store's scripts happened in seed(); each call also runs once before it is counted.
    lines.push('### Redis', '', ...TABLE_HEAD, ...(await roundTrips(store, counter, ids)), '');
    await store.records.list({ limit: 1 });
  } finally {
    const { Redis } = await import('ioredis');
    const admin = new Redis(url);
    admin.on('error', () => {});
    const keys = await admin.keys(`${keyPrefix}*`);
    for (let index = 0; index < keys.length; index += 500) await admin.del(...keys.slice(index, index + 500));
    admin.disconnect();
    await store.close().catch(() => {});
    await counter.close();
    await servers.stop();
  }
}

/** A client that notes the method of every request and whether it is a listing. */
function countingClient(config: S3ClientConfig) {
  const client = new S3Client(config);
  const seen: string[] = [];
  const handler = client.config.requestHandler as unknown as {
    handle(request: { method: string; query?: Record<string, unknown> }, options?: unknown): Promise<unknown>;
  };
  const handle = handler.handle.bind(handler);
  handler.handle = (request, options) => {
    const list = request.query !== undefined && 'list-type' in request.query;
    seen.push(list ? 'LIST' : request.method);
    return handle(request, options);
  };
  return { client, seen };
}

async function s3Part(context: SectionContext, lines: string[]): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const servers = await startServers(['s3'], { log: context.log });
  const env = servers.env;
  const bucket = env['S3_BUCKET']!;
  const prefix = `bench-identity-${process.pid}-${Date.now().toString(36)}`;
  const config = configOf(env, env['S3_ENDPOINT']!);
  const writer = countingClient(config);
  const cold = countingClient(config);
  const store = createS3Store({ client: writer.client, bucket, prefix, namespace: 'identity' });
  const fresh = createS3Store({ client: cold.client, bucket, prefix, namespace: 'identity' });
  try {
    context.log('[identity] S3: seeding');
    await seed(store);
    const tally = (seen: readonly string[]) => {
      const counts = new Map<string, number>();
      for (const method of seen) counts.set(method, (counts.get(method) ?? 0) + 1);
      return [...counts].map(([method, n]) => `${n} ${method}`).join(', ') || 'none';
    };
    writer.seen.length = 0;
    await store.records.list({ limit: 100 });
    const seenRequests = [...writer.seen];
    cold.seen.length = 0;
    await fresh.records.list({ limit: 100 });
    const coldRequests = [...cold.seen];
    cold.seen.length = 0;
    await fresh.records.list({ limit: 100 });
    const againRequests = [...cold.seen];
    const listOnly = (requests: readonly string[]) => requests.every((method) => method === 'LIST');
    lines.push(
      '### S3',
      '',
      '| a page of 100 records | requests | goal | result |',
      '|---|---|---|---|',
      `| in the process that wrote the files | ${tally(seenRequests)} | list requests only | ${listOnly(seenRequests) ? 'PASS' : 'ABOVE'} |`,
      `| in a new process, first page | ${tally(coldRequests)} | (the store's first call: its setup requests, then a HEAD per record not seen) | |`,
      `| in that process, the same page again | ${tally(againRequests)} | list requests only | ${listOnly(againRequests) ? 'PASS' : 'ABOVE'} |`,
      '',
    );
  } finally {
    await store.close().catch(() => {});
    await fresh.close().catch(() => {});
    writer.client.destroy();
    cold.client.destroy();
    await servers.stop();
  }
}

export function identitySection(): BenchSection {
  return {
    id: 'identity',
    summary:
      'Identity (records): round trips of records.get, locate, a page of 100, update and remove by id on PostgreSQL and Redis; a page of 100 against a raw keyset SELECT; S3 requests of a page of seen records',
    async run(context: SectionContext) {
      const lines = ['## Identity: records, listings and updates by id', ''];
      await postgresPart(context, lines);
      await redisPart(context, lines);
      await s3Part(context, lines);
      return lines.join('\n');
    },
  };
}
