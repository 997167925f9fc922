import type { MemdirStore, MemoryDriver, MemoryStoreOptions } from '@memdir/core';
import { createOwningStore, splitStoreOptions } from '@memdir/core/driver';
import pg from 'pg';
import { PostgresDriver as Driver } from './driver.js';

/** Default of {@link PostgresDriverOptions.schema}. */
export const DEFAULT_SCHEMA = 'memdir';
/** Default of {@link PostgresDriverOptions.maxConnections}. */
export const DEFAULT_MAX_CONNECTIONS = 10;
/** Default of {@link PostgresDriverOptions.connectionTimeoutMs}. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 2_000;
/** Default of {@link PostgresDriverOptions.queryTimeoutMs}. */
export const DEFAULT_QUERY_TIMEOUT_MS = 4_000;
/** Default of {@link PostgresDriverOptions.statementTimeoutMs}. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 3_500;

/** Where the store keeps its files, and how it reaches PostgreSQL. */
export interface PostgresDriverOptions {
  /**
   * Your own `pg.Pool`. The store never ends it (`close()` leaves it open) and adds no listener to
   * it: give it an `'error'` listener yourself, as pg asks of every pool. Give either `pool` or
   * `connectionString`.
   */
  pool?: pg.Pool | undefined;
  /**
   * A `postgres://` URL; the store then creates its own pool with the timeouts below (and ends it
   * on `close()`).
   */
  connectionString?: string | undefined;
  /**
   * The schema that holds memdir's tables and functions; created by the setup when missing. 1 to 63
   * bytes, without `$` or NUL (a `TypeError` otherwise).
   * @default 'memdir'
   */
  schema?: string | undefined;
  /**
   * The most connections of the pool the store creates (not used with `pool`).
   * @default 10
   */
  maxConnections?: number | undefined;
  /**
   * How long the pool the store creates waits for a connection (a new one, or a free one when all
   * are busy) before the command fails with `BACKEND` (not used with `pool`: set pg's
   * `connectionTimeoutMillis` on yours).
   * @default 2000
   */
  connectionTimeoutMs?: number | undefined;
  /**
   * How long the store waits for the answer to one query, on any pool (pg's `query_timeout`,
   * given with each query): past it the connection is dropped and the command fails with
   * `BACKEND`. Keep it below the store's `timeoutMs` (5 s).
   * @default 4000
   */
  queryTimeoutMs?: number | undefined;
  /**
   * The server-side `statement_timeout`, `lock_timeout` just below it, of the pool the store
   * creates (not used with `pool`).
   * @default 3500
   */
  statementTimeoutMs?: number | undefined;
  /**
   * Send the store's statements as named prepared statements, planned once per connection. Turn
   * it off behind PgBouncer in transaction mode older than 1.21 (or without `max_prepared_statements`).
   * @default true
   */
  preparedStatements?: boolean | undefined;
}

/** {@link PostgresDriverOptions} and the options of every memdir store. */
export interface PostgresStoreOptions extends PostgresDriverOptions, MemoryStoreOptions {}

/** The driver, with its setup. */
export interface PostgresDriver extends MemoryDriver {
  /**
   * Creates the schema, tables and functions when they are missing (one round trip when they are
   * there). Runs by itself before the first command; call it at deploy time to fail early. Safe to
   * run from many processes at once.
   */
  setup(): Promise<void>;
}

/** A memory store in PostgreSQL, with its setup. */
export interface PostgresMemoryStore extends MemdirStore {
  /** See {@link PostgresDriver.setup}. */
  setup(): Promise<void>;
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `Invalid @memdir/postgres option ${name}: expected a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * The rule for schema names: 1 to 63 bytes (PostgreSQL cuts longer names, so two long names would
 * share one schema), no NUL, and no `$`, which could end the dollar-quoted function bodies the name is
 * written into (they pick a tag the body does not contain as well; the rule keeps it simple to see).
 */
function checkSchema(schema: string): string {
  if (
    typeof schema !== 'string' ||
    schema.length === 0 ||
    Buffer.byteLength(schema) > 63 ||
    schema.includes('\0') ||
    schema.includes('$')
  ) {
    throw new TypeError(
      `Invalid @memdir/postgres option schema: expected a name of 1 to 63 bytes without "$" or NUL, got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/**
 * The memdir driver over PostgreSQL (for `createMemoryStore` of `@memdir/core`, or the conformance
 * suite). Opens no connection until its first call.
 * @throws TypeError for an invalid option, or when neither `pool` nor `connectionString` is given.
 */
export function createPostgresDriver(options: PostgresDriverOptions): PostgresDriver {
  const schema = checkSchema(options.schema ?? DEFAULT_SCHEMA);
  const queryTimeoutMs = positive(options.queryTimeoutMs, 'queryTimeoutMs', DEFAULT_QUERY_TIMEOUT_MS);
  const prepare = options.preparedStatements ?? true;
  if (options.pool !== undefined) {
    if (options.connectionString !== undefined) {
      throw new TypeError('@memdir/postgres: give either pool or connectionString, not both');
    }
    return Driver.open({ pool: options.pool, ownsPool: false, queryTimeoutMs, prepare }, schema);
  }
  if (typeof options.connectionString !== 'string' || options.connectionString === '') {
    throw new TypeError('@memdir/postgres: give a pool (pg.Pool) or a connectionString (postgres://...)');
  }
  const statementTimeout = positive(
    options.statementTimeoutMs,
    'statementTimeoutMs',
    DEFAULT_STATEMENT_TIMEOUT_MS,
  );
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: positive(options.maxConnections, 'maxConnections', DEFAULT_MAX_CONNECTIONS),
    connectionTimeoutMillis: positive(
      options.connectionTimeoutMs,
      'connectionTimeoutMs',
      DEFAULT_CONNECTION_TIMEOUT_MS,
    ),
    query_timeout: queryTimeoutMs,
    statement_timeout: statementTimeout,
    lock_timeout: Math.max(1, statementTimeout - 500),
    idle_in_transaction_session_timeout: 5_000,
    keepAlive: true,
    application_name: 'memdir',
  });
  // An idle connection that breaks (the server restarted, a proxy dropped it) is removed by the
  // pool; the next command opens another. Without a listener pg would crash the process.
  pool.on('error', () => {});
  return Driver.open({ pool, ownsPool: true, queryTimeoutMs, prepare }, schema);
}

/**
 * A memory store in PostgreSQL: the memdir engine over {@link createPostgresDriver}. `close()`
 * ends the pool the store created, never yours.
 *
 * ```ts
 * const store = createPostgresStore({ pool, namespace: 'user-42' });
 * ```
 * @throws TypeError for an invalid option.
 */
export function createPostgresStore(options: PostgresStoreOptions): PostgresMemoryStore {
  const { store: storeOptions, driver: driverOptions } = splitStoreOptions(options);
  const driver = createPostgresDriver(driverOptions);
  const store = createOwningStore(driver, storeOptions);
  return Object.assign(store, { setup: () => driver.setup() });
}
