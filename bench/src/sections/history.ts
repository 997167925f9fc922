// The history section (issue 18), measured in one run: on Redis and PostgreSQL, every change
// command with history off and on (round trips on the wire through the counting proxy, and the
// p50 latency ratio on/off, interleaved operation by operation), and `history` of one file and
// `restore` (round trips); on the filesystem, the mixed workload against Anthropic's
// BetaLocalFilesystemMemoryTool with history on and off; and bytes stored per version of a 1 KiB
// file on every store (S3 once its driver declares history).
import os from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { MemdirStore, MemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { createS3Store } from '@memdir/s3';
import { type RoundTripCounter, startRoundTripCounter, startServers } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { runBench } from '../bench.js';
import { compare } from '../interleave.js';
import { deleteKeys } from '../redis-keys.js';
import { formatRate, formatRatio } from '../stats.js';
import { mixedWorkload } from '../workloads.js';
import { fsTiming } from './fs-reference.js';
import { CHANGE_CASES } from './history-cases.js';
import {
  folderBytes,
  keepAll,
  perVersion,
  postgresBytes,
  postgresVersionRow,
  redisBytes,
  type StorageRow,
  s3Bytes,
  s3Clear,
  writeVersions,
} from './history-storage.js';
import { configOf } from './s3.js';
import type { BenchSection, SectionContext } from './section.js';

/** The latency goal with history on, against off (issue 18). */
const LATENCY_GOAL = 1.3;

/** A server store, opened on a namespace, with history on or off, through the counter or not. */
type Open = (namespace: string, history: boolean, counted: boolean) => MemdirStore;

interface CommandRow {
  label: string;
  turnsOff: number;
  turnsOn: number;
  p50Off: number;
  p50On: number;
}

interface BackendResult {
  rows: CommandRow[];
  historyTurns: number;
  restoreTurns: number;
}

/** Round trips of `once`, run after a warm-up run (the first call of a Redis script loads it). */
async function turnsOf(counter: RoundTripCounter, once: () => Promise<unknown>): Promise<number> {
  await once();
  counter.resetStats();
  await once();
  return counter.stats().turns;
}

async function measureBackend(name: string, open: Open, counter: RoundTripCounter, context: SectionContext) {
  const rounds = context.quick ? 5 : 15;
  const count = context.quick ? 40 : 200;
  const counted = { off: open('rt-off', false, true), on: open('rt-on', true, true) };
  const timed = { off: open('p50-off', false, false), on: open('p50-on', true, false) };
  const rows: CommandRow[] = [];
  for (const testCase of CHANGE_CASES) {
    context.log(
      `[history] ${name}: ${testCase.label}, round trips and ${rounds} rounds of ${count} interleaved`,
    );
    const turns = { off: 0, on: 0 };
    for (const side of ['off', 'on'] as const) {
      const store = counted[side];
      await testCase.setup(store);
      let n = 0;
      await testCase.before?.(store, 0, 2);
      turns[side] = await turnsOf(counter, () => testCase.run(store, n++));
    }
    const next = { off: 0, on: 0 };
    for (const side of ['off', 'on'] as const) await testCase.setup(timed[side]);
    const latency = await compare(
      {
        off: () => testCase.run(timed.off, next.off++),
        on: () => testCase.run(timed.on, next.on++),
      },
      rounds,
      count,
      async (side) => testCase.before?.(timed[side], next[side], count),
    );
    rows.push({
      label: testCase.label,
      turnsOff: turns.off,
      turnsOn: turns.on,
      p50Off: latency.off.p50,
      p50On: latency.on.p50,
    });
  }
  // `history` of one file and `restore`, on the store with history.
  const store = counted.on;
  const historyTurns = await turnsOf(counter, () => store.history({ path: '/memories/edit.md', limit: 20 }));
  const [version] = (await store.history({ path: '/memories/edit.md', limit: 1 })).versions;
  const restoreTurns = await turnsOf(counter, () => store.restore(version!.id));
  const result: BackendResult = { rows, historyTurns, restoreTurns };
  return result;
}

function backendTable(name: string, result: BackendResult, context: SectionContext): string[] {
  const micro = (value: number) => Math.round(value).toLocaleString('en-US');
  const rounds = context.quick ? 5 : 15;
  const count = context.quick ? 40 : 200;
  return [
    `### ${name}`,
    '',
    `Round trips counted on the wire by a loopback proxy (after one warm-up run of each); latency in microseconds, the median (p50) of ${(rounds * count).toLocaleString('en-US')} runs each with history off and on, interleaved one by one, each side on a namespace of its own. Goals: the same round trips with history on (1), p50 on/off <= ${LATENCY_GOAL}x.`,
    '',
    '| command | round trips, off | round trips, on | goal | p50 off (µs) | p50 on (µs) | ratio on/off | goal | result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...result.rows.map((row) => {
      const ratio = row.p50On / row.p50Off;
      const pass = row.turnsOn <= 1 && row.turnsOn <= row.turnsOff && ratio <= LATENCY_GOAL;
      return `| ${row.label} | ${row.turnsOff} | ${row.turnsOn} | 1 | ${micro(row.p50Off)} | ${micro(row.p50On)} | ${formatRatio(ratio)} | <= ${LATENCY_GOAL}x | ${pass ? 'PASS' : 'ABOVE'} |`;
    }),
    '',
    '| history call | round trips | goal | result |',
    '|---|---:|---:|---|',
    `| \`history({ path })\` of one file, 20 versions | ${result.historyTurns} | 1 | ${result.historyTurns <= 1 ? 'PASS' : 'ABOVE'} |`,
    `| \`restore(version)\` | ${result.restoreTurns} | 1 | ${result.restoreTurns <= 1 ? 'PASS' : 'ABOVE'} |`,
  ];
}

export function historySection(): BenchSection {
  return {
    id: 'history',
    summary:
      'history on and off: round trips and latency of every change on Redis and PostgreSQL, history and restore, the fs mixed loop against the reference, bytes per version on every store',
    async run(context: SectionContext) {
      const writes = context.quick ? 50 : 200;
      const lines = ['## History (issue 18)', ''];
      const storage: StorageRow[] = [];
      const servers = await startServers(['redis', 'postgres', 's3'], {
        log: (line) => context.log(`[history] ${line}`),
      });
      const env = servers.env;
      const closing: Array<() => Promise<unknown>> = [];
      const stores: MemoryStore[] = [];
      try {
        // --- Redis -------------------------------------------------------------------------------
        const redisUrl = env['REDIS_URL']!;
        const prefix = `memdir-bench-history-${process.pid}:`;
        const redis = new Redis(redisUrl);
        redis.on('error', () => {});
        closing.push(async () => {
          await deleteKeys(redis, prefix);
          redis.disconnect();
        });
        const redisCounter = await startRoundTripCounter(redisUrl);
        closing.push(() => redisCounter.close());
        const openRedis: Open = (namespace, history, counted) => {
          const store = createRedisStore({
            url: counted ? redisCounter.url : redisUrl,
            keyPrefix: prefix,
            namespace,
            ...(history ? {} : { history: false }),
          });
          stores.push(store);
          return store;
        };
        lines.push(
          ...backendTable('Redis', await measureBackend('redis', openRedis, redisCounter, context), context),
          '',
        );
        context.log(`[history] redis: bytes per version, ${writes} writes of a 1 KiB file`);
        const redisRow = { on: 0, off: 0 };
        for (const side of ['on', 'off'] as const) {
          const keyPrefix = `${prefix}bytes-${side}:`;
          const store = createRedisStore({
            url: redisUrl,
            keyPrefix,
            history: side === 'on' ? keepAll(writes) : false,
          });
          stores.push(store);
          await writeVersions(store, writes);
          redisRow[side] = await redisBytes(redis, keyPrefix);
        }
        storage.push({
          store: 'Redis',
          method: '`MEMORY USAGE` of every key of the store',
          versions: writes,
          ...redisRow,
        });

        // --- PostgreSQL --------------------------------------------------------------------------
        const databaseUrl = env['DATABASE_URL']!;
        const schema = `memdir_bench_history_${process.pid}`;
        const admin = new pg.Pool({ connectionString: databaseUrl, max: 2 });
        admin.on('error', () => {});
        closing.push(async () => {
          for (const name of [schema, `${schema}_on`, `${schema}_off`])
            await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => {});
          await admin.end();
        });
        const pgCounter = await startRoundTripCounter(databaseUrl);
        closing.push(() => pgCounter.close());
        const pools = {
          counted: new pg.Pool({ connectionString: pgCounter.url, max: 4 }),
          direct: new pg.Pool({ connectionString: databaseUrl, max: 4 }),
        };
        for (const pool of Object.values(pools)) {
          pool.on('error', () => {});
          closing.push(() => pool.end());
        }
        const openPostgres: Open = (namespace, history, counted) => {
          const store = createPostgresStore({
            pool: counted ? pools.counted : pools.direct,
            schema,
            namespace,
            ...(history ? {} : { history: false }),
          });
          stores.push(store);
          return store;
        };
        await (
          createPostgresStore({ pool: pools.direct, schema }) as ReturnType<typeof createPostgresStore>
        ).setup();
        lines.push(
          ...backendTable(
            'PostgreSQL',
            await measureBackend('postgres', openPostgres, pgCounter, context),
            context,
          ),
          '',
        );
        context.log(`[history] postgres: bytes per version, ${writes} writes of a 1 KiB file`);
        const pgRow = { on: 0, off: 0 };
        for (const side of ['on', 'off'] as const) {
          const store = createPostgresStore({
            pool: pools.direct,
            schema: `${schema}_${side}`,
            history: side === 'on' ? keepAll(writes) : false,
          });
          stores.push(store);
          await store.setup();
          pgRow[side] = await postgresBytes(admin, `${schema}_${side}`);
          const before = pgRow[side];
          await writeVersions(store, writes);
          pgRow[side] = (await postgresBytes(admin, `${schema}_${side}`)) - before;
        }
        const row = await postgresVersionRow(admin, `${schema}_on`);
        storage.push({
          store: 'PostgreSQL',
          method:
            '`pg_total_relation_size` of the schema\u2019s tables (after VACUUM), growth over the writes',
          versions: writes,
          ...pgRow,
          note: `mean \`pg_column_size\` of a versions row: ${Math.round(row).toLocaleString('en-US')} B`,
        });

        // --- fs ----------------------------------------------------------------------------------
        context.log('[history] fs: the mixed loop against the reference, history off and on');
        const fsRatios: Record<'off' | 'on', { memdir: number; reference: number; ratio: number }> = {
          off: { memdir: 0, reference: 0, ratio: 0 },
          on: { memdir: 0, reference: 0, ratio: 0 },
        };
        for (const side of ['off', 'on'] as const) {
          const result = await runBench({
            timing: fsTiming(context.quick, undefined),
            workloads: [mixedWorkload()],
            workDir: path.join(context.workDir, `history-fs-${side}`),
            createMemdirStore: (root) =>
              createFsStore({ root, ...(side === 'on' ? {} : { history: false }) }),
            log: (line) => context.log(line),
          });
          const [mixed] = result.results;
          fsRatios[side] = {
            memdir: mixed!.median.memdir,
            reference: mixed!.median.reference,
            ratio: mixed!.ratio,
          };
        }
        context.log(`[history] fs: bytes per version, ${writes} writes of a 1 KiB file`);
        const fsRow = { on: 0, off: 0 };
        let onDisk = { on: 0, off: 0 };
        for (const side of ['on', 'off'] as const) {
          const root = path.join(context.workDir, `history-bytes-${side}`);
          const store = createFsStore({ root, history: side === 'on' ? keepAll(writes) : false });
          await writeVersions(store, writes);
          // Closed first: nothing of the store's own (a lock) is left to count.
          await store.close();
          const bytes = await folderBytes(root);
          fsRow[side] = bytes.apparent;
          onDisk = { ...onDisk, [side]: bytes.onDisk };
        }
        storage.push({
          store: 'fs',
          method: 'sizes of the files under the root (`.memdir` included)',
          versions: writes,
          ...fsRow,
          note: `on disk (\`st_blocks\`): ${Math.round((onDisk.on - onDisk.off) / writes).toLocaleString('en-US')} B per version`,
        });

        // --- S3, once its driver keeps a history -------------------------------------------------
        process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
        const client = new S3Client(configOf(env, env['S3_ENDPOINT']!));
        const bucket = env['S3_BUCKET']!;
        const s3Prefix = `bench-history-${process.pid}-${Date.now().toString(36)}`;
        closing.push(async () => {
          await s3Clear(client, bucket, `${s3Prefix}/`);
          client.destroy();
        });
        const probe = createS3Store({ client, bucket, prefix: `${s3Prefix}/probe` });
        stores.push(probe);
        let s3Note: string;
        if (probe.capabilities?.history === true) {
          context.log(`[history] s3: bytes per version, ${writes} writes of a 1 KiB file`);
          const s3Row = { on: 0, off: 0 };
          for (const side of ['on', 'off'] as const) {
            const store = createS3Store({
              client,
              bucket,
              prefix: `${s3Prefix}/${side}`,
              history: side === 'on' ? keepAll(writes) : false,
            });
            stores.push(store);
            await writeVersions(store, writes);
            s3Row[side] = await s3Bytes(client, bucket, `${s3Prefix}/${side}/`);
          }
          storage.push({
            store: 'S3',
            method: 'sizes of every object under the prefix',
            versions: writes,
            ...s3Row,
          });
          s3Note = '';
        } else {
          s3Note =
            'S3: not measured, because @memdir/s3 does not declare `capabilities.history` yet; this row appears once it does.';
        }

        lines.push(
          '### fs: the mixed loop against the reference',
          '',
          `${os.availableParallelism()} CPUs. The fs section's mixed workload (create, view file, view small dir, str_replace, insert, rename, delete), alternating timed rounds against Anthropic's \`BetaLocalFilesystemMemoryTool\`, median ops/s; once with history off, once on.`,
          '',
          '| history | memdir ops/s | reference ops/s | ratio memdir/reference | goal | result |',
          '|---|---:|---:|---:|---:|---|',
          ...(['off', 'on'] as const).map((side) => {
            const { memdir, reference, ratio } = fsRatios[side];
            const goal = side === 'on' ? 0.8 : 1.0;
            return `| ${side} | ${formatRate(memdir)} | ${formatRate(reference)} | ${formatRatio(ratio)} | >= ${formatRatio(goal)} | ${ratio >= goal ? 'PASS' : 'BELOW'} |`;
          }),
          '',
          '### Bytes stored per version',
          '',
          `A 1 KiB file (1,024 characters, not compressible) written ${writes} times (a create, then creates over it) into a store with history on, keeping every version, and into one with history off; (on - off) / ${writes}.`,
          '',
          '| store | counted as | history on (B) | history off (B) | bytes per version | also |',
          '|---|---|---:|---:|---:|---|',
          ...storage.map(
            (entry) =>
              `| ${entry.store} | ${entry.method} | ${entry.on.toLocaleString('en-US')} | ${entry.off.toLocaleString('en-US')} | ${Math.round(perVersion(entry)).toLocaleString('en-US')} | ${entry.note ?? ''} |`,
          ),
          ...(s3Note === '' ? [] : ['', s3Note]),
        );
        return lines.join('\n');
      } finally {
        for (const store of stores) await store.close().catch(() => {});
        for (const close of closing.reverse()) await close().catch(() => {});
        await servers.stop();
      }
    },
  };
}
