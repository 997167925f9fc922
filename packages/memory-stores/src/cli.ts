// `memdir ... --store memstore+https://HOST/memstore_ID`: the CLI loads this module for the
// memstore+https: and memstore+http: schemes.
import { type MemoryStore, type MemoryStoreOptions, readOnlyStore } from '@memdir/core';
import { STANDALONE_DEADLINE_MS } from '@memdir/core/driver';
import type { MemoryStoresDriver } from './driver.js';
import { createMemoryStoresStore } from './index.js';
import { parseStoreUrl } from './url.js';

/**
 * Opens the store a `memstore+https://HOST[:PORT][/BASE]/memstore_ID` URL names, with the key of
 * the environment (`MEMDIR_MEMORY_STORES_KEY`, else `ANTHROPIC_API_KEY`). The store is read first,
 * so a wrong key, address or id is reported before any command; an archived store opens
 * read-only. No message shows the key.
 *
 * @throws TypeError for a malformed URL, a URL holding a key, a namespace, or no key;
 *   MemoryToolError `BACKEND` when the API refuses the key or the store, or cannot be reached.
 */
export async function openStore(url: string, options: MemoryStoreOptions): Promise<MemoryStore> {
  const { baseUrl, storeId } = parseStoreUrl(url);
  const { namespace, ...rest } = options;
  if (namespace !== undefined) {
    throw new TypeError(
      'A memory stores URL names one store, which has no namespaces: leave out --namespace, and name the other store by its own id',
    );
  }
  const store = createMemoryStoresStore({ ...rest, baseUrl, storeId });
  const driver = store.driver as MemoryStoresDriver;
  try {
    const deadline = Date.now() + (options.timeoutMs ?? STANDALONE_DEADLINE_MS);
    if (await driver.archived({ deadline })) {
      return readOnlyStore(store, 'the memory store is archived');
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
