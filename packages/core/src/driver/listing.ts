// The order of listing entries and the reference fold from a flat listing to the two-level listing
// `describe` returns (SPEC section 4.1): what a driver without a server-side listing needs.
import { isBeneath, isHiddenName } from '../path.js';
import type { DriverEntry, DriverListing, DriverListingEntry } from './contract.js';

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
