// @memdir/redis: the memory store on Redis or a Redis Cluster. This file has the factories (the
// driver, the store and the admin made from it) and the package's public exports. The driver's
// methods are in driver.ts, which says where the rest is; the options and their defaults are in
// options.ts; `memdir ... --store redis://` loads cli.ts.
import type { MemdirStore, MemoryAdmin, MemoryAdminOptions, MemoryStoreOptions } from '@memdir/core';
import { createOwningAdmin, createOwningStore, splitStoreOptions } from '@memdir/core/driver';
import { openBackend } from './backend.js';
import { type RedisDriver, RedisMemoryDriver } from './driver.js';
import type { RedisDriverOptions } from './options.js';

export type { RedisClient } from './connection.js';
export { DEFAULT_REDIS_URL } from './connection.js';
export { type RedisDriver, RedisMemoryDriver } from './driver.js';
export { DEFAULT_KEY_PREFIX } from './layout.js';
export { DEFAULT_MAX_SUBTREE_ENTRIES, type RedisDriverOptions } from './options.js';

/**
 * The memdir driver over Redis or a Redis Cluster, for `createMemoryStore(driver, options)` from
 * `@memdir/core` (or use {@link createRedisStore}). Every call is one Lua script on the keys of one
 * namespace, which share one hash tag (so one Cluster slot).
 *
 * @throws TypeError for invalid options (both `client` and `url`, a `keyPrefix` that breaks the rule).
 */
export function createRedisDriver(options: RedisDriverOptions = {}): RedisDriver {
  return new RedisMemoryDriver(openBackend(options), '/', true);
}

/** Options of {@link createRedisStore}: where Redis is, plus the store options of SPEC section 3. */
export interface RedisStoreOptions extends RedisDriverOptions, MemoryStoreOptions {}

/**
 * A memory store on Redis or a Redis Cluster: each command is one atomic Lua script, one round
 * trip (`str_replace` and `insert` included). The store closes the client it made from `url`,
 * never a `client` you passed.
 *
 * @example
 * const store = createRedisStore({ url: 'redis://127.0.0.1:6379', namespace: 'user-42' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' });
 * await store.close();
 *
 * @throws TypeError for invalid options.
 */
export function createRedisStore(options: RedisStoreOptions = {}): MemdirStore {
  const { store, driver } = splitStoreOptions(options);
  return createOwningStore(createRedisDriver(driver), store);
}

/** Options of {@link createRedisAdmin}: where Redis is, plus the admin options (expiry, retention, batches). */
export interface RedisAdminOptions extends RedisDriverOptions, MemoryAdminOptions {}

/**
 * The admin of the memory stores on a Redis server or Cluster (every namespace under the key
 * prefix): list namespaces, read their usage from the counters (one script), drop one in bounded
 * batches, and sweep (expiry and retention). It closes the client it made from `url`, never a
 * `client` you passed.
 *
 * @example
 * const admin = createRedisAdmin({ url: 'redis://127.0.0.1:6379', expire: { afterDays: 90 } });
 * console.log(await admin.usage('user-42'));
 * await admin.sweep();
 * await admin.close();
 *
 * @throws TypeError for invalid options.
 */
export function createRedisAdmin(options: RedisAdminOptions = {}): MemoryAdmin {
  const { expire, history, batch, timeoutMs, ...driver } = options;
  return createOwningAdmin(createRedisDriver(driver), { expire, history, batch, timeoutMs });
}
