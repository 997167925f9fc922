// Where everything lives in the bucket. The layout is the filesystem store's, so a person browsing
// the bucket sees the same tree `@memdir/fs` keeps on disk:
//
//   {prefix}memories/notes/a.md                     /memories/notes/a.md
//   {prefix}namespaces/{name}/memories/...          the same, in namespace {name} (nesting repeats)
//   {prefix}.memdir/lease                           the namespace's lease and journal (lease.ts)
//   {prefix}.memdir/totals                          the namespace's bytes and files (totals.ts)
//   {prefix}.memdir/probe-*                         the startup probe's scratch objects (probe.ts)
//   {prefix}.memdir/history/{9999...-n}-memver_{n}  version n of the namespace's history (history/record.ts)
//   {prefix}.memdir/touched/{hash}                  when a file was last read with refreshOnRead (sweep.ts)
//
// The three areas start with different names, and namespace names hold no `/`, so no memory path
// of one namespace can reach a key of another or memdir's own objects.
import { isHiddenName, utf8Length } from '@memdir/core/driver';

/** S3's limit on a key, in UTF-8 bytes (prefix included). */
export const MAX_KEY_BYTES = 1024;
/** The protocol's own limit on a memory path (SPEC section 2). */
const PROTOCOL_MAX_PATH_BYTES = 1024;
const FILES = 'memories/';
const NAMESPACES = 'namespaces/';
const MEMDIR = '.memdir/';
/** A memory path is `/memories/` and the driver path that follows the files prefix in a key. */
const MEMORY_PATH_HEAD = '/memories/'.length;

/**
 * The shortest path a namespace must leave room for: `/memories/` and one 255-byte name, so every
 * name the protocol allows still fits at the top level.
 */
const MIN_PATH_BYTES = '/memories/'.length + 255;

/**
 * Segment names a prefix must not hold: each is an area of some store's layout, so a prefix with one
 * would lie inside another store's tree (`p/carol/memories/x` in prefix `p/carol`'s files) or be
 * another store under a namespace (`p/namespaces/n` is prefix `p` in namespace `n`).
 */
const RESERVED_SEGMENTS = new Set([FILES.slice(0, -1), NAMESPACES.slice(0, -1), MEMDIR.slice(0, -1)]);

/** The rule for prefixes, as the error states it. */
const PREFIX_RULE =
  'use key segments separated by single slashes, without a leading slash, an empty, "." or ".." segment, a control character, or a segment named memories, namespaces or .memdir (e.g. "agents/alice")';

/**
 * Checks and normalises the `prefix` option: `''`, or a key prefix ending in `/`. Two stores share
 * data only when their prefixes (and namespaces) are the same: no prefix lies inside another's tree.
 * @throws TypeError naming the rule, for a prefix that starts with `/`, has an empty, `.` or `..`
 *   segment, a control character, or a segment named `memories`, `namespaces` or `.memdir`.
 */
export function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '') return '';
  if (typeof prefix !== 'string') throw new TypeError('Invalid @memdir/s3 option prefix: expected a string');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  const segments = trimmed.split('/');
  if (
    /[\u0000-\u001f\u007f]/.test(trimmed) ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..') ||
    segments.some((segment) => RESERVED_SEGMENTS.has(segment))
  ) {
    throw new TypeError(`Invalid @memdir/s3 option prefix ${JSON.stringify(prefix)}: ${PREFIX_RULE}`);
  }
  return `${trimmed}/`;
}

/** The keys of one namespace: its files, its lease, its totals, and the base of its child namespaces. */
export class KeySpace {
  /** Every file key of the namespace starts with this. */
  readonly files: string;
  readonly lease: string;
  /** The namespace's totals, kept while a store with a quota writes (totals.ts). */
  readonly totals: string;
  /** Every version object of the namespace's history starts with this (history/record.ts). */
  readonly history: string;
  /** The longest memory path (`/memories/...`, UTF-8 bytes) whose key fits in S3's limit. */
  readonly maxPathBytes: number;
  // --- admin (admin.ts, sweep.ts) ---
  /** Every key of the namespaces nested in this one starts with this. */
  readonly namespaces: string;
  /** memdir's own objects of the namespace (lease, totals, touched reads, history). */
  readonly memdir: string;
  /** The markers of reads that refresh expiry, one per file path (sweep.ts). */
  readonly touched: string;
  /** The id index (records.ts): one object per file id naming the path it was last found at. */
  readonly ids: string;

  constructor(readonly base: string) {
    this.files = base + FILES;
    this.namespaces = base + NAMESPACES;
    this.memdir = base + MEMDIR;
    this.touched = `${base}${MEMDIR}touched/`;
    this.lease = `${base}${MEMDIR}lease`;
    this.totals = `${base}${MEMDIR}totals`;
    this.history = `${base}${MEMDIR}history/`;
    this.ids = `${base}${MEMDIR}ids/`;
    const room = MAX_KEY_BYTES - utf8Length(this.files) + MEMORY_PATH_HEAD;
    if (room < MIN_PATH_BYTES) {
      throw new TypeError(
        `@memdir/s3: the prefix and namespaces take ${utf8Length(base)} bytes of S3's ${MAX_KEY_BYTES}-byte keys, leaving too little for memory paths; use a shorter prefix or namespace`,
      );
    }
    this.maxPathBytes = Math.min(PROTOCOL_MAX_PATH_BYTES, room);
  }

  /** The key space of child namespace `name` (already validated: no `/`). */
  child(name: string): KeySpace {
    return new KeySpace(`${this.base}${NAMESPACES}${name}/`);
  }

  /** The key of the file at driver path `path`. */
  file(path: string): string {
    return this.files + path;
  }

  /** The prefix of every key beneath directory `path` (`''` for the root). */
  beneath(path: string): string {
    return path === '' ? this.files : `${this.files}${path}/`;
  }

  /**
   * The driver path of a file key, or undefined for a key no memdir store writes (an S3 console
   * "folder" ending in `/`, an empty or `.`/`..` segment, a name that is not NFC): such objects,
   * put there by other tools, are left out rather than shown under names no command can reach.
   */
  pathOf(key: string): string | undefined {
    if (!key.startsWith(this.files)) return undefined;
    const path = key.slice(this.files.length);
    if (path === '') return undefined;
    for (const segment of path.split('/')) {
      if (segment === '' || segment === '.' || segment === '..') return undefined;
    }
    if (path.normalize('NFC') !== path) return undefined;
    return path;
  }
}

/** The prefix of the startup probe's scratch objects, under the root namespace of a prefix. */
export function probeKey(prefix: string, name: string): string {
  return `${prefix}${MEMDIR}probe-${name}`;
}

/**
 * The prefix of the hidden subtree a listed key lies in, relative to the listing's prefix, or
 * undefined. `a/.git/x` gives `a/.git/`; a hidden file name (`a/.env`) has no subtree to skip.
 */
export function hiddenSubtree(relative: string): string | undefined {
  const segments = relative.split('/');
  for (let index = 0; index < segments.length - 1; index++) {
    if (isHiddenName(segments[index]!)) return `${segments.slice(0, index + 1).join('/')}/`;
  }
  return undefined;
}

// U+10FFFF is the largest code point, and its UTF-8 form (F4 8F BF BF) sorts after every other
// UTF-8 sequence, so a key of prefix H followed by enough of them sorts after every key that starts
// with H and fits in S3's limit.
const LAST_CHARACTER = '\u{10FFFF}';

/**
 * A `StartAfter` that skips every key beneath `prefix` in one step: `prefix` padded with U+10FFFF up
 * to S3's key limit. A key longer than that cannot exist, so nothing beneath `prefix` is listed
 * again, except a name made of U+10FFFF itself (the caller keeps going from the last key it saw).
 */
export function pastEveryKeyBeneath(prefix: string): string {
  const room = Math.floor((MAX_KEY_BYTES - utf8Length(prefix)) / 4);
  return prefix + LAST_CHARACTER.repeat(Math.max(room, 0));
}

/** UTF-8 byte order, which is how S3 sorts keys (JavaScript compares UTF-16 code units). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Decodes a key of a listing made with `EncodingType: 'url'`. S3 encodes a space as `+` (radosgw as
 * `%20`) and a literal `+` as `%2B`, so `+` can be turned into a space first.
 */
export function decodeListedKey(encoded: string): string {
  return decodeURIComponent(encoded.replaceAll('+', '%20'));
}

/**
 * `CopyObject`'s `CopySource`: the bucket and the key, URL-encoded segment by segment (the SDK
 * sends it as it is; a `?`, `#`, `%` or `+` in a name would otherwise change what is copied).
 */
export function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * True when a key can travel in an XML body (`DeleteObjects`): XML 1.0 has no U+FFFE or U+FFFF,
 * which memory paths may hold. Such keys are deleted one request each.
 */
export function xmlSafe(key: string): boolean {
  return !/[\uFFFE\uFFFF]/.test(key);
}
