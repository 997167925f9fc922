/**
 * Claude's memory tool (`memory_20250818`) in PostgreSQL: every command one transaction and one
 * round trip (edits applied on the server), quotas judged in the same step, names taken literally,
 * content exact.
 *
 * ```ts
 * import pg from 'pg';
 * import { createPostgresStore } from '@memdir/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = createPostgresStore({ pool, namespace: 'user-42' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Likes tea.' });
 * ```
 *
 * This file holds the three factories and the public exports; driver.ts is the driver's entrance
 * and says where the rest is (options.ts the options, read.ts and write.ts the calls, history.ts
 * the versions, admin.ts the namespaces).
 * @module
 */
import type {
  DriverCallOptions,
  MemdirStore,
  MemoryAdmin,
  MemoryAdminOptions,
  MemoryStoreOptions,
} from '@memdir/core';
import { createOwningAdmin, createOwningStore, driverLog, splitStoreOptions } from '@memdir/core/driver';
import { Backend } from './backend.js';
import { type PostgresDriver, PostgresMemoryDriver } from './driver.js';
import { checkOptions, type PostgresDriverOptions } from './options.js';
import { identityOf } from './pool.js';

export type { PostgresDriver } from './driver.js';
export {
  DEFAULT_CONNECTION_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_SCHEMA,
  type PostgresDriverOptions,
} from './options.js';

/** {@link PostgresDriverOptions} and the options of every memdir store. */
export interface PostgresStoreOptions extends PostgresDriverOptions, MemoryStoreOptions {}

/** A memory store in PostgreSQL, with its setup. */
export interface PostgresMemoryStore extends MemdirStore {
  /** See {@link PostgresDriver.setup}. */
  setup(options?: Pick<DriverCallOptions, 'deadline'>): Promise<void>;
}

/**
 * The memdir driver over PostgreSQL (for `createMemoryStore` of `@memdir/core`, or the conformance
 * suite). Opens no connection until its first call.
 * @throws TypeError for an invalid option, or when neither `pool` nor `connectionString` is given.
 */
export function createPostgresDriver(options: PostgresDriverOptions): PostgresDriver {
  const { schema, prepare, pool, owned } = checkOptions(options);
  const backend = new Backend(pool, owned, prepare, schema, driverLog('postgres', options.logger));
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
