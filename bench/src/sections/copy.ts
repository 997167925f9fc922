// `memdir copy`, `export` and `import` as a user runs them: the built CLI in a child process, under
// /usr/bin/time for its peak RSS, moving 10,000 files of 1 KiB from a folder into S3 (radosgw),
// PostgreSQL and Redis, against issue 22's goals. The time is the whole command's, from start to
// exit: opening the stores, the scan, the copy and the verification (every file read back).

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ChangeRecord, DriverPath, MemoryDriver } from '@memdir/core';
import { createPostgresDriver } from '@memdir/postgres';
import { createRedisDriver } from '@memdir/redis';
import { createS3Driver } from '@memdir/s3';
import { startServers } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteKeys } from '../redis-keys.js';
import type { BenchSection, SectionContext } from './section.js';

const BIN = path.join(
  path.dirname(createRequire(import.meta.url).resolve('memdir/package.json')),
  'dist',
  'bin.js',
);
const FILE_BYTES = 1024;
/** The peak RSS goal of every run (issue 22). */
const MAX_RSS_MB = 200;

interface Run {
  readonly what: string;
  readonly files: number;
  readonly seconds: number;
  readonly peakMb: number;
  /** The files/s goal, if the issue sets one. */
  readonly goal: number | undefined;
}

/** Runs the CLI under /usr/bin/time; resolves to its time and peak RSS, or rejects with its stderr. */
function timedCli(
  args: string[],
  env: Record<string, string>,
  stdio: { input?: string; output?: string } = {},
) {
  return new Promise<{ seconds: number; peakMb: number; stderr: string }>((resolve, reject) => {
    const command = [BIN, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
    const redirect = `${stdio.input ? ` < '${stdio.input}'` : ''}${stdio.output ? ` > '${stdio.output}'` : ''}`;
    const started = performance.now();
    const child = spawn(
      'sh',
      ['-c', `exec /usr/bin/time -f 'PEAK_RSS_KB=%M' '${process.execPath}' ${command}${redirect}`],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const peak = /PEAK_RSS_KB=(\d+)/.exec(stderr);
      if (code !== 0 || !peak) reject(new Error(`memdir ${args.join(' ')} failed (${code}):\n${stderr}`));
      else resolve({ seconds, peakMb: Number(peak[1]) / 1024, stderr });
    });
  });
}

/** `count` files of 1 KiB in 100 folders, written straight to disk in the layout of `@memdir/fs`. */
async function seedFolder(root: string, count: number): Promise<void> {
  const folders = 100;
  for (let folder = 0; folder < folders; folder++) {
    await mkdir(path.join(root, 'memories', `d${String(folder).padStart(2, '0')}`), { recursive: true });
  }
  const writes: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const content = `file ${index} `.padEnd(FILE_BYTES - 1, 'x').concat('\n');
    const file = path.join(root, 'memories', `d${String(index % folders).padStart(2, '0')}`, `f${index}.md`);
    writes.push(writeFile(file, content, { mode: 0o600 }));
    if (writes.length >= 256) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

async function clearS3(client: S3Client, bucket: string, prefix: string): Promise<void> {
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const keys = (page.Contents ?? []).map((item) => ({ Key: item.Key! }));
    if (keys.length === 0) return;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }
}

async function clearRedis(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    await deleteKeys(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * What the store's driver does alone, in this process and at the same moment: `count` new files of
 * 1 KiB written (`{ absent }`, and recorded in its history when it keeps one, as copy writes them)
 * and checked as a copy checks them: read back, `concurrency` at once, or, for a driver whose
 * listing carries MD5s (`capabilities.listsContentMd5`), listed once. The most a copy into that
 * store could do here, with no CLI, no source and no hashing.
 */
async function driverAlone(driver: MemoryDriver, count: number, concurrency: number): Promise<number> {
  // A store's defaults (core's DEFAULT_KEEP_VERSIONS and DEFAULT_KEEP_DAYS).
  const record: ChangeRecord | undefined = driver.capabilities.history
    ? { actor: null, command: 'import', toolUseId: null, keepVersions: 20, keepDays: 30 }
    : undefined;
  const content = 'x'.repeat(FILE_BYTES - 1).concat('\n');
  // 100 folders, filled one after another: the order a copy writes in (its source's, sorted by path),
  // so that new files side by side share their folder's listing, as in a copy into S3.
  const perFolder = Math.ceil(count / 100);
  const path = (index: number) =>
    `d${String(Math.floor(index / perFolder)).padStart(2, '0')}/f${index}.md` as DriverPath;
  const started = performance.now();
  for (const phase of ['write', 'read'] as const) {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const index = next++;
          if (phase === 'write')
            await driver.write(path(index), content, {
              op: randomUUID(),
              expect: { absent: true },
              ...(record ? { record } : {}),
            });
          else await driver.read(path(index), {});
        }
      }),
    );
    if (driver.capabilities.listsContentMd5) {
      let listed = 0;
      for await (const entry of driver.list('' as DriverPath)) if (entry.contentMd5 !== undefined) listed++;
      if (listed !== count) throw new Error(`the listing gave ${listed} MD5s for ${count} files`);
      break;
    }
  }
  return (performance.now() - started) / 1000;
}

/**
 * The raw client alone, in this process: for each of `count` files, the requests a copy into S3
 * makes per file with history on (a PUT of its version and a PUT of the file, both `If-None-Match:
 * *`), `concurrency` files at once, then the listing that verifies them (1,000 keys a request), on
 * a client set up as the store's own. No lease, no folder listings: what the server and the SDK
 * allow here.
 */
async function rawS3(
  client: S3Client,
  bucket: string,
  prefix: string,
  count: number,
  concurrency: number,
): Promise<number> {
  const content = 'x'.repeat(FILE_BYTES - 1).concat('\n');
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const key = `${prefix}/files/f${next++}.md`;
        for (const at of [`${prefix}/.history/${key}`, key]) {
          await client.send(
            new PutObjectCommand({ Bucket: bucket, Key: at, Body: content, IfNoneMatch: '*' }),
          );
        }
      }
    }),
  );
  let listed = 0;
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/files/`, ContinuationToken: token }),
    );
    listed += page.Contents?.length ?? 0;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  if (listed !== count) throw new Error(`the raw listing found ${listed} of ${count} files`);
  return (performance.now() - started) / 1000;
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')
    .concat(` on ${os.availableParallelism()} CPUs`);
}

function table(runs: readonly Run[]): string {
  const lines = [
    '| run | files | seconds | files/s | goal | peak RSS | goal | result |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const run of runs) {
    const rate = run.files / run.seconds;
    // A driver alone runs in this process: no RSS of its own, no goal, only a ceiling.
    const measuredRss = !Number.isNaN(run.peakMb);
    const pass = (run.goal === undefined || rate >= run.goal) && (!measuredRss || run.peakMb < MAX_RSS_MB);
    lines.push(
      `| ${run.what} | ${run.files.toLocaleString('en-US')} | ${run.seconds.toFixed(1)} | ${Math.round(rate).toLocaleString('en-US')} | ${run.goal === undefined ? '' : `>= ${run.goal.toLocaleString('en-US')}`} | ${measuredRss ? `${run.peakMb.toFixed(0)} MB` : ''} | ${measuredRss ? `< ${MAX_RSS_MB} MB` : ''} | ${measuredRss ? (pass ? 'PASS' : 'BELOW') : 'ceiling'} |`,
    );
  }
  return lines.join('\n');
}

export function copySection(): BenchSection {
  return {
    id: 'copy',
    summary:
      'memdir copy, export and import of 10,000 files of 1 KiB: fs to S3, PostgreSQL and Redis, files/s and peak RSS',
    async run(context: SectionContext) {
      const { log, quick } = context;
      const count = quick ? 2_000 : 10_000;
      const servers = await startServers(['redis', 'postgres', 's3'], {
        log: (line) => log(`[copy] ${line}`),
      });
      const env: Record<string, string> = {
        ...servers.env,
        AWS_ACCESS_KEY_ID: servers.env['S3_ACCESS_KEY_ID'] ?? servers.env['AWS_ACCESS_KEY_ID'] ?? '',
        AWS_SECRET_ACCESS_KEY:
          servers.env['S3_SECRET_ACCESS_KEY'] ?? servers.env['AWS_SECRET_ACCESS_KEY'] ?? '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      };
      const run = `${process.pid}${Date.now().toString(36)}`;
      const source = path.join(context.workDir, 'copy-source');
      const s3 = new S3Client({
        endpoint: env['S3_ENDPOINT']!,
        region: env['S3_REGION'] ?? 'us-east-1',
        forcePathStyle: true,
        credentials: {
          accessKeyId: env['AWS_ACCESS_KEY_ID']!,
          secretAccessKey: env['AWS_SECRET_ACCESS_KEY']!,
        },
      });
      const bucket = env['S3_BUCKET']!;
      const schema = `memdir_bench_copy_${run}`;
      const keyPrefix = `bench-copy-${run}:`;
      const s3Prefix = `bench-copy-${run}`;
      const pgUrl = new URL(env['DATABASE_URL']!);
      pgUrl.searchParams.set('schema', schema);
      const s3Url = `s3://${bucket}/${s3Prefix}?endpoint=${encodeURIComponent(env['S3_ENDPOINT']!)}&region=${env['S3_REGION'] ?? 'us-east-1'}&forcePathStyle=true`;
      const targets = [
        { what: 'copy: fs to S3 (radosgw)', url: s3Url, goal: 150 },
        { what: 'copy: fs to PostgreSQL', url: pgUrl.toString(), goal: 1_500 },
        {
          what: 'copy: fs to Redis',
          url: `${env['REDIS_URL']}?keyPrefix=${encodeURIComponent(keyPrefix)}`,
          goal: 1_500,
        },
      ];
      const runs: Run[] = [];
      try {
        log(`[copy] seeding ${count.toLocaleString('en-US')} files of 1 KiB`);
        await seedFolder(source, count);
        for (const target of targets) {
          log(`[copy] ${target.what}`);
          const result = await timedCli(['copy', '--from', `file:${source}`, '--to', target.url], env);
          if (!result.stderr.includes('memdir: verified:'))
            throw new Error(`${target.what} was not verified:\n${result.stderr}`);
          runs.push({
            what: target.what,
            files: count,
            seconds: result.seconds,
            peakMb: result.peakMb,
            goal: target.goal,
          });
        }
        const archive = path.join(context.workDir, 'copy.tar');
        log('[copy] export: Redis to a tar archive');
        const exported = await timedCli(['export', '--store', targets[2]!.url], env, { output: archive });
        runs.push({
          what: 'export: Redis to a tar archive',
          files: count,
          seconds: exported.seconds,
          peakMb: exported.peakMb,
          goal: undefined,
        });
        log('[copy] import: the archive into PostgreSQL (another namespace)');
        const imported = await timedCli(
          ['import', '--store', targets[1]!.url, '--namespace', 'imported'],
          env,
          { input: archive },
        );
        if (!imported.stderr.includes('memdir: verified:'))
          throw new Error(`the import was not verified:\n${imported.stderr}`);
        runs.push({
          what: 'import: the archive into PostgreSQL',
          files: count,
          seconds: imported.seconds,
          peakMb: imported.peakMb,
          goal: undefined,
        });
        // The ceilings, in this process: the raw S3 client making a copy's requests, then each
        // driver alone, at the CLI's default concurrency into its store (S3 on a fifth of the
        // files: the rate is what counts).
        log('[copy] S3 raw client: the requests of a copy, 16 files at once');
        const rawFiles = Math.max(200, count / 5);
        const rawSeconds = await rawS3(
          new S3Client({
            endpoint: env['S3_ENDPOINT']!,
            region: env['S3_REGION'] ?? 'us-east-1',
            forcePathStyle: true,
            requestChecksumCalculation: 'WHEN_REQUIRED',
            responseChecksumValidation: 'WHEN_REQUIRED',
            maxAttempts: 1,
            credentials: {
              accessKeyId: env['AWS_ACCESS_KEY_ID']!,
              secretAccessKey: env['AWS_SECRET_ACCESS_KEY']!,
            },
          }),
          bucket,
          `${s3Prefix}/raw`,
          rawFiles,
          16,
        );
        runs.push({
          what: 'S3 raw client: PUT version + PUT file, 16 at once, then LIST',
          files: rawFiles,
          seconds: rawSeconds,
          peakMb: Number.NaN,
          goal: undefined,
        });
        const credentials = {
          accessKeyId: env['AWS_ACCESS_KEY_ID']!,
          secretAccessKey: env['AWS_SECRET_ACCESS_KEY']!,
        };
        const drivers: Array<{ what: string; open: () => MemoryDriver; files: number; concurrency: number }> =
          [
            {
              what: 'S3 driver alone: write, 16 at once, then list back',
              open: () =>
                createS3Driver({
                  bucket,
                  prefix: `${s3Prefix}/alone`,
                  endpoint: env['S3_ENDPOINT']!,
                  region: env['S3_REGION'] ?? 'us-east-1',
                  forcePathStyle: true,
                  credentials,
                }),
              files: Math.max(200, count / 5),
              concurrency: 16,
            },
            {
              what: 'PostgreSQL driver alone: write + read back, 128 at once',
              open: () =>
                createPostgresDriver({ connectionString: env['DATABASE_URL']!, schema: `${schema}_alone` }),
              files: count,
              concurrency: 128,
            },
            {
              what: 'Redis driver alone: write + read back, 128 at once',
              open: () => createRedisDriver({ url: env['REDIS_URL']!, keyPrefix: `${keyPrefix}alone:` }),
              files: count,
              concurrency: 128,
            },
          ];
        for (const alone of drivers) {
          log(`[copy] ${alone.what}`);
          const driver = alone.open();
          try {
            const seconds = await driverAlone(driver, alone.files, alone.concurrency);
            runs.push({ what: alone.what, files: alone.files, seconds, peakMb: Number.NaN, goal: undefined });
          } finally {
            await driver.close();
          }
        }
      } finally {
        await rm(source, { recursive: true, force: true });
        await clearS3(s3, bucket, `${s3Prefix}/`).catch((error: unknown) =>
          log(`[copy] S3 cleanup failed: ${String(error)}`),
        );
        s3.destroy();
        await clearRedis(env['REDIS_URL']!, keyPrefix).catch((error: unknown) =>
          log(`[copy] Redis cleanup failed: ${String(error)}`),
        );
        const admin = new pg.Pool({ connectionString: env['DATABASE_URL']!, max: 1 });
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}_alone" CASCADE`).catch(() => {});
        await admin.end();
        await servers.stop();
      }
      return [
        '## memdir copy, export and import',
        '',
        `${count.toLocaleString('en-US')} files of 1 KiB in 100 folders, copied from a folder (\`file:\`) into each server store by the built CLI (\`memdir copy --from file:... --to URL\`, its default \`--concurrency\`), in a process of its own: the time is the whole command's (opening the stores, the scan, the copy, and the verification: every file read back, or into S3 one listing of their MD5s); the peak RSS is /usr/bin/time's. Then the Redis copy is exported to a tar archive and the archive imported into PostgreSQL. Last, the ceilings, in the bench's process: the raw S3 client making the requests a copy makes per file (the version's PUT, the file's PUT) and the listing that verifies them, with no lease and no folder listings; then each store's driver alone, at the CLI's default concurrency into it, writing new files of 1 KiB with their versions and reading them back (S3: listing them): the most a copy could do on this machine at this moment. The load of the machine (\`uptime\`) at the end: ${loadAverage()}.`,
        '',
        table(runs),
      ].join('\n');
    },
  };
}
