// Store ids: `memstore_` and 26 characters of Crockford's base32 in lowercase, 10 of time (ms) then
// 16 random, so ids sort in the order stores were made and each is a valid namespace name. The
// registry keeps a store under its key: the time digits inverted, then the random ones, so a
// listing of the registry in byte order is newest first.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const STORE_ID = /^memstore_[0-9abcdefghjkmnpqrstvwxyz]{26}$/;

/** A new store id. */
export function newStoreId(now = Date.now()): string {
  let time = '';
  let rest = now;
  for (let index = 0; index < 10; index++) {
    time = ALPHABET[rest % 32]! + time;
    rest = Math.floor(rest / 32);
  }
  const random = [...randomBytes(16)].map((byte) => ALPHABET[byte % 32]).join('');
  return `memstore_${time}${random}`;
}

/** Whether `value` is a store id (any other value names no store). */
export function isStoreId(value: string): boolean {
  return STORE_ID.test(value);
}

/** The registry key of store `id`: newest first in byte order. */
export function registryKey(id: string): string {
  const digits = id.slice('memstore_'.length);
  const inverted = [...digits.slice(0, 10)].map((digit) => ALPHABET[31 - ALPHABET.indexOf(digit)]).join('');
  return `${inverted}${digits.slice(10)}`;
}

/** The store id of a registry key. */
export function storeIdOf(key: string): string {
  const inverted = [...key.slice(0, 10)].map((digit) => ALPHABET[31 - ALPHABET.indexOf(digit)]).join('');
  return `memstore_${inverted}${key.slice(10)}`;
}

/** A request id, for the `request-id` header and error bodies. */
export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}
