// What the store reads from and writes to an object besides its bytes: the metadata that carries
// operation ids (so a request sent twice is recognised) and marks a move's stand-in, ETags without
// their quotes, and the shapes the requests of bucket.ts return.
import { createHash } from 'node:crypto';

export const OPS_HEADER = 'memdir-op';
export const SOURCE_HEADER = 'memdir-source';
export const MOVED_HEADER = 'memdir-moved';
/** History (history/chain.ts): the file's id, and the ids and times of its newest versions. */
export const FILE_ID_HEADER = 'memdir-file';
export const VERSIONS_HEADER = 'memdir-vers';
/**
 * The file's record (identity, records.ts): `sha256 createdAt changedAt versionSeq`, the numbers in
 * base 36 and the version `-` when history recorded none for the current content.
 */
export const RECORD_HEADER = 'memdir-rec';
/**
 * The operation ids an object carries (its writers' and those of the versions before it) fit in
 * this many bytes: S3 allows 2 KB of user metadata in all, the history headers take up to 640 and
 * the record 100.
 */
const MAX_OPS_BYTES = 1_150;
/** The content type of a memory file. */
export const TEXT = 'text/plain; charset=utf-8';

/**
 * What stands in for a file between its copy and its delete in a move (structure.ts): bytes that
 * can never be a memory file, since they are not UTF-8 (a 0xFF byte), so readers and listings know it.
 */
export const TOMBSTONE = new Uint8Array([0xff, ...Buffer.from(' memdir: moved away')]);
export const TOMBSTONE_ETAG = createHash('md5').update(TOMBSTONE).digest('hex');

/** What a HEAD or a GET tells about one object. */
export interface ObjectInfo {
  /** The ETag without its quotes: a file's version. */
  readonly etag: string;
  readonly size: number;
  /** The operation ids of the object's writer and of the writers before it, newest first. */
  readonly ops: readonly string[];
  /** The ETag of the file a move copied this object from. */
  readonly source: string | undefined;
  /** A move's stand-in (see {@link TOMBSTONE}): the file is gone from this path. */
  readonly tombstone: boolean;
  readonly lastModified: Date | undefined;
  /** The file's id (history), when a writer recorded one. */
  readonly fileId: string | undefined;
  /** The file's newest versions as its `memdir-vers` header lists them ('' for none). */
  readonly chain: string;
  /** The file's record as its writer kept it (`memdir-rec`): absent on data of older versions. */
  readonly record: StoredRecord | undefined;
}

/** What a file object's `memdir-rec` header says. */
export interface StoredRecord {
  readonly sha256: string;
  readonly createdAt: number;
  /** When the content or the path last changed (ms). */
  readonly changedAt: number;
  /** The sequence number of the version holding the content, or null. */
  readonly versionSeq: number | null;
}

/** The `memdir-rec` header's value, or undefined when it is absent or malformed. */
export function parseRecord(value: string | undefined): StoredRecord | undefined {
  if (!value) return undefined;
  const [sha256, created, changed, version] = value.split(' ');
  const createdAt = Number.parseInt(created ?? '', 36);
  const changedAt = Number.parseInt(changed ?? '', 36);
  if (!sha256 || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  if (!Number.isSafeInteger(createdAt) || !Number.isSafeInteger(changedAt)) return undefined;
  if (version === '-') return { sha256, createdAt, changedAt, versionSeq: null };
  const versionSeq = Number.parseInt(version ?? '', 36);
  if (!Number.isSafeInteger(versionSeq) || versionSeq <= 0) return undefined;
  return { sha256, createdAt, changedAt, versionSeq };
}

export function formatRecord(record: StoredRecord): string {
  const version = record.versionSeq === null ? '-' : record.versionSeq.toString(36);
  return `${record.sha256} ${record.createdAt.toString(36)} ${record.changedAt.toString(36)} ${version}`;
}

export interface ObjectContent extends ObjectInfo {
  readonly bytes: Uint8Array;
}

export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly etag: string;
  /** The server's Last-Modified, in milliseconds (listings carry them; HEAD only to the second). */
  readonly modified?: number | undefined;
}

export interface ListPage {
  readonly objects: ListedObject[];
  /** More keys follow the last one of this page. */
  readonly truncated: boolean;
}

/** What the server does with conditions, learnt by probe.ts. */
export interface ServerBehaviour {
  /** `If-Match` takes the ETag in quotes (RFC 9110, AWS); radosgw 16 matches only without them. */
  readonly quotedIfMatch: boolean;
  /** `DeleteObject` honours `If-Match` (AWS); radosgw 16 ignores it and deletes anyway. */
  readonly conditionalDelete: boolean;
  /** An object's ETag is the MD5 of its bytes (no SSE-KMS, no multipart), so a copy keeps it. */
  readonly md5Etags: boolean;
}

export function unquote(etag: string | undefined): string {
  if (etag === undefined) return '';
  const weakless = etag.startsWith('W/') ? etag.slice(2) : etag;
  return weakless.length >= 2 && weakless.startsWith('"') && weakless.endsWith('"')
    ? weakless.slice(1, -1)
    : weakless;
}

function opsOf(metadata: Record<string, string> | undefined): string[] {
  const value = metadata?.[OPS_HEADER];
  return value ? value.split(' ').filter((op) => op !== '') : [];
}

/**
 * The `memdir-op` metadata of a write: its own ids (one per command it applies) and, after them,
 * those the replaced version carried, newest first, within {@link MAX_OPS_BYTES}.
 */
export function opsHeader(own: string | readonly string[], previous: readonly string[] = []): string {
  const ids = typeof own === 'string' ? [own] : own;
  const kept: string[] = [];
  let bytes = 0;
  for (const id of [...ids, ...previous.filter((id) => !ids.includes(id))]) {
    if (bytes + id.length + 1 > MAX_OPS_BYTES) break;
    kept.push(id);
    bytes += id.length + 1;
  }
  return kept.join(' ');
}

export interface HeadLike {
  ETag?: string | undefined;
  ContentLength?: number | undefined;
  Metadata?: Record<string, string> | undefined;
  LastModified?: Date | undefined;
}

export function infoOf(reply: HeadLike): ObjectInfo {
  const metadata = reply.Metadata;
  return {
    etag: unquote(reply.ETag),
    size: reply.ContentLength ?? 0,
    ops: opsOf(metadata),
    source: metadata?.[SOURCE_HEADER],
    tombstone: metadata?.[MOVED_HEADER] !== undefined,
    lastModified: reply.LastModified,
    fileId: metadata?.[FILE_ID_HEADER] || undefined,
    chain: metadata?.[VERSIONS_HEADER] ?? '',
    record: parseRecord(metadata?.[RECORD_HEADER]),
  };
}

/**
 * A conditional request whose condition did not hold. `resent` when the request went out more than
 * once: an earlier attempt may have landed, and then the refusal is our own write's doing.
 */
export interface Refused {
  readonly refused: true;
  readonly resent: boolean;
}

/** Options of a conditional PUT. */
export interface PutOptions {
  /** Write only over this version (an unquoted ETag). */
  readonly ifMatch?: string | undefined;
  /** Write only where no object is. */
  readonly ifNoneMatch?: boolean | undefined;
  /** The `memdir-op` metadata: see {@link opsHeader}. */
  readonly ops: string;
  /** Marks the object as a move's stand-in (its value: the move's operation id). */
  readonly moved?: string | undefined;
  readonly contentType?: string | undefined;
  /** The history headers of a memory file (history/chain.ts). */
  readonly file?: FileMeta | undefined;
  /**
   * The `memdir-source` metadata: the version of the file a move (`updateById` with a new path and
   * content) takes this write's place of, as a copy names its source.
   */
  readonly source?: string | undefined;
}

/** What a memory file's metadata says of its history: its id and its newest versions. */
export interface FileMeta {
  readonly fileId: string;
  /** The `memdir-vers` header (history/chain.ts). */
  readonly chain: string;
  /** The record of the content written (`memdir-rec`). */
  readonly record?: StoredRecord | undefined;
}

/** The metadata entries of {@link FileMeta}. */
export function fileMetadata(file: FileMeta | undefined): Record<string, string> {
  if (file === undefined) return {};
  const entries: Record<string, string> = { [FILE_ID_HEADER]: file.fileId };
  if (file.chain !== '') entries[VERSIONS_HEADER] = file.chain;
  if (file.record) entries[RECORD_HEADER] = formatRecord(file.record);
  return entries;
}
