// The options of the memory stores driver, their defaults and checks, and where the API key comes
// from when the application gives none (the environment, never a URL).
import type Anthropic from '@anthropic-ai/sdk';
import { optionError, positiveInteger } from '@memdir/core/driver';

/** The environment variable the key is read from first. */
export const KEY_VARIABLE = 'MEMDIR_MEMORY_STORES_KEY';
/** The environment variable read when {@link KEY_VARIABLE} is not set (the SDK's own). */
export const FALLBACK_KEY_VARIABLE = 'ANTHROPIC_API_KEY';

/**
 * The most bytes one memory may hold on Anthropic's hosted stores and, by default, on a memdir
 * server (API.md section 3: 102,400 bytes per memory).
 */
export const DEFAULT_MAX_MEMORY_BYTES = 102_400;

/** A memory store's id: `memstore_` and letters, digits, `_` or `-`. */
const STORE_ID = /^memstore_[A-Za-z0-9_-]{1,200}$/;

/** Options of `createMemoryStoresDriver` and `createMemoryStoresStore`. */
export interface MemoryStoresDriverOptions {
  /**
   * Where the API is: the origin (and base path, if any) in front of `/v1/memory_stores`, such as
   * `https://api.anthropic.com` or a memdir server's `http://127.0.0.1:8787`.
   * @default 'https://api.anthropic.com'
   */
  baseUrl?: string | undefined;
  /** The memory store's id (`memstore_...`): one driver reaches one store. */
  storeId: string;
  /**
   * The API key (sent as `X-Api-Key`). Without it (and without `client`) the key is read from
   * `MEMDIR_MEMORY_STORES_KEY`, else from `ANTHROPIC_API_KEY`. It is never shown in any message.
   * @default process.env.MEMDIR_MEMORY_STORES_KEY ?? process.env.ANTHROPIC_API_KEY
   */
  apiKey?: string | undefined;
  /**
   * Your own `Anthropic` client (its key and base URL are used as they are; `baseUrl` and `apiKey`
   * must then be absent). The driver never closes a client you passed.
   * @default a client the driver makes
   */
  client?: Anthropic | undefined;
  /**
   * The largest memory, in UTF-8 bytes, the store holds: the API's own limit. A store's
   * `maxFileBytes` above it is refused when the store is made.
   * @default 102400
   */
  maxMemoryBytes?: number | undefined;
  /**
   * Headers sent with every request, such as `memdir-session-id` (a memdir server then records
   * changes as that session's). Never put the key here.
   * @default {}
   */
  headers?: Readonly<Record<string, string>> | undefined;
}

const PACKAGE = 'memory-stores';

/** True when `id` has the shape of a memory store's id. */
export function isStoreId(id: unknown): id is string {
  return typeof id === 'string' && STORE_ID.test(id);
}

/** The key of the environment, or undefined when neither variable is set. */
export function keyFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env[KEY_VARIABLE] || env[FALLBACK_KEY_VARIABLE];
  return key === undefined || key === '' ? undefined : key;
}

/** The options, checked: a `TypeError` in the house style for anything wrong (the key never shown). */
export function checkOptions(options: MemoryStoresDriverOptions): void {
  if (options === null || typeof options !== 'object') {
    throw optionError(PACKAGE, 'options', 'expected an object with storeId');
  }
  if (!isStoreId(options.storeId)) {
    throw optionError(
      PACKAGE,
      'storeId',
      'expected a memory store id, "memstore_" followed by letters, digits, "_" or "-"',
    );
  }
  if (options.client !== undefined && (options.apiKey !== undefined || options.baseUrl !== undefined)) {
    throw optionError(PACKAGE, 'client', 'give either client, or baseUrl and apiKey, not both');
  }
  if (options.baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw optionError(PACKAGE, 'baseUrl', 'expected an http: or https: URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw optionError(PACKAGE, 'baseUrl', 'expected an http: or https: URL');
    }
    if (url.username !== '' || url.password !== '') {
      throw optionError(
        PACKAGE,
        'baseUrl',
        `holds a user or key: pass the key as apiKey or in ${KEY_VARIABLE}`,
      );
    }
  }
  if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === '')) {
    throw optionError(PACKAGE, 'apiKey', 'expected a non-empty string');
  }
  positiveInteger(PACKAGE, 'maxMemoryBytes', options.maxMemoryBytes, DEFAULT_MAX_MEMORY_BYTES);
}
