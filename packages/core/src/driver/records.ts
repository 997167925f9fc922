// What drivers with records share (capabilities.records, docs/identity.md): the order of a listing
// of records (the UTF-8 bytes of each item's key), its keyset cursor and depth rule worked out over
// records held in JavaScript, the checks of a query, and the shape of a file id.

import type { DriverPath } from '../path.js';
import type { DriverFolderMarker, DriverRecord, DriverRecordQuery } from './contract.js';

/** The most items a page of records may hold. */
export const MAX_RECORD_PAGE = 1000;

const FILE_ID = /^mem_[A-Za-z0-9_-]{16,128}$/;

/** True when `id` has the shape of a file id (`mem_` and 16 to 128 characters from `A-Z a-z 0-9 _ -`). */
export function isFileId(id: unknown): id is string {
  return typeof id === 'string' && FILE_ID.test(id);
}

/** Compares two strings by their UTF-8 bytes (JavaScript's `<` compares UTF-16 units, which differs above U+FFFF). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** What the paging helpers need of a record: that it is a file, and its path. */
export interface RecordLike {
  readonly kind: 'file';
  readonly path: DriverPath;
}

/** An item's key in a listing of records: a file's path, a folder marker's path and `/`. */
export function recordKey(item: RecordLike | DriverFolderMarker): string {
  return item.kind === 'folder' ? `${item.path}/` : item.path;
}

/** True when an item of key `key` comes after cursor `after` (and, for a folder's key, not beneath it). */
export function isAfterKey(key: string, after: string | null | undefined): boolean {
  if (after === null || after === undefined) return true;
  if (after.endsWith('/') && key.startsWith(after)) return false;
  return compareUtf8(key, after) > 0;
}

/**
 * Checks a query as the contract bounds it, giving its parts with their defaults.
 * @throws TypeError when the caller broke the contract (a limit out of range, a negative depth).
 */
export function recordQueryParts(query: DriverRecordQuery): {
  under: DriverPath;
  depth: number;
  after: string | null;
  limit: number;
} {
  const { limit } = query;
  const depth = query.depth ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RECORD_PAGE) {
    throw new TypeError(
      `listRecords: limit must be an integer from 1 to ${MAX_RECORD_PAGE}, got ${String(limit)}`,
    );
  }
  if (!Number.isSafeInteger(depth) || depth < 0) {
    throw new TypeError(`listRecords: depth must be a non-negative integer, got ${String(depth)}`);
  }
  return { under: (query.under ?? '') as DriverPath, depth, after: query.after ?? null, limit };
}

/**
 * The item a file beneath `under` is in a listing of depth `depth`: the file itself, or the marker
 * of its folder `depth` levels beneath `under` when it lies deeper.
 */
export function itemAtDepth<R extends RecordLike>(
  record: R,
  under: string,
  depth: number,
): R | DriverFolderMarker {
  if (depth === 0) return record;
  const relative = under === '' ? record.path : record.path.slice(under.length + 1);
  let cut = -1;
  for (let level = 0; level < depth; level += 1) {
    cut = relative.indexOf('/', cut + 1);
    if (cut === -1) return record;
  }
  const folder = under === '' ? relative.slice(0, cut) : `${under}/${relative.slice(0, cut)}`;
  return { kind: 'folder', path: folder as DriverPath };
}

/**
 * The page `query` asks for, out of `records`: every file beneath `query.under`, in any order (the
 * reference for drivers that hold their records in JavaScript, and the engine's fallback).
 */
export function pageOfRecords<R extends RecordLike = DriverRecord>(
  records: Iterable<R>,
  query: DriverRecordQuery,
): { items: (R | DriverFolderMarker)[]; next: string | null } {
  const { under, depth, after, limit } = recordQueryParts(query);
  const byKey = new Map<string, R | DriverFolderMarker>();
  for (const record of records) {
    if (under !== '' && !record.path.startsWith(`${under}/`)) continue;
    const item = itemAtDepth(record, under, depth);
    const key = recordKey(item);
    if (isAfterKey(key, after) && !byKey.has(key)) byKey.set(key, item);
  }
  const keys = [...byKey.keys()].sort(compareUtf8);
  const items = keys.slice(0, limit).map((key) => byKey.get(key)!);
  return { items, next: keys.length > limit ? keys[limit - 1]! : null };
}
