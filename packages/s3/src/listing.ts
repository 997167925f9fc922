// Listings: every key beneath a prefix, 1000 a page, in S3's order. A hidden subtree (`.git/`,
// `node_modules/`) that runs past the end of a page is jumped over with one `StartAfter` instead of
// being read page by page, so a big hidden folder costs one request, not one per 1000 files.
import type { Bucket } from './bucket.js';
import type { Call } from './call.js';
import { compareKeys, hiddenSubtree, pastEveryKeyBeneath } from './keys.js';
import { type ListedObject, type ListPage, TOMBSTONE, TOMBSTONE_ETAG } from './objects.js';

export interface ListOptions {
  /** Jump over hidden subtrees below the prefix (their first key is still listed). */
  readonly skipHidden?: boolean | undefined;
  readonly call: Call;
  /** The first page, when the caller already sent its request (describe sends it beside a GET). */
  readonly firstPage?: Promise<ListPage> | undefined;
  /** Keys per page. @default 1000 */
  readonly pageSize?: number | undefined;
  /** List only the keys after this one. */
  readonly startAfter?: string | undefined;
}

/**
 * True for a listed object that is a move's stand-in rather than a file (see bucket.ts). Its ETag
 * is the MD5 of its bytes on servers with MD5 ETags, and a file cannot have those bytes (they are
 * not UTF-8); elsewhere no file's ETag is that hex string but by an astronomical chance, and a
 * stand-in is listed as a small file for the moment it lives.
 */
export function isListedTombstone(object: ListedObject): boolean {
  return object.size === TOMBSTONE.length && object.etag === TOMBSTONE_ETAG;
}

/** Every object whose key starts with `prefix`, page by page. */
export async function* listObjects(
  bucket: Bucket,
  prefix: string,
  options: ListOptions,
): AsyncGenerator<ListedObject> {
  let startAfter = options.startAfter;
  let pending: Promise<ListPage> | undefined = options.firstPage;
  for (;;) {
    const page = await (pending ?? bucket.list(prefix, startAfter, options.call, options.pageSize));
    pending = undefined;
    yield* page.objects;
    const last = page.objects.at(-1);
    if (!page.truncated || last === undefined) return;
    startAfter = last.key;
    if (options.skipHidden) {
      const hidden = hiddenSubtree(last.key.slice(prefix.length));
      if (hidden !== undefined) {
        const past = pastEveryKeyBeneath(prefix + hidden);
        // Never step back: a name made of U+10FFFF could sort past the jump.
        if (compareKeys(past, startAfter) > 0) startAfter = past;
      }
    }
  }
}
