// The admin side of the S3 driver, over the keys of a prefix (keys.ts):
//
//   listNamespaces   the "folders" of `{base}namespaces/` (ListObjectsV2 with a delimiter: one entry
//                    per namespace however many objects it holds), each looked into once to see
//                    that it holds a file (or a version, or a nested namespace that does)
//   usage            the namespace's files listed, 1,000 a request: exact whoever wrote them (the
//                    quota totals are kept only while a store with a quota writes, and never below
//                    the truth, so they cannot answer for a namespace written without one)
//   dropNamespace    everything under the namespace's base deleted, 1,000 keys a DeleteObjects, the
//                    files and nested namespaces first and memdir's own objects (lease, journal,
//                    totals, history) last; each call lists what is left, so a crash between calls
//                    leaves work the next call finds

import type { DriverNamespacePage, DriverNamespaceQuery, DriverUsage } from '@memdir/core';
import { checkTime, validateNamespace } from '@memdir/core/driver';
import { PAGE_SIZE } from './bucket.js';
import type { Call } from './call.js';
import { countVersions } from './history/versions.js';
import { compareKeys, type KeySpace, pastEveryKeyBeneath } from './keys.js';
import { isListedTombstone, listObjects } from './listing.js';
import type { Space } from './space.js';

/** Namespaces one `listNamespaces` call looks into, at most (a page may then come back short). */
const LOOK_LIMIT = 1_000;
/** Namespaces looked into at once. */
const LOOK_CONCURRENCY = 16;
/** Keys a first look into a namespace's files asks for (a page of tombstones alone is rare). */
const FIRST_LOOK_KEYS = 10;
/**
 * Name characters that sort before `/` (`+`, `-`, `.`): S3 lists `t-a.1/` before `t-a/`, while names
 * sort `t-a` before `t-a.1`. Only a name that is a prefix of another, followed by one of these, is
 * listed out of the names' order.
 */
const BEFORE_SLASH = new Set(['+', '-', '.']);

/** A folder of `namespaces/` that a store could have made (another tool's are left out). */
function isNamespaceName(name: string): boolean {
  try {
    validateNamespace(name);
    return true;
  } catch {
    return false;
  }
}

/** Bytes are the order names compare in (they are ASCII). */
function byName(a: string, b: string): number {
  return compareKeys(a, b);
}

/** Runs `work` on every item, `LOOK_CONCURRENCY` at a time. */
async function eachAtOnce<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(LOOK_CONCURRENCY, items.length) }, worker));
}

/** Whether the namespace whose keys are `keys` holds a file, a version, or a nested namespace that does. */
export async function holdsAnything(space: Space, keys: KeySpace, call: Call): Promise<boolean> {
  const { bucket } = space.backend;
  const isFile = (object: { key: string; size: number; etag: string }) =>
    !isListedTombstone(object) && keys.pathOf(object.key) !== undefined;
  const first = await bucket.list(keys.files, undefined, call, FIRST_LOOK_KEYS);
  if (first.objects.some(isFile)) return true;
  const last = first.objects.at(-1);
  if (first.truncated && last !== undefined) {
    for await (const object of listObjects(bucket, keys.files, { call, startAfter: last.key }))
      if (isFile(object)) return true;
  }
  // Versions of deleted files (history) are something a namespace holds.
  if ((await bucket.list(`${keys.memdir}history/`, undefined, call, 1)).objects.length > 0) return true;
  for (let token: string | undefined, more = true; more; more = token !== undefined) {
    const page = await bucket.listFolders(keys.namespaces, { token }, call);
    for (const folder of page.folders) {
      if (await holdsAnything(space, keys.child(folder.slice(keys.namespaces.length, -1)), call)) return true;
    }
    token = page.token;
  }
  return false;
}

/**
 * The namespaces directly below `space` that hold anything, in the names' byte order (see the
 * driver contract). S3 lists the folders in key order, which differs from the names' order only
 * for a name that another extends with `+`, `-` or `.` (see {@link BEFORE_SLASH}): such prefixes
 * of the names seen are looked up on their own, so no name is missed or given out of order.
 */
export async function listNamespaces(
  space: Space,
  query: DriverNamespaceQuery,
  call: Call,
): Promise<DriverNamespacePage> {
  const { bucket } = space.backend;
  const { keys } = space;
  const root = keys.namespaces;
  const prefix = query.prefix ?? '';
  const { after, limit } = query;
  const wanted = (name: string) =>
    isNamespaceName(name) && name.startsWith(prefix) && (after === undefined || byName(name, after) > 0);
  const seen = new Set<string>();
  const holding: string[] = [];
  const look = async (name: string) => {
    if (await holdsAnything(space, keys.child(name), call)) holding.push(name);
  };

  // Every name after `after` has a key after `{root}{after}` (its own folder is filtered out).
  let from: { startAfter?: string; token?: string } = {
    startAfter: after !== undefined && byName(after, prefix) > 0 ? root + after : undefined,
  };
  let exhausted = false;
  while (holding.length <= limit && seen.size < LOOK_LIMIT) {
    const page = await bucket.listFolders(root + prefix, from, call);
    const names = page.folders
      .map((folder) => folder.slice(root.length, -1))
      .filter((name) => wanted(name) && !seen.has(name));
    // Looked into a few at a time, no more than the page still needs: a page of 2 out of 1,000
    // namespaces looks into 3 (and the prefixes below).
    let looked = 0;
    while (looked < names.length && holding.length <= limit && seen.size < LOOK_LIMIT) {
      const take = Math.min(limit + 1 - holding.length, names.length - looked, LOOK_LIMIT - seen.size);
      const chunk = names.slice(looked, looked + take);
      looked += take;
      for (const name of chunk) seen.add(name);
      await eachAtOnce(chunk, look);
      checkTime(call);
    }
    if (looked < names.length) break;
    if (page.token === undefined) {
      exhausted = true;
      break;
    }
    from = { token: page.token };
  }

  // Names listed after a longer name they are a prefix of: looked up one by one.
  const prefixes = new Set<string>();
  for (const name of seen) {
    for (let end = prefix.length; end < name.length; end++) {
      const shorter = name.slice(0, end);
      if (BEFORE_SLASH.has(name[end]!) && wanted(shorter) && !seen.has(shorter)) prefixes.add(shorter);
    }
  }
  const lookups = [...prefixes];
  for (const name of lookups) seen.add(name);
  await eachAtOnce(lookups, look);

  holding.sort(byName);
  if (holding.length > limit) {
    const names = holding.slice(0, limit);
    return { names, next: names[names.length - 1]! };
  }
  if (exhausted) return { names: holding, next: null };
  // Looked into LOOK_LIMIT names without filling the page: every name up to the greatest seen is known.
  const greatest = [...seen].sort(byName).at(-1)!;
  return { names: holding, next: greatest };
}

/**
 * What the namespace holds, from a listing of its files (one request per 1,000 files): files and
 * bytes, and the newest Last-Modified among them as the time of the last change; `versions` from a
 * listing of its version objects (history/versions.ts).
 */
export async function usage(space: Space, call: Call): Promise<DriverUsage> {
  const { keys } = space;
  // Beside the files' listing: the history's (one round trip for both below 1,000 each).
  const versions = countVersions(space, call);
  versions.catch(() => {});
  let files = 0;
  let bytes = 0;
  let lastChangeAt: number | null = null;
  for await (const object of listObjects(space.backend.bucket, keys.files, { call })) {
    // A move's stand-in is no file, but writing it was part of a change.
    if (object.modified !== undefined && (lastChangeAt === null || object.modified > lastChangeAt))
      lastChangeAt = object.modified;
    if (isListedTombstone(object) || keys.pathOf(object.key) === undefined) continue;
    files++;
    bytes += object.size;
  }
  return { files, bytes, versions: await versions, lastChangeAt };
}

/**
 * Deletes at most `batch` objects of namespace `name` below `space`: first what sorts after its
 * `.memdir/` (files, nested namespaces), then the rest (memdir's own objects, with the lease: a
 * change half done under it finds no files to finish). Done once nothing is left under its base.
 */
export async function dropNamespace(
  space: Space,
  name: string,
  batch: number,
  call: Call,
): Promise<{ removed: number; done: boolean }> {
  const { backend } = space;
  const { bucket } = backend;
  const dropped = space.keys.child(name);
  const base = dropped.base;
  let budget = Math.max(1, Math.floor(batch));
  let removed = 0;
  const pass = async (startAfter: string | undefined): Promise<boolean> => {
    while (budget > 0) {
      const page = await bucket.list(base, startAfter, call, Math.min(budget, PAGE_SIZE));
      const keys = page.objects.map((object) => object.key);
      if (keys.length > 0) await bucket.deleteMany(keys, call);
      removed += keys.length;
      budget -= keys.length;
      checkTime(call);
      if (!page.truncated) return true;
    }
    return false;
  };
  const done = (await pass(pastEveryKeyBeneath(dropped.memdir))) && (await pass(undefined));
  // This process forgets what it knew of the namespace, so its next change starts afresh.
  backend.known.forgetBeneath(base);
  backend.forget(dropped);
  return { removed, done };
}
