import type { MemdirStore, MemoryStoreOptions } from '@memdir/core';
import { createOwningStore, splitStoreOptions } from '@memdir/core/driver';
import { createRedisDriver, type RedisDriverOptions } from './driver.js';

export type { RedisClient } from './connection.js';
export { DEFAULT_REDIS_URL } from './connection.js';
export {
  createRedisDriver,
  DEFAULT_MAX_SUBTREE_ENTRIES,
  type RedisDriver,
  type RedisDriverOptions,
  RedisMemoryDriver,
} from './driver.js';
export { DEFAULT_KEY_PREFIX } from './layout.js';

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
