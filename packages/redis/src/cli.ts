// `memdir ... --store redis://...`: the CLI loads this module for the redis: and rediss: schemes.
import { isMemoryToolError, type MemoryStore, type MemoryStoreOptions } from '@memdir/core';
import { createOwningStore, STANDALONE_DEADLINE_MS, storeUnavailable } from '@memdir/core/driver';
import { createRedisDriver } from './index.js';

/**
 * Opens a store on the Redis (or Redis Cluster) at `url`, checking the server first, so that a
 * wrong address or an unusable server is reported before any command. Messages never show the
 * password of the URL.
 *
 * @param url `redis://[user:password@]host[:port][/db]` or `rediss://...`; a Cluster node's URL
 *   opens the whole Cluster. A `keyPrefix` query parameter sets the key prefix.
 * @throws MemoryToolError `BACKEND` when the server cannot be reached or must not be used;
 *   TypeError for an invalid URL or option.
 */
export async function openStore(url: string, options: MemoryStoreOptions): Promise<MemoryStore> {
  let keyPrefix: string | undefined;
  let address = url;
  const query = url.indexOf('?');
  if (query !== -1) {
    const params = new URLSearchParams(url.slice(query + 1));
    keyPrefix = params.get('keyPrefix') ?? undefined;
    params.delete('keyPrefix');
    const rest = params.toString();
    address = url.slice(0, query) + (rest ? `?${rest}` : '');
  }
  const driver = createRedisDriver({ url: address, keyPrefix, logger: options.logger });
  const timeoutMs = options.timeoutMs ?? STANDALONE_DEADLINE_MS;
  try {
    await driver.ready({ deadline: Date.now() + timeoutMs });
  } catch (error) {
    await driver.close();
    // The deadline's own words, as every command's: ioredis's "Command timed out" says not how long.
    if (isMemoryToolError(error) && error.reason === 'timeout') {
      const seconds = timeoutMs / 1000;
      throw storeUnavailable(
        `it did not answer within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`,
        new Error(`Redis did not answer within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`),
        'timeout',
      );
    }
    throw error;
  }
  return createOwningStore(driver, options);
}
