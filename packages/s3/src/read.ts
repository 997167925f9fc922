// The driver's reads: a file with one GET, a folder from a listing, `describe` (a `view`) with the
// GET and the listing sent together when the name looks like a folder's, and the listing of a
// folder with each object's ETag as its content's MD5 where it is one.
import type {
  DriverDescribeOptions,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListOptions,
} from '@memdir/core';
import { asDriverPath, ListingFold } from '@memdir/core/driver';
import type { Bucket } from './bucket.js';
import type { Call } from './call.js';
import { decodeContent, isTombstone } from './edits.js';
import { anythingBeneath } from './inspect.js';
import { hiddenSubtree } from './keys.js';
import { isListedTombstone, listObjects } from './listing.js';
import type { ListPage } from './objects.js';
import type { Space } from './space.js';
import { isLiveFile } from './structure.js';
import { touch } from './sweep.js';

const MD5_HEX = /^[0-9a-f]{32}$/i;

/**
 * What an object's listed ETag says of its content, as `DriverEntry.contentMd5`: the MD5 of its
 * bytes when it is one (32 hex digits; a multipart ETag ends in `-N`), unless the probe found that
 * this server's ETags are not MD5s (SSE-KMS). Before the probe, a 32-digit ETag is given as it is:
 * one that is no MD5 will not equal a content's MD5, and the caller then reads the file.
 */
function md5OfEtag(bucket: Bucket, etag: string): string | undefined {
  if (bucket.probing !== undefined && !bucket.behaviour.md5Etags) return undefined;
  return MD5_HEX.test(etag) ? etag.toLowerCase() : undefined;
}

/**
 * A name whose last segment has a dot past its first character (`notes.md`) is most likely a file:
 * `describe` reads it first (one request). Other names (`notes`, `.archive`) are most likely
 * folders: it sends the GET and the listing together (one round trip, two requests).
 */
function looksLikeFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.lastIndexOf('.') > 0;
}

/**
 * The file at `path`, or null for nothing or a move's stand-in. With `touched`, the read is
 * recorded for expiry (sweep.ts), beside the GET.
 */
async function readFile(
  space: Space,
  path: string,
  call: Call,
  touched?: boolean,
): Promise<DriverFile | null> {
  const { backend } = space;
  const key = space.keys.file(path);
  const [object] = await Promise.all([
    backend.bucket.get(key, call),
    touched ? touch(space, path, call) : undefined,
  ]);
  if (object === null || isTombstone(object)) return null;
  backend.known.remember(key, {
    etag: object.etag,
    size: object.size,
    ops: object.ops,
    fileId: object.fileId,
    chain: object.chain,
    record: object.record,
    lastModified: object.lastModified,
  });
  return { kind: 'file', content: decodeContent(object), version: object.etag };
}

/** `MemoryDriver.read`: the file, a folder, or null. */
export async function read(space: Space, path: string, call: Call, touched: boolean | undefined) {
  if (path === '') return { kind: 'directory' } as const;
  const file = await readFile(space, path, call, touched);
  if (file) return file;
  return (await anythingBeneath(space, path, call)) ? ({ kind: 'directory' } as const) : null;
}

/** `MemoryDriver.stat`: one HEAD, and a listing when no file is there. */
export async function stat(space: Space, path: string, call: Call) {
  if (path === '') return 'directory' as const;
  const head = await space.backend.bucket.head(space.keys.file(path), call);
  if (isLiveFile(head)) return 'file' as const;
  return (await anythingBeneath(space, path, call)) ? ('directory' as const) : null;
}

/** `MemoryDriver.describe`: the file at `path`, or the listing of the folder. */
export async function describe(
  space: Space,
  path: string,
  options: DriverDescribeOptions,
  call: Call,
): Promise<DriverFile | DriverListing | null> {
  const { bucket } = space.backend;
  const { keys } = space;
  const prefix = keys.beneath(path);
  let firstPage: Promise<ListPage> | undefined;
  if (path !== '') {
    if (!looksLikeFile(path)) {
      firstPage = bucket.list(prefix, undefined, call);
      // Settled below, or dropped when the GET finds a file.
      firstPage.catch(() => {});
    }
    const file = await readFile(space, path, call, options.touch);
    if (file) return file;
  }
  const fold = new ListingFold(path);
  for await (const object of listObjects(bucket, prefix, { skipHidden: true, call, firstPage })) {
    const file = keys.pathOf(object.key);
    if (file === undefined || isListedTombstone(object)) continue;
    fold.add({ path: asDriverPath(file), size: object.size });
  }
  if (fold.added === 0 && path !== '') return null;
  return fold.result(options.limit);
}

/** `MemoryDriver.list`: the files beneath `dir`, in key order. */
export async function* list(
  space: Space,
  dir: string,
  options: DriverListOptions,
  call: Call,
): AsyncIterable<DriverEntry> {
  const { keys } = space;
  const { bucket } = space.backend;
  const prefix = keys.beneath(dir);
  let skipped: string | undefined;
  const objects = listObjects(bucket, prefix, { skipHidden: options.skipHidden, call });
  for await (const object of objects) {
    const path = keys.pathOf(object.key);
    if (path === undefined || isListedTombstone(object)) continue;
    if (options.skipHidden) {
      // One entry per hidden subtree stands for all of it (see DriverListOptions.skipHidden).
      const hidden = hiddenSubtree(object.key.slice(prefix.length));
      if (hidden !== undefined) {
        const entry = prefix.slice(keys.files.length) + hidden.slice(0, -1);
        if (entry === skipped) continue;
        skipped = entry;
        yield { path: asDriverPath(entry), size: 0 };
        continue;
      }
    }
    yield {
      path: asDriverPath(path),
      size: object.size,
      contentMd5: md5OfEtag(bucket, object.etag),
    };
  }
}
