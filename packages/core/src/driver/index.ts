/**
 * The driver kit: what most memdir drivers need besides their backend, so a simple driver stays
 * small and a fast one computes the same things on its server. Import it from
 * `@memdir/core/driver`:
 *
 * ```ts
 * import { foldListing, refusePathConflict, storeUnavailable } from '@memdir/core/driver';
 * ```
 * @module
 */
// First: a clear error on a Node.js older than memdir supports (see runtime.ts).
import '../runtime.js';
import { MemoryToolError, type MemoryToolErrorCode } from '../errors.js';
import { changeOutcomeUnknown, storeUnavailable as unavailableMessage } from '../messages.js';
import { driverAncestors, isBeneath, isHiddenName, utf8Length } from '../path.js';
import type { DriverEntry, DriverListing, DriverListingEntry, DriverPath } from '../types.js';

export { isBeneath, isHiddenName, utf8Length };

/** The proper ancestors of a driver path, outermost first: `a/b/c` gives `a`, `a/b`. */
export const ancestors: (path: string) => DriverPath[] = driverAncestors;

/** Marks a string a driver built (from its own keys or rows) as a {@link DriverPath}. */
export function asDriverPath(path: string): DriverPath {
  return path as DriverPath;
}

/** The parent directory of a driver path (`''` for a top-level name). Never called with `''`. */
export function parentOf(path: string): DriverPath {
  const slash = path.lastIndexOf('/');
  return (slash === -1 ? '' : path.slice(0, slash)) as DriverPath;
}

/** `name` inside directory `dir`. */
export function childOf(dir: string, name: string): DriverPath {
  return (dir === '' ? name : `${dir}/${name}`) as DriverPath;
}

/** `path` relative to directory `dir` (it must lie beneath it). */
export function relativeTo(dir: string, path: string): string {
  return dir === '' ? path : path.slice(dir.length + 1);
}

/** True when any segment of a relative path is hidden (`.x` or `node_modules`). */
export function hasHiddenSegment(relative: string): boolean {
  return relative.split('/').some(isHiddenName);
}

/**
 * The order of names in a listing (SPEC section 4.1): JavaScript's default string order, by UTF-16
 * code units, case-sensitive. Note that this is not the byte order of UTF-8 (nor code point order)
 * for names mixing U+E000-U+FFFF with characters above U+FFFF: a backend that sorts bytes must
 * correct for that before it cuts a listing short.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order of listing entries (their relative paths, `name` or `name/child`): by top-level name,
 * each directory right before its own children, children by name.
 */
export function compareListingPaths(a: string, b: string): number {
  const slashA = a.indexOf('/');
  const slashB = b.indexOf('/');
  const topA = slashA === -1 ? a : a.slice(0, slashA);
  const topB = slashB === -1 ? b : b.slice(0, slashB);
  if (topA !== topB) return compareNames(topA, topB);
  if (slashA === -1) return slashB === -1 ? 0 : -1;
  if (slashB === -1) return 1;
  return compareNames(a.slice(slashA + 1), b.slice(slashB + 1));
}

interface TopEntry {
  size: number;
  /** null for a file. */
  children: Map<string, { size: number; directory: boolean }> | null;
}

/**
 * The reference fold from a flat listing to the two-level listing `describe` returns (SPEC section
 * 4.1): add every file beneath the directory (hidden ones included, or one entry per hidden name as
 * `list({ skipHidden })` may report them), then take the result. A hidden name hides itself and
 * everything beneath it, but the visible directories above it still exist: they are listed, and
 * hidden files add nothing to their sizes.
 */
export class ListingFold {
  readonly #prefix: number;
  readonly #dir: string;
  readonly #top = new Map<string, TopEntry>();
  #size = 0;
  #files = 0;

  /** @param dir the driver path of the directory being described (`''` for the root). */
  constructor(dir: string) {
    this.#dir = dir;
    this.#prefix = dir === '' ? 0 : dir.length + 1;
  }

  /** How many entries were added (hidden ones included): 0 means the directory held nothing. */
  get added(): number {
    return this.#files;
  }

  /** Adds one file beneath the directory (its driver path from the namespace root, and its size). */
  add(entry: DriverEntry): void {
    if (!isBeneath(entry.path, this.#dir)) return;
    this.#files++;
    const segments = entry.path.slice(this.#prefix).split('/');
    const hiddenAt = segments.findIndex(isHiddenName);
    if (hiddenAt === 0) return;
    const size = hiddenAt === -1 ? entry.size : 0;
    this.#size += size;
    const first = segments[0]!;
    let top = this.#top.get(first);
    if (!top) {
      top = { size: 0, children: segments.length === 1 ? null : new Map() };
      this.#top.set(first, top);
    }
    top.size += size;
    if (segments.length >= 2 && hiddenAt !== 1 && top.children) {
      const name = segments[1]!;
      const child = top.children.get(name) ?? { size: 0, directory: segments.length > 2 };
      child.size += size;
      top.children.set(name, child);
    }
  }

  /** The listing: its size, the count of all entries, and the first `limit` entries in listing order. */
  result(limit: number): DriverListing {
    let count = this.#top.size;
    for (const top of this.#top.values()) count += top.children?.size ?? 0;
    const entries: DriverListingEntry[] = [];
    const names = [...this.#top.keys()].sort(compareNames);
    for (const name of names) {
      if (entries.length >= limit) break;
      const top = this.#top.get(name)!;
      entries.push({ path: name, directory: top.children !== null, size: top.size });
      if (!top.children) continue;
      for (const childName of [...top.children.keys()].sort(compareNames)) {
        if (entries.length >= limit) break;
        const child = top.children.get(childName)!;
        entries.push({ path: `${name}/${childName}`, directory: child.directory, size: child.size });
      }
    }
    return { kind: 'directory', size: this.#size, count, entries };
  }
}

/** {@link ListingFold} over a whole flat listing at once. */
export function foldListing(dir: string, files: Iterable<DriverEntry>, limit: number): DriverListing {
  const fold = new ListingFold(dir);
  for (const file of files) fold.add(file);
  return fold.result(limit);
}

// --- refusals and failures -----------------------------------------------------------------------

function refusal(code: MemoryToolErrorCode, path: string): MemoryToolError {
  // The message is for logs only: the engine writes the model's text from the code and the path.
  return new MemoryToolError(code, `${code} at ${JSON.stringify(path)}`, { path });
}

/** `write`/`move`: `path` is a directory, or the ancestor of the target that is a file. */
export function refusePathConflict(path: string): MemoryToolError {
  return refusal('PATH_CONFLICT', path);
}

/** `write`: the expectation (`{ version }` or `{ absent: true }`) does not hold at `path`. */
export function refuseConflict(path: string): MemoryToolError {
  return refusal('CONFLICT', path);
}

/** `move`: nothing is at the source `path`. */
export function refuseNotFound(path: string): MemoryToolError {
  return refusal('NOT_FOUND', path);
}

/** `move`: a file or directory is already at the destination `path`. */
export function refuseAlreadyExists(path: string): MemoryToolError {
  return refusal('ALREADY_EXISTS', path);
}

/**
 * The backend cannot use `path` because of what lies on it (the filesystem store's symbolic
 * links): the model reads "Path would escape /memories directory via symlink" (SPEC section 8).
 */
export function refuseLink(path: string): MemoryToolError {
  return refusal('INVALID_PATH', path);
}

/** True when `error` is a driver refusal with code `code`. */
export function isRefusal(error: unknown, code: MemoryToolErrorCode): error is MemoryToolError {
  return error instanceof MemoryToolError && error.code === code && error.path !== undefined;
}

/**
 * A storage failure for the model: "The memory store is unavailable: {reason}. Try again."
 * `reason` is plain words ("connection to Redis lost"), never a credential, host path or stack;
 * the backend's own error goes on `cause`.
 */
export function storeUnavailable(reason: string, cause?: unknown): MemoryToolError {
  return new MemoryToolError('BACKEND', unavailableMessage(reason), { cause });
}

/**
 * A change whose outcome is unknown (the connection was lost after the request was sent): the
 * message tells the model that it may have been saved, and to look before it tries again.
 */
export function outcomeUnknown(reason: string, cause?: unknown): MemoryToolError {
  return new MemoryToolError('BACKEND', changeOutcomeUnknown(reason), { cause });
}
