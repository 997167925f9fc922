// Page cursors: opaque to clients, bound to the query that made them. A cursor is base64url JSON of
// the listing's name, its filters and the position the store gave (a keyset position, never an
// offset); one sent with another listing or other filters is a 400.
import { createHash } from 'node:crypto';
import { badRequest } from './errors.js';

/** Fingerprints made lately, by the query they bind: a page checks its cursor and makes the next one. */
const fingerprints = new Map<string, string>();
const MAX_FINGERPRINTS = 256;

function fingerprint(listing: string, filters: unknown): string {
  const query = JSON.stringify([listing, filters]);
  let made = fingerprints.get(query);
  if (made === undefined) {
    made = createHash('sha256').update(query).digest('base64url').slice(0, 16);
    if (fingerprints.size >= MAX_FINGERPRINTS) fingerprints.clear();
    // A query's filters are the client's (a path prefix up to its limit): only short ones are kept.
    if (query.length <= 1024) fingerprints.set(query, made);
  }
  return made;
}

/** The cursor of the position `inner` of `listing` under `filters`. */
export function encodeCursor(listing: string, filters: unknown, inner: string): string {
  return Buffer.from(JSON.stringify([fingerprint(listing, filters), inner]), 'utf8').toString('base64url');
}

/** The position a cursor holds, checked against the query it came with. */
export function decodeCursor(
  listing: string,
  filters: unknown,
  cursor: string | undefined,
): string | undefined {
  if (cursor === undefined) return undefined;
  const bad = () =>
    badRequest('page must be the next_page of a previous page of the same listing, with the same filters');
  if (cursor.length === 0 || cursor.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 2 ||
    parts[0] !== fingerprint(listing, filters) ||
    typeof parts[1] !== 'string' ||
    parts[1] === ''
  ) {
    throw bad();
  }
  return parts[1];
}
