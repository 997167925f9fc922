// `memdir sync` against issue 32's goals, on Redis, PostgreSQL and S3 in one run: the first download
// of 2,000 files of 1 KiB into an empty folder (files/s), then a pass that finds nothing changed,
// timed against what it cannot do without (a full listing of the store's records plus one `stat` of
// every local file) and with the content reads it made counted at the driver.

import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { S3Client } from '@aws-sdk/client-s3';
import { createMemoryAdmin, createMemoryStore, type MemdirStore, type MemoryDriver } from '@memdir/core';
import { createPostgresDriver } from '@memdir/postgres';
import { createRedisDriver } from '@memdir/redis';
import { createS3Driver } from '@memdir/s3';
import { syncOnce } from '@memdir/sync';
import { startServers } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteKeys } from '../redis-keys.js';
import { configOf } from './s3.js';
import type { BenchSection, SectionContext } from './section.js';

const FILES = 2_000;
const FILE_BYTES = 1024;
/** Files written to the store at once while seeding. */
const SEED_CONCURRENCY = 32;
/** The unchanged pass may take at most this many times a listing plus a stat of every file. */
const NOOP_RATIO_GOAL = 3;

/** Driver calls that give a file's content: the reads a pass that finds nothing changed must not make. */
class ContentReads {
  count = 0;
  readonly byMethod = new Map<string, number>();

  note(method: string): void {
    this.count++;
    this.byMethod.set(method, (this.byMethod.get(method) ?? 0) + 1);
  }

  reset(): void {
    this.count = 0;
    this.byMethod.clear();
  }

  toString(): string {
    return [...this.byMethod].map(([method, n]) => `${n} ${method}`).join(', ') || 'none';
  }
}

/** Whether a driver call with these arguments gives content. */
function readsContent(method: string, args: readonly unknown[]): boolean {
  if (method === 'read' || method === 'readVersion') return true;
  if (method === 'readRecord' || method === 'locate' || method === 'describe') {
    const options = args[1] as { content?: boolean } | undefined;
    return method === 'describe' || options?.content === true;
  }
  return false;
}

/**
 * `driver` with every call that gives content noted in `reads`. A proxy, not a copy of the contract:
 * every optional method the driver has stays, so the store takes the same paths as on the bare driver.
 */
function countingContent(driver: MemoryDriver, reads: ContentReads): MemoryDriver {
  return new Proxy(driver, {
    get(target, property) {
      // The driver itself as the receiver: its getters read private fields the proxy does not have.
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      if (property === 'namespace') {
        return (name: string) => countingContent(target.namespace(name), reads);
      }
      return (...args: unknown[]) => {
        if (readsContent(property, args)) reads.note(property);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Runs `tasks` at most `limit` at a time. */
async function inParallel(count: number, limit: number, task: (index: number) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** 2,000 files of 1 KiB in 20 folders, written through the store. */
async function seed(store: MemdirStore): Promise<void> {
  await inParallel(FILES, SEED_CONCURRENCY, (index) =>
    store.records.create(
      `/memories/d${String(index % 20).padStart(2, '0')}/f${String(index).padStart(4, '0')}.md`,
      `file ${index} `.padEnd(FILE_BYTES - 1, 'x').concat('\n'),
    ),
  );
}

/**
 * What this machine's disk allows, with no store: the same 2,000 files of 1 KiB written as a pass
 * writes its downloads (a temporary file and a rename, 16 at once off the event loop), then each
 * file and folder fsynced, 16 at once. A download can go no faster than this.
 */
async function diskAlone(context: SectionContext): Promise<number> {
  const dir = mkdtempSync(path.join(context.workDir, 'sync-disk-'));
  try {
    const started = performance.now();
    mkdirSync(path.join(dir, 'tmp'));
    const folders = Array.from({ length: 20 }, (_, index) =>
      path.join(dir, `d${String(index).padStart(2, '0')}`),
    );
    for (const folder of folders) mkdirSync(folder);
    const files = Array.from({ length: FILES }, (_, index) =>
      path.join(folders[index % 20]!, `f${String(index).padStart(4, '0')}.md`),
    );
    await inParallel(FILES, 16, async (index) => {
      const temp = path.join(dir, 'tmp', `t${index}`);
      await writeFile(temp, `file ${index} `.padEnd(FILE_BYTES - 1, 'x').concat('\n'), { flag: 'wx' });
      await rename(temp, files[index]!);
    });
    const durable = [...files, ...folders];
    await inParallel(durable.length, 16, async (index) => {
      const handle = await open(durable[index]!, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    return performance.now() - started;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The store's whole record listing, a page of 1,000 at a time, as a pass lists it. */
async function listAll(store: MemdirStore): Promise<number> {
  let cursor: string | undefined;
  let files = 0;
  do {
    const page = await store.records.list({ path: '/memories', limit: 1000, cursor });
    files += page.items.length;
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return files;
}

/** One `lstat` of every file beneath `dir` (the state folder left out, as a pass walks). */
function statAll(dir: string): number {
  let files = 0;
  const visit = (folder: string, top: boolean) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (top && entry.name === '.memdir-sync') continue;
      const full = path.join(folder, entry.name);
      const stat = lstatSync(full);
      if (stat.isDirectory()) visit(full, false);
      else files++;
    }
  };
  visit(dir, true);
  return files;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);

interface Measured {
  readonly backend: string;
  readonly goal: number;
  readonly downloadMs: number;
  /** The same files written by the disk alone, just after the download ({@link diskAlone}). */
  readonly diskMs: number;
  readonly received: number;
  readonly noopMs: number;
  readonly noopChanges: number;
  readonly listMs: number;
  readonly statMs: number;
  readonly noopReads: string;
  readonly noopReadCount: number;
}

/** Seeds `store`, downloads it into an empty folder, then times a pass that finds nothing changed. */
async function measure(
  context: SectionContext,
  backend: string,
  goal: number,
  driver: MemoryDriver,
): Promise<Measured> {
  const reads = new ContentReads();
  const store = createMemoryStore(countingContent(driver, reads), { namespace: 'sync' });
  const dir = mkdtempSync(path.join(context.workDir, `sync-${backend.toLowerCase()}-`));
  const options = { storeId: `bench:${backend}`, host: 'bench' };
  try {
    context.log(`[sync] ${backend}: seeding ${FILES} files of 1 KiB`);
    await seed(store);
    context.log(`[sync] ${backend}: first download`);
    let started = performance.now();
    const first = await syncOnce(dir, store, options);
    const downloadMs = performance.now() - started;
    context.log(`[sync] ${backend}: the same files written by the disk alone`);
    const diskMs = await diskAlone(context);
    context.log(`[sync] ${backend}: a pass that finds nothing changed`);
    // Warm both sides (page cache, connections, the S3 store's record cache) as a service's next pass is.
    await syncOnce(dir, store, options);
    reads.reset();
    started = performance.now();
    const noop = await syncOnce(dir, store, options);
    const noopMs = performance.now() - started;
    const noopReads = reads.toString();
    const noopReadCount = reads.count;
    started = performance.now();
    const listed = await listAll(store);
    const listMs = performance.now() - started;
    started = performance.now();
    const statted = statAll(dir);
    const statMs = performance.now() - started;
    if (listed !== FILES || statted !== FILES) {
      throw new Error(`${backend}: ${listed} records and ${statted} local files, expected ${FILES} of each`);
    }
    return {
      backend,
      goal,
      downloadMs,
      diskMs,
      received: first.received,
      noopMs,
      noopChanges: noop.sent + noop.received + noop.deleted + noop.conflicts,
      listMs,
      statMs,
      noopReads,
      noopReadCount,
    };
  } finally {
    await store.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onRedis(context: SectionContext): Promise<Measured> {
  const servers = await startServers(['redis'], { log: context.log });
  const url = servers.env['REDIS_URL']!;
  const keyPrefix = `memdir-bench-sync-${process.pid}:`;
  const driver = createRedisDriver({ url, keyPrefix });
  try {
    return await measure(context, 'Redis', 1000, driver);
  } finally {
    await driver.close().catch(() => {});
    const redis = new Redis(url);
    await deleteKeys(redis, keyPrefix).finally(() => redis.disconnect());
    await servers.stop();
  }
}

async function onPostgres(context: SectionContext): Promise<Measured> {
  const servers = await startServers(['postgres'], { log: context.log });
  const connectionString = servers.env['DATABASE_URL']!;
  const schema = `memdir_bench_sync_${process.pid}`;
  const driver = createPostgresDriver({ connectionString, schema });
  try {
    await driver.setup();
    return await measure(context, 'PostgreSQL', 1000, driver);
  } finally {
    await driver.close().catch(() => {});
    const admin = new pg.Pool({ connectionString, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
    await servers.stop();
  }
}

async function onS3(context: SectionContext): Promise<Measured> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const servers = await startServers(['s3'], { log: context.log });
  const env = servers.env;
  const prefix = `bench-sync-${process.pid}-${Date.now().toString(36)}`;
  const client = new S3Client(configOf(env, env['S3_ENDPOINT']!));
  const driver = createS3Driver({ client, bucket: env['S3_BUCKET']!, prefix });
  try {
    return await measure(context, 'S3', 150, driver);
  } finally {
    await createMemoryAdmin(driver)
      .dropNamespace('sync')
      .catch(() => {});
    await driver.close().catch(() => {});
    client.destroy();
    await servers.stop();
  }
}

function report(results: readonly Measured[]): string {
  const lines = [
    '## Sync: a first download and a pass that finds nothing changed',
    '',
    `\`syncOnce\` (\`@memdir/sync\`, what \`memdir sync --once\` runs) over ${FILES.toLocaleString('en')} files of 1 KiB in 20 folders, the store seeded through \`records.create\`. One run; each pass in this process, against the server on loopback.`,
    '',
    'First download into an empty folder (goal: at least 1,000 files/s from Redis and PostgreSQL, 150 from S3), and, just after it, the same files written by the disk alone as a pass writes them (a temporary file and a rename, 16 at once, then each file and folder fsynced): a download can go no faster than that:',
    '',
    '| store | files received | time (s) | files/s | goal | result | disk alone (s) | files/s the disk allows |',
    '|---|---:|---:|---:|---:|---|---:|---:|',
  ];
  for (const r of results) {
    const rate = r.received / (r.downloadMs / 1000);
    lines.push(
      `| ${r.backend} | ${r.received} | ${seconds(r.downloadMs)} | ${rate.toFixed(0)} | ${r.goal} | ${rate >= r.goal && r.received === FILES ? 'PASS' : 'BELOW'} | ${seconds(r.diskMs)} | ${(FILES / (r.diskMs / 1000)).toFixed(0)} |`,
    );
  }
  lines.push(
    '',
    `A pass that finds nothing changed (the third; the second warmed both sides), against the store's whole record listing (pages of 1,000, no content) plus one \`lstat\` of every local file, measured just after it (goal: at most ${NOOP_RATIO_GOAL}x, and no content read from the store):`,
    '',
    '| store | pass (ms) | changes | listing (ms) | stat of every file (ms) | ratio | content reads | result |',
    '|---|---:|---:|---:|---:|---:|---|---|',
  );
  for (const r of results) {
    const ratio = r.noopMs / (r.listMs + r.statMs);
    const met = ratio <= NOOP_RATIO_GOAL && r.noopReadCount === 0 && r.noopChanges === 0;
    lines.push(
      `| ${r.backend} | ${r.noopMs.toFixed(0)} | ${r.noopChanges} | ${r.listMs.toFixed(0)} | ${r.statMs.toFixed(0)} | ${ratio.toFixed(2)}x | ${r.noopReads} | ${met ? 'PASS' : 'ABOVE'} |`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

export function syncSection(): BenchSection {
  return {
    id: 'sync',
    summary:
      'Sync: first download of 2,000 files of 1 KiB (files/s) and a pass that finds nothing changed (against a listing plus a stat of every file, content reads counted) on Redis, PostgreSQL and S3',
    async run(context: SectionContext) {
      const results: Measured[] = [];
      const failures: string[] = [];
      for (const [backend, run] of [
        ['Redis', onRedis],
        ['PostgreSQL', onPostgres],
        ['S3', onS3],
      ] as const) {
        try {
          results.push(await run(context));
        } catch (error) {
          // One store failing still reports the others, and says why it failed.
          failures.push(`- ${backend}: failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      return [report(results), ...failures, ''].join('\n');
    },
  };
}
