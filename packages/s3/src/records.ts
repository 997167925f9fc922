// Records (identity): each file object carries its own in its metadata, written by the same PUT or
// copy as its content (`memdir-file`: the id; `memdir-rec`: sha256, createdAt, changedAt and the
// version of the content, objects.ts), so no change sends a request more for it. Here they are read:
// one file's (a HEAD, a GET with its content), a page of them (one listing; a HEAD only for an
// object this process has not seen at that ETag), and a file by its id (the id index).
//
// The id index is one small object per file id, `.memdir/ids/{fileId}`, naming the path where
// `locate` last found the file. It is a hint, never the truth: the file object's own id is, and
// `locate` checks it on every use. The changes do not write it (that would be a request more per
// create and rename); a hint that is missing or stale (the file was renamed, deleted, or a crash
// cut a change short) costs one scan of the namespace's files, which writes it again. So no crash
// between two requests of any change can leave the index saying something wrong.
//
// Files written before records (wave 3: no `memdir-rec`, maybe no id) get theirs at their first read,
// listing or change: a GET, and a PUT of the same bytes `If-Match` their version with the id and the
// record added (their Last-Modified standing for when they were made, the newest version their
// chain names holding their content when its header says it does).
import type {
  DriverFolderMarker,
  DriverPath,
  DriverRecord,
  DriverRecordPage,
  DriverRecordQuery,
} from '@memdir/core';
import {
  isAfterKey,
  isFileId,
  itemAtDepth,
  newFileId,
  recordKey,
  recordQueryParts,
  sequenceVersionId,
  sha256Hex,
  storeUnavailable,
} from '@memdir/core/driver';
import type { Call } from './call.js';
import { decodeContent, isTombstone } from './edits.js';
import { parseChain } from './history/chain.js';
import { visibleSlot } from './history/read.js';
import { pastEveryKeyBeneath } from './keys.js';
import { isListedTombstone } from './listing.js';
import {
  type ListedObject,
  type ObjectContent,
  type ObjectInfo,
  opsHeader,
  type StoredRecord,
} from './objects.js';
import type { Space } from './space.js';

/** HEADs of one page of records at once. */
const CONCURRENCY = 16;
/** Tries of a file of older versions whose upgrade raced a change. */
const UPGRADE_TRIES = 3;

/** What a record is made of: a file's id, size and stored record. */
interface Recorded {
  readonly fileId: string;
  readonly size: number;
  readonly record: StoredRecord;
}

function recordOf(path: string, file: Recorded, content?: string): DriverRecord {
  const { record } = file;
  return {
    kind: 'file',
    path: path as DriverPath,
    fileId: file.fileId,
    sha256: record.sha256,
    size: file.size,
    createdAt: record.createdAt,
    changedAt: record.changedAt,
    versionId: record.versionSeq === null ? null : sequenceVersionId(record.versionSeq),
    ...(content === undefined ? {} : { content }),
  };
}

function isRecorded(info: ObjectInfo): info is ObjectInfo & Recorded {
  return info.fileId !== undefined && info.record !== undefined;
}

function remember(space: Space, key: string, info: ObjectInfo & Recorded): void {
  space.backend.known.remember(key, {
    etag: info.etag,
    size: info.size,
    ops: info.ops,
    fileId: info.fileId,
    chain: info.chain,
    record: info.record,
  });
}

/**
 * The version holding a file's content, for a file of older versions: the newest its chain names,
 * when that version is visible and holds this file's id and content (a write with history off
 * carried the chain on over other content). Null otherwise: one scan of the history, once a file.
 */
async function versionHolding(
  space: Space,
  object: ObjectContent,
  sha256: string,
  call: Call,
): Promise<number | null> {
  const newest = parseChain(object.chain)[0];
  if (newest === undefined || object.fileId === undefined) return null;
  const slot = await visibleSlot(space, newest.seq, call);
  const version = slot?.header;
  return version &&
    version.operation !== 'deleted' &&
    version.fileId === object.fileId &&
    version.sha256 === sha256
    ? newest.seq
    : null;
}

/**
 * Gives a file of older versions (no record, maybe no id) its id and record: the same bytes written
 * again over its version with them. Null when the file changed meanwhile (read it again).
 */
async function upgrade(
  space: Space,
  key: string,
  object: ObjectContent,
  call: Call,
): Promise<(ObjectInfo & Recorded) | null> {
  const made = object.lastModified?.getTime() ?? Date.now();
  const sha256 = sha256Hex(decodeContent(object));
  const record: StoredRecord = {
    sha256,
    createdAt: made,
    changedAt: made,
    versionSeq: await versionHolding(space, object, sha256, call),
  };
  const fileId = object.fileId ?? newFileId();
  const written = await space.backend.bucket.put(
    key,
    object.bytes,
    { ifMatch: object.etag, ops: opsHeader(object.ops), file: { fileId, chain: object.chain, record } },
    call,
  );
  if (typeof written !== 'string') return null;
  const info = { ...object, etag: written, fileId, record };
  remember(space, key, info);
  return info;
}

/** The file at `key` with its record (upgraded when it had none), its content when asked; or null. */
async function recordedFile(
  space: Space,
  key: string,
  content: boolean,
  call: Call,
  head?: ObjectInfo | null,
): Promise<{ info: ObjectInfo & Recorded; content?: string } | null> {
  const { bucket } = space.backend;
  for (let attempt = 0; attempt < UPGRADE_TRIES; attempt++) {
    if (!content) {
      const seen = attempt === 0 && head !== undefined ? head : await bucket.head(key, call);
      if (seen === null || seen.tombstone) return null;
      if (isRecorded(seen)) {
        remember(space, key, seen);
        return { info: seen };
      }
    }
    const object = await bucket.get(key, call);
    if (object === null || isTombstone(object)) return null;
    if (isRecorded(object)) {
      remember(space, key, object);
      return { info: object, content: decodeContent(object) };
    }
    const upgraded = await upgrade(space, key, object, call);
    if (upgraded) return { info: upgraded, ...(content ? { content: decodeContent(object) } : {}) };
  }
  throw storeUnavailable('a file kept changing while its record was made', undefined, 'busy');
}

/** `readRecord`: one HEAD (a GET with the content), for a file with a record. */
export async function readRecord(
  space: Space,
  path: string,
  content: boolean,
  call: Call,
): Promise<DriverRecord | null> {
  const found = await recordedFile(space, space.keys.file(path), content, call);
  return found && recordOf(path, found.info, found.content);
}

/** The record of a listed file: from what this process saw of that version, else a HEAD. */
async function listedRecord(space: Space, object: ListedObject, call: Call): Promise<DriverRecord | null> {
  const path = space.keys.pathOf(object.key)!;
  const known = space.backend.known.get(object.key);
  if (known?.etag === object.etag && known.fileId !== undefined && known.record !== undefined)
    return recordOf(path, { fileId: known.fileId, size: object.size, record: known.record });
  return readRecord(space, path, false, call);
}

/** `work` for each item, {@link CONCURRENCY} at a time, results in order. */
async function eachAtOnce<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return results;
}

/**
 * `listRecords`: the keys of a page come from listings in S3's order, which is the UTF-8 byte order
 * of keys (a folder marker's key `path/` is a prefix of the keys of everything beneath it, so they
 * come together, and a page that ends among them is followed by a listing past them). Records come from what
 * this process saw of each object at its ETag, else from a HEAD.
 */
export async function listRecords(
  space: Space,
  query: DriverRecordQuery,
  call: Call,
): Promise<DriverRecordPage> {
  const { under, depth, after, limit } = recordQueryParts(query);
  const { keys } = space;
  const { bucket } = space.backend;
  const prefix = keys.beneath(under);
  let startAfter: string | undefined;
  if (after !== null) {
    const afterKey = keys.file(after);
    startAfter = after.endsWith('/') ? pastEveryKeyBeneath(afterKey) : afterKey;
  }
  const items: { item: DriverRecord | DriverFolderMarker; object: ListedObject | null }[] = [];
  let more = false;
  let lastKey: string | undefined;
  scan: for (;;) {
    const page = await bucket.list(prefix, startAfter, call);
    for (const object of page.objects) {
      const path = keys.pathOf(object.key);
      if (path === undefined || isListedTombstone(object)) continue;
      const stub = { kind: 'file', path } as DriverRecord;
      const item = itemAtDepth(stub, under, depth);
      const key = recordKey(item);
      if (!isAfterKey(key, after) || key === lastKey) continue;
      if (items.length === limit) {
        more = true;
        break scan;
      }
      lastKey = key;
      items.push({ item, object: item.kind === 'folder' ? null : object });
    }
    const last = page.objects.at(-1);
    if (!page.truncated || last === undefined) break;
    startAfter = last.key;
    // A page that ends inside a folder given as one marker: the next listing starts past it.
    if (lastKey?.endsWith('/') && startAfter.startsWith(keys.file(lastKey)))
      startAfter = pastEveryKeyBeneath(keys.file(lastKey));
  }
  const records = await eachAtOnce(items, ({ item, object }) =>
    object === null ? Promise.resolve(item) : listedRecord(space, object, call),
  );
  // A file gone between the listing and its HEAD is left out.
  const found = records.filter((item) => item !== null);
  return { items: found, next: more && lastKey !== undefined ? lastKey : null };
}

/**
 * The record of the file at `path` as this process's own write of version `etag` left it, when it
 * knows that version (no request).
 */
export function writtenRecord(space: Space, path: string, etag: string): DriverRecord | undefined {
  const known = space.backend.known.get(space.keys.file(path));
  if (known?.etag === etag && known.fileId !== undefined && known.record !== undefined)
    return recordOf(path, { fileId: known.fileId, size: known.size, record: known.record });
  return undefined;
}

/** The path the id index names for `fileId`, or undefined. */
async function indexedPath(space: Space, fileId: string, call: Call): Promise<string | undefined> {
  const object = await space.backend.bucket.get(space.keys.ids + fileId, call);
  if (object === null) return undefined;
  const path = Buffer.from(object.bytes).toString('utf8');
  return space.keys.pathOf(space.keys.file(path)) === path ? path : undefined;
}

/**
 * `locate`: the path the id index names, checked against the file's own id (two requests); else a
 * scan of the namespace's files (one listing a page, a HEAD for each object this process has not
 * seen at its ETag), after which the index names the path found.
 */
export async function locate(
  space: Space,
  fileId: string,
  content: boolean,
  call: Call,
): Promise<DriverRecord | null> {
  if (!isFileId(fileId)) return null;
  const { keys } = space;
  const { bucket, known } = space.backend;
  const hinted = await indexedPath(space, fileId, call);
  if (hinted !== undefined) {
    const record = await readRecord(space, hinted, content, call);
    if (record?.fileId === fileId) return record;
  }
  let path: string | undefined;
  let token: string | undefined;
  for (;;) {
    const page = await bucket.list(keys.files, token, call);
    const unseen: ListedObject[] = [];
    for (const object of page.objects) {
      if (keys.pathOf(object.key) === undefined || isListedTombstone(object)) continue;
      const seen = known.get(object.key);
      if (seen?.etag === object.etag && seen.fileId !== undefined && seen.record !== undefined) {
        if (seen.fileId === fileId) path = keys.pathOf(object.key);
      } else unseen.push(object);
    }
    if (path === undefined) {
      const records = await eachAtOnce(unseen, (object) => listedRecord(space, object, call));
      path = records.find((record) => record?.fileId === fileId)?.path;
    }
    if (path !== undefined) break;
    const last = page.objects.at(-1);
    if (!page.truncated || last === undefined) return null;
    token = last.key;
  }
  await bucket.put(keys.ids + fileId, path, { ops: '', contentType: 'text/plain; charset=utf-8' }, call);
  const record = await readRecord(space, path, content, call);
  return record?.fileId === fileId ? record : null;
}
