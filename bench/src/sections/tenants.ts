// The tenants section (issue 19), measured in one run: `usage` round trips on Redis and PostgreSQL
// for a small and a large namespace (counted on the wire), `dropNamespace` of 10,000 files of 1 KiB
// on every store that has admin operations (seconds, and the peak RSS of a process doing only the
// drop), and 1,000 tenant handles on one client or pool, one view each (round trips).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import type { MemoryAdmin, MemoryCommand, MemoryStore } from '@memdir/core';
import { createFsAdmin, createFsStore } from '@memdir/fs';
import { createPostgresAdmin, createPostgresStore } from '@memdir/postgres';
import { createRedisAdmin, createRedisStore } from '@memdir/redis';
import { createS3Driver, createS3Store } from '@memdir/s3';
import { startRoundTripCounter, startServers } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteKeys } from '../redis-keys.js';
import { s3Clear } from './history-storage.js';
import { configOf } from './s3.js';
import type { BenchSection, SectionContext } from './section.js';
import {
  postgresTenantTurns,
  redisTenantTurns,
  TENANT_HANDLES,
  TENANT_TURNS_GOAL,
  tenantResult,
} from './tenant-handles.js';
import type { DropInput, DropOutput } from './tenants-drop-worker.js';

const WORKER = fileURLToPath(new URL('./tenants-drop-worker.js', import.meta.url));

/** Files of the namespace dropped (issue 19: 10,000; `--quick` fewer, said in the table). */
const DROP_FILES = { full: 10_000, quick: 2_000 };
/** Files of the large namespace whose usage is counted. */
const LARGE_FILES = { full: 10_000, quick: 2_000 };
const SMALL_FILES = 10;

/** `count` files of 1 KiB in folders of 100. */
function files(count: number): MemoryCommand[] {
  const content = randomBytes(768).toString('base64');
  return Array.from({ length: count }, (_, index) => ({
    command: 'create' as const,
    path: `/memories/d${String(Math.floor(index / 100)).padStart(3, '0')}/f${index % 100}.md`,
    file_text: content,
  }));
}

/** Runs `commands` on `store`, `width` at a time. */
async function runAll(store: MemoryStore, commands: readonly MemoryCommand[], width: number): Promise<void> {
  for (let start = 0; start < commands.length; start += width) {
    await Promise.all(commands.slice(start, start + width).map((command) => store.execute(command)));
  }
}

/** Drops in a worker process; resolves to what it printed. */
function dropInWorker(input: DropInput): Promise<DropOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, JSON.stringify(input)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').at(-1)!) as DropOutput);
      else reject(new Error(`the drop worker (${input.kind}) exited ${code}: ${err.slice(0, 2000)}`));
    });
  });
}

interface DropRow {
  store: string;
  files: number;
  output?: DropOutput;
  left?: { files: number; versions: number };
  note?: string;
}

export function tenantsSection(): BenchSection {
  return {
    id: 'tenants',
    summary:
      'namespaces: usage round trips (small and large) on Redis and PostgreSQL, dropNamespace of 10,000 files per store (seconds, peak RSS), 1,000 tenant handles',
    async run(context: SectionContext) {
      const mode = context.quick ? 'quick' : 'full';
      const dropFiles = DROP_FILES[mode];
      const largeFiles = LARGE_FILES[mode];
      const servers = await startServers(['redis', 'postgres', 's3'], {
        log: (line) => context.log(`[tenants] ${line}`),
      });
      const env = servers.env;
      const closing: Array<() => Promise<unknown>> = [];
      const stores: MemoryStore[] = [];
      const admins: MemoryAdmin[] = [];
      const drops: DropRow[] = [];
      try {
        // --- Redis -------------------------------------------------------------------------------
        const redisUrl = env['REDIS_URL']!;
        const keyPrefix = `memdir-bench-tenants-${process.pid}:`;
        const redis = new Redis(redisUrl);
        redis.on('error', () => {});
        closing.push(async () => {
          await deleteKeys(redis, keyPrefix);
          redis.disconnect();
        });
        const redisCounter = await startRoundTripCounter(redisUrl);
        closing.push(() => redisCounter.close());
        const redisStore = (namespace: string) => {
          const store = createRedisStore({ url: redisUrl, keyPrefix, namespace });
          stores.push(store);
          return store;
        };
        context.log(
          `[tenants] redis: namespaces of ${SMALL_FILES} and ${largeFiles.toLocaleString('en-US')} files`,
        );
        await runAll(redisStore('small'), files(SMALL_FILES), 500);
        await runAll(redisStore('large'), files(largeFiles), 500);
        const redisAdmin = createRedisAdmin({ url: redisCounter.url, keyPrefix });
        admins.push(redisAdmin);
        const usageTurns = async (admin: MemoryAdmin, counter: typeof redisCounter, namespace: string) => {
          await admin.usage(namespace); // warm-up: the connection, and the script loaded
          counter.resetStats();
          const usage = await admin.usage(namespace);
          return { turns: counter.stats().turns, files: usage.files };
        };
        const usage: Array<{ store: string; namespace: string; files: number; turns: number }> = [];
        for (const namespace of ['small', 'large']) {
          usage.push({
            store: 'Redis',
            namespace,
            ...(await usageTurns(redisAdmin, redisCounter, namespace)),
          });
        }
        context.log(`[tenants] redis: ${TENANT_HANDLES.toLocaleString('en-US')} tenant handles`);
        const redisHandles = await redisTenantTurns(redisCounter, keyPrefix);
        context.log(`[tenants] redis: dropping ${dropFiles.toLocaleString('en-US')} files`);
        await runAll(redisStore('drop'), files(dropFiles), 500);
        drops.push({
          store: 'Redis',
          files: dropFiles,
          output: await dropInWorker({ kind: 'redis', url: redisUrl, keyPrefix, namespace: 'drop' }),
        });

        // --- PostgreSQL --------------------------------------------------------------------------
        const databaseUrl = env['DATABASE_URL']!;
        const schema = `memdir_bench_tenants_${process.pid}`;
        const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
        pool.on('error', () => {});
        closing.push(async () => {
          await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
          await pool.end();
        });
        const pgCounter = await startRoundTripCounter(databaseUrl);
        closing.push(() => pgCounter.close());
        const pgStore = (namespace: string) => {
          const store = createPostgresStore({ pool, schema, namespace });
          stores.push(store);
          return store;
        };
        await pgStore('setup').setup();
        context.log(
          `[tenants] postgres: namespaces of ${SMALL_FILES} and ${largeFiles.toLocaleString('en-US')} files`,
        );
        await runAll(pgStore('small'), files(SMALL_FILES), 16);
        await runAll(pgStore('large'), files(largeFiles), 16);
        const countedPool = new pg.Pool({ connectionString: pgCounter.url, max: 1 });
        countedPool.on('error', () => {});
        closing.push(() => countedPool.end());
        const pgAdmin = createPostgresAdmin({ pool: countedPool, schema });
        admins.push(pgAdmin);
        for (const namespace of ['small', 'large']) {
          usage.push({
            store: 'PostgreSQL',
            namespace,
            ...(await usageTurns(pgAdmin, pgCounter, namespace)),
          });
        }
        context.log(`[tenants] postgres: ${TENANT_HANDLES.toLocaleString('en-US')} tenant handles`);
        const pgHandles = await postgresTenantTurns(pgCounter, schema);
        context.log(`[tenants] postgres: dropping ${dropFiles.toLocaleString('en-US')} files`);
        await runAll(pgStore('drop'), files(dropFiles), 16);
        drops.push({
          store: 'PostgreSQL',
          files: dropFiles,
          output: await dropInWorker({ kind: 'postgres', url: databaseUrl, schema, namespace: 'drop' }),
        });

        // --- fs ----------------------------------------------------------------------------------
        const root = path.join(context.workDir, 'tenants-fs');
        context.log(`[tenants] fs: dropping ${dropFiles.toLocaleString('en-US')} files`);
        const fsStore = createFsStore({ root, namespace: 'drop' });
        stores.push(fsStore);
        await runAll(fsStore, files(dropFiles), 16);
        drops.push({
          store: 'fs',
          files: dropFiles,
          output: await dropInWorker({ kind: 'fs', root, namespace: 'drop' }),
        });

        // --- S3, where its driver has admin operations -------------------------------------------
        process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
        const clientConfig = configOf(env, env['S3_ENDPOINT']!);
        const client = new S3Client(clientConfig);
        const bucket = env['S3_BUCKET']!;
        const prefix = `bench-tenants-${process.pid}-${Date.now().toString(36)}`;
        closing.push(async () => {
          await s3Clear(client, bucket, `${prefix}/`);
          client.destroy();
        });
        const s3Driver = createS3Driver({ client, bucket, prefix });
        if (s3Driver.capabilities.admin === true) {
          // Creating new paths is one lease at a time per namespace on S3: fewer files (said below).
          const s3Files = Math.min(dropFiles, context.quick ? 200 : 1_000);
          context.log(`[tenants] s3: dropping ${s3Files.toLocaleString('en-US')} files`);
          const s3Store = createS3Store({ client, bucket, prefix, namespace: 'drop' });
          stores.push(s3Store);
          await runAll(s3Store, files(s3Files), 2);
          drops.push({
            store: 'S3',
            files: s3Files,
            output: await dropInWorker({ kind: 's3', clientConfig, bucket, prefix, namespace: 'drop' }),
          });
        } else {
          drops.push({
            store: 'S3',
            files: 0,
            note: 'not measured: @memdir/s3 does not declare `capabilities.admin` yet',
          });
        }
        await s3Driver.close();

        // What each drop left: nothing, by the backend's own counters.
        const leftOf: Record<string, () => Promise<{ files: number; versions: number }>> = {
          Redis: () => redisAdmin.usage('drop'),
          PostgreSQL: () => pgAdmin.usage('drop'),
          fs: async () => {
            const admin = createFsAdmin({ root });
            try {
              return await admin.usage('drop');
            } finally {
              await admin.close();
            }
          },
        };
        for (const row of drops) {
          const left = leftOf[row.store];
          if (row.output && left) row.left = await left();
        }

        const lines = [
          '## Tenants (issue 19)',
          '',
          '### `usage` round trips',
          '',
          `Turns on the wire through a counting proxy, after one warm-up call; a namespace of ${SMALL_FILES} files and one of ${largeFiles.toLocaleString('en-US')}${context.quick ? ' (--quick: the full run uses 10,000)' : ''}, 1 KiB each. Goal: 1, whatever the size.`,
          '',
          '| store | namespace | files | round trips | goal | result |',
          '|---|---|---:|---:|---:|---|',
          ...usage.map(
            (row) =>
              `| ${row.store} | ${row.namespace} | ${row.files.toLocaleString('en-US')} | ${row.turns} | 1 | ${row.turns <= 1 ? 'PASS' : 'ABOVE'} |`,
          ),
          '',
          '### `dropNamespace`',
          '',
          `A namespace of ${dropFiles.toLocaleString('en-US')} files of 1 KiB${context.quick ? ' (--quick; the full run drops 10,000)' : ''}, with their versions (history on, the default), dropped through core's admin in a process of its own: the seconds of the drop, and the process's RSS before it and at its peak (\`process.resourceUsage().maxRSS\`). "Left" is the namespace's usage afterwards.`,
          '',
          '| store | files | items removed | seconds | RSS before (MB) | peak RSS (MB) | left (files, versions) |',
          '|---|---:|---:|---:|---:|---:|---|',
          ...drops.map((row) =>
            row.output
              ? `| ${row.store} | ${row.files.toLocaleString('en-US')} | ${row.output.removed.toLocaleString('en-US')} | ${row.output.seconds.toFixed(2)} | ${(row.output.rssBeforeKb / 1024).toFixed(0)} | ${(row.output.peakRssKb / 1024).toFixed(0)} | ${row.left ? `${row.left.files}, ${row.left.versions}` : ''} |`
              : `| ${row.store} | | | | | | ${row.note ?? ''} |`,
          ),
          ...(drops.some((row) => row.store === 'S3' && row.output)
            ? [
                '',
                'S3 drops fewer files: creating them is one lease at a time per namespace (`copy` into S3 has the same limit).',
              ]
            : []),
          '',
          '### Tenant handles',
          '',
          `${TENANT_HANDLES.toLocaleString('en-US')} stores, one per namespace, on one open client (Redis) or pool of one connection (PostgreSQL), one \`view\` each, round trips on the wire (the same measure as in the Redis and PostgreSQL sections).`,
          '',
          '| store | round trips | goal | result |',
          '|---|---:|---:|---|',
          `| Redis | ${redisHandles.toLocaleString('en-US')} | <= ${TENANT_TURNS_GOAL.toLocaleString('en-US')} | ${tenantResult(redisHandles)} |`,
          `| PostgreSQL | ${pgHandles.toLocaleString('en-US')} | <= ${TENANT_TURNS_GOAL.toLocaleString('en-US')} | ${tenantResult(pgHandles)} |`,
        ];
        return lines.join('\n');
      } finally {
        for (const admin of admins) await admin.close().catch(() => {});
        for (const store of stores) await store.close().catch(() => {});
        for (const close of closing.reverse()) await close().catch(() => {});
        await servers.stop();
      }
    },
  };
}
