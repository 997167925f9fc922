// Store URLs of this package: `memstore+https://HOST[:PORT][/BASE]/memstore_ID` names the API at
// `https://HOST[:PORT][/BASE]` and one store in it; `memstore+http://` is for a server on this
// machine only (the key would cross the network unencrypted). The key never belongs in the URL:
// it comes from the environment. Messages made here repeat nothing of the URL but its store id.
import { isStoreId, KEY_VARIABLE } from './options.js';

/** The URL schemes of this package. */
export const STORE_URL_SCHEMES = ['memstore+https', 'memstore+http'] as const;

/** What a store URL names. */
export interface StoreUrlParts {
  /** The API's base URL (`https://api.anthropic.com`, `http://127.0.0.1:8787/base`). */
  readonly baseUrl: string;
  /** The memory store's id. */
  readonly storeId: string;
}

const EXAMPLE = 'memstore+https://api.anthropic.com/memstore_...';

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * The API and store a store URL names.
 * @throws TypeError for a URL of another scheme, with a user or key in it, with a query or a
 *   fragment, without a store id as its last segment, or `memstore+http:` to another machine.
 */
export function parseStoreUrl(url: string): StoreUrlParts {
  const match = /^memstore\+(https?):\/\//i.exec(url);
  if (match === null)
    throw new TypeError(`A memory stores URL starts with memstore+https://, e.g. ${EXAMPLE}`);
  let parsed: URL;
  try {
    parsed = new URL(`${match[1]!.toLowerCase()}://${url.slice(match[0].length)}`);
  } catch {
    throw new TypeError(`The memory stores URL is not a valid URL; expected e.g. ${EXAMPLE}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError(
      `A memory stores URL must not hold a user or key: remove it, and put the key in the environment variable ${KEY_VARIABLE}`,
    );
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new TypeError(
      `A memory stores URL takes no query or fragment (the key goes in ${KEY_VARIABLE}); expected e.g. ${EXAMPLE}`,
    );
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
    throw new TypeError(
      'memstore+http:// is only for a server on this machine (127.0.0.1, localhost): the key would cross the network unencrypted; use memstore+https://',
    );
  }
  const segments = parsed.pathname.split('/');
  const storeId = segments.pop() ?? '';
  if (!isStoreId(storeId)) {
    throw new TypeError(
      `The memory stores URL must end with the store's id ("memstore_" and letters, digits, "_" or "-"), e.g. ${EXAMPLE}`,
    );
  }
  const base = segments.join('/');
  return { baseUrl: `${parsed.protocol}//${parsed.host}${base}`, storeId };
}
