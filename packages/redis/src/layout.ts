// Where a namespace lives in Redis: its keys, and the form paths take inside them.
import { optionError } from '@memdir/core/driver';

/** Default of `keyPrefix`. */
export const DEFAULT_KEY_PREFIX = 'memdir:';

/**
 * The keys of one namespace, in the order every script declares them (`KEYS[1]`...). All of them
 * carry the hash tag `{chain}`, so they share one Cluster slot and one script can reach them all.
 */
export interface NamespaceKeys {
  /** Hash: content key -> content (a move leaves contents where they are; versions share them). */
  readonly files: string;
  /** Hash: stored path -> `{content key}\t{file id}`, for every file. */
  readonly versions: string;
  /** Sorted set, every score 0: the index of files and directories (see the scripts). */
  readonly index: string;
  /** Hash: file -> its bytes; directory -> total bytes of the files beneath it visible from it. */
  readonly sizes: string;
  /** Hash: operation id -> the outcome of the change it made. */
  readonly receipts: string;
  /** Sorted set: operation id, scored by the server time (ms) it was recorded at. */
  readonly receiptTimes: string;
  /** Hash: the namespace's totals and counters (`bytes`, `seq`, `at`, `reg`, `sc`), kept by every change. */
  readonly totals: string;
  /** Hash: content key -> how many references it has beyond one (history shares contents). */
  readonly references: string;
  /** Sorted set: every version kept, scored by its sequence number, the member its record. */
  readonly history: string;
  /** Sorted set, every score 0: `{stored path} NUL {16-digit sequence}` for each version's paths. */
  readonly historyPaths: string;
  /** Sorted set: stored path -> the time of its last change or touched read (expiry). */
  readonly expiry: string;
  /** What every key of the namespace starts with; `{base}:h:{file id}` is a file's versions. */
  readonly base: string;
}

/**
 * The namespace chain of a driver: `/` for the store without a namespace, `/a` for namespace `a`,
 * `/a/b` for `b` inside `a`. Namespace names hold no `/`, `{` or `}`, so every chain is a distinct,
 * non-empty hash tag (an empty tag `{}` would make Redis hash the whole key, scattering the
 * namespace over many slots).
 */
export function childChain(chain: string, name: string): string {
  return chain === '/' ? `/${name}` : `${chain}/${name}`;
}

/**
 * The keys of namespace `chain` under `prefix`: `{prefix}{{prefix}{chain}}:{f|v|i|s|r|q|t|n|o|p|e}`,
 * and one `...:h:{file id}` per file with versions. The key prefix comes first (so `SCAN MATCH
 * memdir:*` and ACL key patterns such as `~memdir:*` cover the store) and again inside the hash tag,
 * so that stores with different prefixes on one Cluster, each with its default namespace, do not
 * all land in the slot of `{/}`.
 */
export function namespaceKeys(prefix: string, chain: string): NamespaceKeys {
  const base = `${prefix}{${prefix}${chain}}`;
  return {
    files: `${base}:f`,
    versions: `${base}:v`,
    index: `${base}:i`,
    sizes: `${base}:s`,
    receipts: `${base}:r`,
    receiptTimes: `${base}:q`,
    totals: `${base}:t`,
    references: `${base}:n`,
    history: `${base}:o`,
    historyPaths: `${base}:p`,
    expiry: `${base}:e`,
    base,
  };
}

/** The keys of a namespace in script order: `KEYS[1]` to `KEYS[11]` (the registry is `KEYS[12]`). */
export function scriptKeys(keys: NamespaceKeys): string[] {
  return [
    keys.files,
    keys.versions,
    keys.index,
    keys.sizes,
    keys.receipts,
    keys.receiptTimes,
    keys.totals,
    keys.references,
    keys.history,
    keys.historyPaths,
    keys.expiry,
  ];
}

/** The rule for key prefixes, as the error states it. */
const KEY_PREFIX_RULE =
  'it must not contain "{" or "}" (memdir puts each namespace in its own hash tag), the glob characters * ? [ ] \\ (so the pattern {prefix}* of SCAN and of ACL key rules names the store\'s keys and no others), whitespace or control characters';

/**
 * Checks the key prefix. With no `{` or `}` in it, every key of a store begins with its prefix and
 * then its own hash tag `{prefix + chain}`, so two stores share keys only when their prefixes (and
 * namespaces) are the same; without glob characters, whitespace or control characters it can be
 * written into `SCAN MATCH` and ACL patterns as it is.
 * @throws TypeError naming the rule: a prefix holding `{` or `}` would make Redis take the hash tag
 *   from the prefix, putting every namespace in one slot (or splitting one across slots).
 */
export function checkKeyPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string') {
    throw optionError('redis', 'keyPrefix', 'expected a string');
  }
  if (/[{}*?[\]\\\s\u0000-\u001f\u007f]/.test(prefix)) {
    throw optionError('redis', 'keyPrefix', `${JSON.stringify(prefix)}: ${KEY_PREFIX_RULE}`);
  }
  return prefix;
}

// --- stored form of paths -----------------------------------------------------------------------
//
// Redis sorts the members of a sorted set by their bytes, which for UTF-8 is code point order; a
// listing is in JavaScript's order, by UTF-16 code units. The two differ only between characters
// U+E000-U+FFFF and characters above U+FFFF (whose surrogates sort first in UTF-16). Paths are
// therefore stored in a form whose UTF-8 byte order is JavaScript's order of the original: each
// character above U+FFFF moves down by 0x2000 (to U+E000-U+10DFFF), each of U+E000-U+FFFF moves up
// to U+10E000-U+10FFFF. Every other character (all of ASCII, Latin, CJK, Hangul...) is kept, so
// the stored form is the path itself for nearly every name, is valid UTF-8, and keeps `/`, `.` and
// every length rule. Listings then come out of Redis in the right order and can be cut on the
// server.

const REMAPPED = /[\uD800-\uDFFF\uE000-\uFFFF]/;

/** The stored form of a driver path (or name). */
export function toStored(path: string): string {
  if (!REMAPPED.test(path)) return path;
  let stored = '';
  for (const character of path) {
    const point = character.codePointAt(0)!;
    if (point >= 0x10000) stored += String.fromCodePoint(point - 0x2000);
    else if (point >= 0xe000) stored += String.fromCodePoint(point + 0x100000);
    else stored += character;
  }
  return stored;
}

/** The driver path (or name) a stored form stands for. */
export function fromStored(stored: string): string {
  if (!REMAPPED.test(stored)) return stored;
  let path = '';
  for (const character of stored) {
    const point = character.codePointAt(0)!;
    if (point >= 0x10e000) path += String.fromCodePoint(point - 0x100000);
    else if (point >= 0xe000) path += String.fromCodePoint(point + 0x2000);
    else path += character;
  }
  return path;
}
