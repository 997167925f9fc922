// The options of the PostgreSQL driver (and so of the store and the admin made from it), their
// defaults, and their checks. The factories that use them are in index.ts.
import type { MemdirLogger } from '@memdir/core';
import { optionError, positiveInteger } from '@memdir/core/driver';
import pg from 'pg';

/** Default of {@link PostgresDriverOptions.schema}. */
export const DEFAULT_SCHEMA = 'memdir';
/** Default of {@link PostgresDriverOptions.maxConnections}. */
export const DEFAULT_MAX_CONNECTIONS = 10;
/** Default of {@link PostgresDriverOptions.connectionTimeoutMs}. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

/** Where the store keeps its files, and how it reaches PostgreSQL. */
export interface PostgresDriverOptions {
  /**
   * Your own `pg.Pool`. The store never ends it (`close()` leaves it open) and adds no listener to
   * it: give it an `'error'` listener yourself, as pg asks of every pool. Give either `pool` or
   * `connectionString`.
   */
  pool?: pg.Pool | undefined;
  /**
   * A `postgres://` URL; the store then creates its own pool (and ends it on `close()`).
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
   * A backstop for opening a connection in the pool the store creates (not used with `pool`): a
   * command waits for a connection only until its own deadline (`timeoutMs`), and a connect it gave
   * up on is abandoned after this long. Keep it above `timeoutMs`.
   * @default 10000
   */
  connectionTimeoutMs?: number | undefined;
  /**
   * Send the store's statements as named prepared statements, planned once per connection. Turn
   * it off behind PgBouncer in transaction mode older than 1.21 (or without `max_prepared_statements`).
   * @default true
   */
  preparedStatements?: boolean | undefined;
  /**
   * Where the driver reports connections lost and regained, retries, lock waits, setup and slow
   * calls (never a path or content). The store passes its own `logger` here.
   * @default `NODE_DEBUG=memdir` output
   */
  logger?: MemdirLogger | undefined;
}

/**
 * The rule for schema names: 1 to 63 bytes (PostgreSQL cuts longer names, so two long names would
 * share one schema), no NUL, and no `$`, which could end the dollar-quoted function bodies the name is
 * written into (they pick a tag the body does not contain as well; the rule keeps it simple to see).
 */
function checkSchema(schema: unknown): string {
  if (
    typeof schema !== 'string' ||
    schema.length === 0 ||
    Buffer.byteLength(schema) > 63 ||
    schema.includes('\0') ||
    schema.includes('$')
  ) {
    throw optionError(
      'postgres',
      'schema',
      `expected a name of 1 to 63 bytes without "$" or NUL, got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/** The options the driver keeps, checked, with the pool it uses. */
export interface CheckedOptions {
  readonly schema: string;
  readonly prepare: boolean;
  readonly pool: pg.Pool;
  /** True when the pool was made here (from `connectionString`): the driver ends it. */
  readonly owned: boolean;
}

/**
 * Checks the options of {@link PostgresDriverOptions}, and makes the pool of a `connectionString`.
 * @throws TypeError for an invalid option, or when neither `pool` nor `connectionString` is given.
 */
export function checkOptions(options: PostgresDriverOptions): CheckedOptions {
  const schema = checkSchema(options.schema ?? DEFAULT_SCHEMA);
  const prepare = options.preparedStatements ?? true;
  if (typeof prepare !== 'boolean') {
    throw optionError('postgres', 'preparedStatements', `expected a boolean, got ${String(prepare)}`);
  }
  if (options.pool !== undefined) {
    if (options.connectionString !== undefined) {
      throw optionError('postgres', 'pool', 'give either pool or connectionString, not both');
    }
    return { schema, prepare, pool: options.pool, owned: false };
  }
  if (typeof options.connectionString !== 'string' || options.connectionString === '') {
    throw optionError(
      'postgres',
      'connectionString',
      'give a pool (pg.Pool) or a connectionString (postgres://...)',
    );
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: positiveInteger('postgres', 'maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS),
    connectionTimeoutMillis: positiveInteger(
      'postgres',
      'connectionTimeoutMs',
      options.connectionTimeoutMs,
      DEFAULT_CONNECTION_TIMEOUT_MS,
    ),
    keepAlive: true,
    application_name: 'memdir',
  });
  // An idle connection that breaks (the server restarted, a proxy dropped it) is removed by the
  // pool; the next command opens another. Without a listener pg would crash the process.
  pool.on('error', () => {});
  return { schema, prepare, pool, owned: true };
}
