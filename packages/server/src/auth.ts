// Authentication: which token a request carries (`Authorization: Bearer` or `X-Api-Key`), and
// whose it is. Tokens are held only as SHA-256 hashes and compared in constant time, every stored
// hash each time, so neither the answer's time nor a leaked table tells anything about a token.
import { createHash, timingSafeEqual } from 'node:crypto';

/** What a token may do, as its entry in the tokens file says. */
export interface TokenGrant {
  /** Who holds it: shown in the access log and recorded as the author of every change. */
  readonly name: string;
  /** The namespace every call made with it works in (never chosen by the client). */
  readonly namespace: string;
  readonly mode: 'read-write' | 'read-only';
  /** The SHA-256 of the token, in lowercase hex. */
  readonly sha256: string;
  /** True for the memory stores API's administration tokens (`memdir token add NAME --stores`). */
  readonly stores?: boolean;
}

/** The tokens a server accepts, looked up by the hash of what a client presents. */
export class TokenTable {
  readonly grants: readonly TokenGrant[];
  readonly #hashes: Buffer[];

  constructor(grants: readonly TokenGrant[]) {
    this.grants = grants;
    this.#hashes = grants.map((grant) => Buffer.from(grant.sha256, 'hex'));
  }

  /** The grant of `token`, or `undefined`. Compares against every hash, whatever matches first. */
  find(token: string): TokenGrant | undefined {
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: TokenGrant | undefined;
    for (let index = 0; index < this.#hashes.length; index++) {
      const stored = this.#hashes[index]!;
      if (stored.length === presented.length && timingSafeEqual(presented, stored) && found === undefined) {
        found = this.grants[index];
      }
    }
    return found;
  }
}

const BEARER = /^Bearer +([!-~]{1,256}) *$/i;
const API_KEY = /^([!-~]{1,256})$/;

/**
 * The token a request presents: `Authorization: Bearer TOKEN` (any case, spaces around), else
 * `X-Api-Key: TOKEN`. `undefined` when neither is there or well formed.
 */
export function presentedToken(headers: Headers): string | undefined {
  const authorization = headers.get('authorization');
  if (authorization !== null) return BEARER.exec(authorization)?.[1];
  const apiKey = headers.get('x-api-key');
  return apiKey === null ? undefined : API_KEY.exec(apiKey.trim())?.[1];
}

/**
 * The `WWW-Authenticate` of a 401. A presented token that is wrong says `invalid_token` (RFC 6750
 * section 3.1), so an MCP client reports a bad token instead of starting an OAuth flow; both point
 * to the protected resource metadata (RFC 9728), which names no authorization server.
 */
export function challenge(presented: boolean, resourceMetadata: string): string {
  const error = presented
    ? ', error="invalid_token", error_description="The token is wrong, expired or revoked"'
    : '';
  return `Bearer realm="memdir"${error}, resource_metadata="${resourceMetadata}"`;
}
