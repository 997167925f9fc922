// Page cursors: opaque to clients, bound to the query that made them. A cursor is base64url JSON of
// the listing's name, its filters and the position the store gave (a keyset position, never an
// offset); one sent with another listing or other filters is a 400.
import { createHash } from 'node:crypto';
import { badRequest } from './errors.js';

function fingerprint(listing: string, filters: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([listing, filters]))
    .digest('base64url')
    .slice(0, 16);
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
