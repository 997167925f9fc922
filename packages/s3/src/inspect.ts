// What lies at and around a path, in as few requests as a listing allows: the object at the path,
// whether anything lies beneath it, and whether one of its ancestors is a file. A new path, a
// delete and a move ask this under the lease, where the answer holds until they have written.
//
// One listing answers most of it. S3 lists keys in UTF-8 order, and a key sorts before every key it
// is a prefix of, so the listing of the keys that start with the key of the path's parent `a/b`
// starts with `a/b` itself when that is a file, and holds every key beneath `a/b/c` (the path)
// unless the parent's folder is larger than a page. A key beneath `a/b/` proves `a/b` and every
// folder above it a directory, so no ancestor is a file. Only what one page leaves open is asked
// again: the path's own keys (a second, narrow listing), or the higher ancestors (a HEAD each,
// for a path whose parent folder does not exist yet).
import { ancestors } from '@memdir/core/driver';
import type { Call } from './call.js';
import { compareKeys } from './keys.js';
import { isListedTombstone, listObjects } from './listing.js';
import type { ListedObject } from './objects.js';
import type { SharedSpace } from './shared.js';

/** The page size of the first listing: most folders fit, and a large one costs one more request. */
const FIRST_PAGE = 200;

/** What `inspect` found. */
export interface Surroundings {
  /** The file at the path (a live object: a move's stand-in is no file), or null. */
  readonly file: ListedObject | null;
  /** The path's own object when it is a move's stand-in (left by a crash, to be cleared). */
  readonly tombstone: ListedObject | null;
  /** True when a file lies beneath the path: it is a directory. */
  readonly occupied: boolean;
  /** The outermost ancestor that is a file, if any. */
  readonly fileAbove: string | undefined;
}

/** The keys at or beneath `key` among `objects`. */
function ownKeys(objects: readonly ListedObject[], key: string): ListedObject[] {
  return objects.filter((object) => object.key === key || object.key.startsWith(`${key}/`));
}

/** True when a page holds every key at or beneath `key`: they all sort before `key + '0'` ('0' follows '/'). */
function isComplete(truncated: boolean, objects: readonly ListedObject[], key: string): boolean {
  return !truncated || compareKeys(objects.at(-1)!.key, `${key}0`) >= 0;
}

/** True when at least one file (hidden or not) lies beneath directory `path`. */
export async function anythingBeneath(space: SharedSpace, path: string, call: Call): Promise<boolean> {
  const { bucket } = space.backend;
  for await (const object of listObjects(bucket, space.keys.beneath(path), { call, pageSize: 100 })) {
    if (isFile(space, object)) return true;
  }
  return false;
}

/** A listed object that is a memory file of this namespace (not a stand-in, not a foreign key). */
function isFile(space: SharedSpace, object: ListedObject): boolean {
  return !isListedTombstone(object) && space.keys.pathOf(object.key) !== undefined;
}

/**
 * Requests made once for the changes that run side by side under one acquisition of the lease:
 * their paths are unrelated (none lies at or beneath another), so what one of them writes changes
 * nothing the others look at, and a listing of their common folder serves them all.
 */
export class Lookups {
  readonly #requests = new Map<string, Promise<unknown>>();

  once<T>(id: string, request: () => Promise<T>): Promise<T> {
    let pending = this.#requests.get(id) as Promise<T> | undefined;
    if (!pending) {
      pending = request();
      this.#requests.set(id, pending);
    }
    return pending;
  }
}

/** How `inspect` may save requests. */
export interface InspectOptions {
  /** Ancestors known to be directories (a move's source lies beneath them). */
  readonly skipAncestors?: ReadonlySet<string> | undefined;
  /** Requests shared with the other changes of the same batch. */
  readonly lookups?: Lookups | undefined;
  /** Other changes of the batch are in the same folder: list the folder, for all of them. */
  readonly shareFolder?: boolean | undefined;
}

/**
 * What lies at and around `path` (see the top of this file). Costs one listing for a path whose
 * parent folder is small or new, plus a HEAD per further ancestor when the parent folder is new.
 */
export async function inspect(
  space: SharedSpace,
  path: string,
  call: Call,
  { skipAncestors = new Set(), lookups = new Lookups(), shareFolder = false }: InspectOptions = {},
): Promise<Surroundings> {
  const { bucket } = space.backend;
  const { keys } = space;
  const key = keys.file(path);
  const above = ancestors(path).filter((ancestor) => !skipAncestors.has(ancestor));
  const parent = ancestors(path).at(-1);
  // The first listing starts at the parent's key when its status is asked (or the folder is
  // shared: the namespace's top for a name at the top), else at the path's.
  const askParent = parent !== undefined && above.includes(parent);
  const folder = parent === undefined ? keys.files : keys.file(parent);
  const start = askParent || shareFolder ? folder : key;
  const page = await lookups.once(`LIST ${start}`, () => bucket.list(start, undefined, call, FIRST_PAGE));
  const listed = page.objects;
  let own = ownKeys(listed, key);
  let complete = isComplete(page.truncated, listed, key);
  if (!complete && start !== key) {
    const second = await bucket.list(key, undefined, call, FIRST_PAGE);
    own = ownKeys(second.objects, key);
    complete = isComplete(second.truncated, second.objects, key);
  }
  let occupied = own.some((object) => object.key !== key && isFile(space, object));
  // A page of stand-ins and foreign keys, or of names that extend the path's (`a.md.bak`...).
  if (!occupied && !complete) occupied = await anythingBeneath(space, path, call);
  const object = own.find((candidate) => candidate.key === key) ?? null;
  const file = object && !isListedTombstone(object) ? object : null;
  const tombstone = object && isListedTombstone(object) ? object : null;

  let fileAbove: string | undefined;
  if (askParent) {
    const parentKey = keys.file(parent!);
    const first = listed[0];
    if (first?.key === parentKey && !isListedTombstone(first)) {
      fileAbove = parent;
    } else if (listed.some((entry) => entry.key.startsWith(`${parentKey}/`) && isFile(space, entry))) {
      // The parent is a directory: so is every folder above it.
      return { file, tombstone, occupied, fileAbove: undefined };
    }
  }
  const higher = above.filter((ancestor) => ancestor !== parent);
  if (higher.length > 0) {
    const heads = await Promise.all(
      higher.map((ancestor) => {
        const ancestorKey = keys.file(ancestor);
        return lookups.once(`HEAD ${ancestorKey}`, () => bucket.head(ancestorKey, call));
      }),
    );
    const index = heads.findIndex((head) => head !== null && !head.tombstone);
    if (index !== -1) fileAbove = higher[index];
  }
  return { file, tombstone, occupied, fileAbove };
}

/**
 * Every object at `path` or beneath it (the file, or the folder's files, stand-ins and foreign keys),
 * for a delete or a move: one listing for a file or a small folder.
 */
export async function region(space: SharedSpace, path: string, call: Call): Promise<ListedObject[]> {
  const { bucket } = space.backend;
  const key = space.keys.file(path);
  const page = await bucket.list(key, undefined, call);
  const own = ownKeys(page.objects, key);
  if (isComplete(page.truncated, page.objects, key)) return own;
  // Go on beneath the path from where the page stopped.
  const last = own.at(-1)?.key;
  const rest: ListedObject[] = [];
  const startAfter = last?.startsWith(`${key}/`) ? last : undefined;
  for await (const object of listObjects(bucket, `${key}/`, { call, startAfter })) rest.push(object);
  return [...own, ...rest];
}
