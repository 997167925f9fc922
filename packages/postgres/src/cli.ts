/**
 * What the `memdir` command line loads for `postgres://` and `postgresql://` store URLs:
 * `memdir --store postgres://user@host/db view /memories` and `memdir migrate --store postgres://...`.
 *
 * The URL is pg's connection URL (`sslmode` and the other parameters pass through), plus one
 * parameter of memdir's own, not sent to the server: `schema` (default `memdir`).
 * @module
 */
import type { MemoryStoreOptions } from '@memdir/core';
import { positiveInteger } from '@memdir/core/driver';
import { createPostgresDriver, createPostgresStore, type PostgresMemoryStore } from './index.js';

const SCHEMES = new Set(['postgres:', 'postgresql:']);

/** The connection URL for pg and memdir's own `schema` parameter, taken out of it. */
function parseStoreUrl(url: string): { connectionString: string; schema: string | undefined } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Never echo the URL: it may hold a password.
    throw new TypeError('Invalid PostgreSQL URL: expected postgres://user@host:port/database');
  }
  if (!SCHEMES.has(parsed.protocol)) {
    throw new TypeError('Invalid PostgreSQL URL: expected the scheme postgres:// or postgresql://');
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/**
 * Opens a store on the database a `postgres://` or `postgresql://` URL names, with its own pool
 * (ended when the store closes). `?schema=name` picks the schema (default `memdir`).
 * @throws TypeError for a URL that is not a PostgreSQL URL; the message never shows the password.
 */
export function openStore(url: string, options: MemoryStoreOptions): PostgresMemoryStore {
  const { connectionString, schema } = parseStoreUrl(url);
  return createPostgresStore({ ...options, connectionString, schema });
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * The schema to set up, when the URL has no `?schema=`.
   * @default 'memdir'
   */
  schema?: string | undefined;
  /**
   * How long the setup may take: an upgrade counts the totals of every namespace from the files,
   * which takes a while on a large table (changes wait meanwhile).
   * @default 300000 (5 minutes)
   */
  timeoutMs?: number | undefined;
}

/** Default of {@link MigrateOptions.timeoutMs}. */
export const DEFAULT_MIGRATE_TIMEOUT_MS = 300_000;

/**
 * Creates memdir's schema, tables and functions in the database (what the store does by itself
 * before its first command), for a deploy step: `memdir migrate --store postgres://...`. Safe to
 * run while other processes use or set up the same database.
 * @returns a line saying what was set up, without credentials.
 */
export async function migrate(url: string, options: MigrateOptions = {}): Promise<string> {
  const parsed = parseStoreUrl(url);
  const schema = parsed.schema ?? options.schema ?? 'memdir';
  const timeoutMs = positiveInteger('postgres', 'timeoutMs', options.timeoutMs, DEFAULT_MIGRATE_TIMEOUT_MS);
  const driver = createPostgresDriver({ connectionString: parsed.connectionString, schema });
  try {
    const deadline = Date.now() + timeoutMs;
    await driver.setup({ deadline });
    // The records of rows an older layout wrote, in batches (each its own transaction): a migration
    // stopped part way goes on where it was.
    for (;;) {
      const { done } = await driver.fillRecords({ deadline, batch: 1000 });
      if (done) break;
    }
  } finally {
    await driver.close();
  }
  return `memdir tables are set up in schema ${schema}`;
}
