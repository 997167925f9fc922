// @memdir/memory-stores: any memory stores API (Anthropic's hosted stores, or a memdir server's
// `/v1/memory_stores`) as a memdir store. This file has the factories and the public exports; the
// driver and what each primitive costs are in driver.ts, the requests in api.ts, the meaning of
// the API's errors in errors.ts, the options in options.ts, the store URL in url.ts; `memdir ...
// --store memstore+https://` loads cli.ts.
import Anthropic from '@anthropic-ai/sdk';
import type { MemdirStore, MemoryStoreOptions } from '@memdir/core';
import { createOwningStore, optionError, splitStoreOptions } from '@memdir/core/driver';
import { MemoriesApi } from './api.js';
import { MemoryStoresDriver } from './driver.js';
import {
  checkOptions,
  DEFAULT_MAX_MEMORY_BYTES,
  FALLBACK_KEY_VARIABLE,
  KEY_VARIABLE,
  keyFromEnvironment,
  type MemoryStoresDriverOptions,
} from './options.js';

export { MemoryStoresDriver } from './driver.js';
export {
  DEFAULT_MAX_MEMORY_BYTES,
  FALLBACK_KEY_VARIABLE,
  KEY_VARIABLE,
  type MemoryStoresDriverOptions,
} from './options.js';
export { parseStoreUrl, STORE_URL_SCHEMES, type StoreUrlParts } from './url.js';

/**
 * The memdir driver over one store of a memory stores API, for `createMemoryStore(driver, options)`
 * from `@memdir/core` (or use {@link createMemoryStoresStore}).
 *
 * @throws TypeError for invalid options, or when no key is given and none is in the environment.
 */
export function createMemoryStoresDriver(options: MemoryStoresDriverOptions): MemoryStoresDriver {
  checkOptions(options);
  let client = options.client;
  if (client === undefined) {
    const apiKey = options.apiKey ?? keyFromEnvironment();
    if (apiKey === undefined) {
      throw optionError(
        'memory-stores',
        'apiKey',
        `no key: set ${KEY_VARIABLE} (or ${FALLBACK_KEY_VARIABLE}) in the environment, or pass apiKey`,
      );
    }
    client = new Anthropic({
      apiKey,
      baseURL: options.baseUrl ?? 'https://api.anthropic.com',
      maxRetries: 0,
      // The SDK's own logging is off: nothing of a request (its headers) reaches a log from here.
      logLevel: 'off',
    });
  }
  const api = new MemoriesApi(client, options.storeId, options.headers);
  return new MemoryStoresDriver(api, options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES);
}

/** Options of {@link createMemoryStoresStore}: the store of the API, plus the store options of SPEC section 3. */
export interface MemoryStoresStoreOptions
  extends MemoryStoresDriverOptions,
    Omit<MemoryStoreOptions, 'namespace'> {}

/**
 * A memory store on one store of a memory stores API: each command is one or a few requests (see
 * the README's table). The key comes from `apiKey`, else `MEMDIR_MEMORY_STORES_KEY`, else
 * `ANTHROPIC_API_KEY`, and is never shown in a message. `maxFileBytes` defaults to the API's
 * limit per memory (`maxMemoryBytes`, 102,400 bytes).
 *
 * @example
 * const store = createMemoryStoresStore({ storeId: 'memstore_01...' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' });
 * await store.close();
 *
 * @throws TypeError for invalid options, a `namespace` (one store has none), or no key.
 */
export function createMemoryStoresStore(options: MemoryStoresStoreOptions): MemdirStore {
  if ((options as MemoryStoreOptions).namespace !== undefined) {
    throw optionError(
      'memory-stores',
      'namespace',
      'a memory stores API store has no namespaces: open the other store by its own id',
    );
  }
  const { store, driver } = splitStoreOptions(options);
  const created = createMemoryStoresDriver(driver as MemoryStoresDriverOptions);
  return createOwningStore(created, {
    ...store,
    maxFileBytes: store.maxFileBytes ?? created.capabilities.maxFileBytes,
  });
}
