import { createHash } from 'node:crypto';
import type {
  DriverCallOptions,
  MemdirLogger,
  MemdirStore,
  MemoryAdmin,
  MemoryAdminOptions,
  MemoryDriver,
  MemoryStoreOptions,
} from '@memdir/core';
import {
  createOwningAdmin,
  createOwningStore,
  driverLog,
  optionError,
  positiveInteger,
  splitStoreOptions,
} from '@memdir/core/driver';
import pg from 'pg';
import { Backend } from './backend.js';
import { PostgresMemoryDriver } from './driver.js';

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

/** {@link PostgresDriverOptions} and the options of every memdir store. */
export interface PostgresStoreOptions extends PostgresDriverOptions, MemoryStoreOptions {}

/** The driver, with its setup. */
export interface PostgresDriver extends MemoryDriver {
  /**
   * Creates the schema, tables and functions when they are missing, or upgrades a schema of an
   * older layout in place (one round trip when all is there; none once a driver on the same pool
   * saw it). Runs by itself before the first command; call it at deploy time to fail early. Safe to
   * run from many processes at once.
   * @param options.deadline when to give up (`Date.now()` ms). @default 5 s from the call
   */
  setup(options?: Pick<DriverCallOptions, 'deadline'>): Promise<void>;
}

/** A memory store in PostgreSQL, with its setup. */
export interface PostgresMemoryStore extends MemdirStore {
  /** See {@link PostgresDriver.setup}. */
  setup(options?: Pick<DriverCallOptions, 'deadline'>): Promise<void>;
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

/** A stable, low-cardinality id of the database and schema for telemetry: no user, no password. */
function identityOf(pool: pg.Pool, schema: string): string {
  const config = (pool as { options?: pg.PoolConfig }).options ?? {};
  let where = `${config.host ?? ''}:${config.port ?? ''}/${config.database ?? ''}`;
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      where = `${url.hostname}:${url.port}${url.pathname}`;
    } catch {
      where = 'unparsed';
    }
  }
  return createHash('sha256').update(`${where}\u0000${schema}`).digest('hex').slice(0, 16);
}

/**
 * The memdir driver over PostgreSQL (for `createMemoryStore` of `@memdir/core`, or the conformance
 * suite). Opens no connection until its first call.
 * @throws TypeError for an invalid option, or when neither `pool` nor `connectionString` is given.
 */
export function createPostgresDriver(options: PostgresDriverOptions): PostgresDriver {
  const schema = checkSchema(options.schema ?? DEFAULT_SCHEMA);
  const prepare = options.preparedStatements ?? true;
  if (typeof prepare !== 'boolean') {
    throw optionError('postgres', 'preparedStatements', `expected a boolean, got ${String(prepare)}`);
  }
  const log = driverLog('postgres', options.logger);
  let pool: pg.Pool;
  if (options.pool !== undefined) {
    if (options.connectionString !== undefined) {
      throw optionError('postgres', 'pool', 'give either pool or connectionString, not both');
    }
    pool = options.pool;
  } else {
    if (typeof options.connectionString !== 'string' || options.connectionString === '') {
      throw optionError(
        'postgres',
        'connectionString',
        'give a pool (pg.Pool) or a connectionString (postgres://...)',
      );
    }
    pool = new pg.Pool({
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
  }
  const backend = new Backend(pool, options.pool === undefined, prepare, schema, log);
  return new PostgresMemoryDriver(backend, identityOf(pool, schema));
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
  return Object.assign(store, {
    setup: (setup?: Pick<DriverCallOptions, 'deadline'>) => driver.setup(setup),
  });
}

/** Options of {@link createPostgresAdmin}: where PostgreSQL is, plus the admin options (expiry, retention, batches). */
export interface PostgresAdminOptions extends PostgresDriverOptions, MemoryAdminOptions {}

/**
 * The admin of the memory stores in one schema (every namespace in it): list namespaces, read their
 * usage from the totals (one round trip), drop one in bounded batches, and sweep (expiry and
 * retention). It ends the pool it made from `connectionString`, never a `pool` you passed.
 *
 * ```ts
 * const admin = createPostgresAdmin({ pool, expire: { afterDays: 90 } });
 * console.log(await admin.usage('user-42'));
 * await admin.sweep();
 * await admin.close();
 * ```
 * @throws TypeError for an invalid option.
 */
export function createPostgresAdmin(options: PostgresAdminOptions): MemoryAdmin {
  const { expire, history, batch, timeoutMs, ...driver } = options;
  return createOwningAdmin(createPostgresDriver(driver), { expire, history, batch, timeoutMs });
}
