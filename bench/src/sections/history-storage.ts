// Bytes stored per version (issue 18), for a 1 KiB file on each store: the same file written the
// same number of times into a store with history on (nothing pruned) and one with history off,
// each in a space of its own; the difference of what the backend holds, divided by the versions.
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { MemoryStore } from '@memdir/core';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { keysOf } from '../redis-keys.js';

/** What one store holds with history on and off, and per version. */
export interface StorageRow {
  readonly store: string;
  /** How the bytes were counted. */
  readonly method: string;
  readonly versions: number;
  readonly on: number;
  readonly off: number;
  /** Another figure of the same store, when it has one (the row size of a version, bytes on disk). */
  readonly note?: string;
}

/** A 1 KiB file's content, different every time (and not compressible). */
function kibibyte(): string {
  return randomBytes(768).toString('base64');
}

/** Writes the 1 KiB file `writes` times (a create, then creates over it). */
export async function writeVersions(store: MemoryStore, writes: number): Promise<void> {
  for (let index = 0; index < writes; index++) {
    await store.create({ command: 'create', path: '/memories/kib.md', file_text: kibibyte() });
  }
}

/** The history option that keeps every one of `writes` versions. */
export function keepAll(writes: number) {
  return { keepVersions: writes + 10, keepDays: 30 };
}

/** Bytes per version of a row. */
export function perVersion(row: StorageRow): number {
  return (row.on - row.off) / row.versions;
}

/** Redis: the sum of `MEMORY USAGE key SAMPLES 0` over every key of `prefix`. */
export async function redisBytes(redis: Redis, prefix: string): Promise<number> {
  let total = 0;
  for await (const keys of keysOf(redis, prefix)) {
    for (const key of keys) total += Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
  }
  return total;
}

/** PostgreSQL: `pg_total_relation_size` (heap, indexes, TOAST) of every table of `schema`, after a VACUUM. */
export async function postgresBytes(pool: pg.Pool, schema: string): Promise<number> {
  const tables = await pool.query(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  for (const row of tables.rows) await pool.query(`VACUUM "${schema}"."${row.relname}"`);
  const result = await pool.query(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return Number(result.rows[0].bytes);
}

/** PostgreSQL: the mean `pg_column_size` of a row of `schema`'s versions table. */
export async function postgresVersionRow(pool: pg.Pool, schema: string): Promise<number> {
  const result = await pool.query(
    `SELECT avg(pg_column_size(v.*))::float AS bytes FROM "${schema}".versions v`,
  );
  return Number(result.rows[0].bytes);
}

/** A folder: the files' sizes, and the blocks they take on disk (`st_blocks` x 512). */
export async function folderBytes(root: string): Promise<{ apparent: number; onDisk: number }> {
  let apparent = 0;
  let onDisk = 0;
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    // A lock taken and released while the folder is walked (a store of another process) is no data.
    const info = await stat(path.join(entry.parentPath, entry.name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info === undefined) continue;
    onDisk += info.blocks * 512;
    if (entry.isFile()) apparent += info.size;
  }
  return { apparent, onDisk };
}

/** S3: the sum of the sizes of every object under `prefix`. */
export async function s3Bytes(client: S3Client, bucket: string, prefix: string): Promise<number> {
  let total = 0;
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) total += object.Size ?? 0;
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return total;
}

/** S3: removes every object under `prefix`. */
export async function s3Clear(client: S3Client, bucket: string, prefix: string): Promise<void> {
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
    if (keys.length === 0) return;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
  }
}
