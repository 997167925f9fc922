// Every regular file beneath a folder, with its size: what a listing, a folder's delete and a
// recount of the totals walk. One lstat per file is the least the kernel allows (Node has no bulk
// stat), so the walk is about how those calls are made.
//
// Synchronously, in slices: on a local disk whose inodes are cached an lstat takes a few
// microseconds, while a trip through libuv's thread pool costs several times that in callbacks and
// waiting (measured on a loaded 2-core machine: 5 us against 11-16 us per file with 32 in flight).
// The walk yields to the event loop every SLICE_MS, so other work never waits long. When the disk
// itself has to be read (a cold cache: lstats take far longer), the files of the folders still to
// come go through the pool instead, COLD_CONCURRENCY at a time, so the event loop is never blocked
// on the disk.
import * as fs from 'node:fs';
import type { DriverEntry } from '@memdir/core';
import { asDriverPath, isHiddenName } from '@memdir/core/driver';
import { type Dir, openFolder } from './dir.js';
import { errno, lstatNow } from './sys.js';
import { holdsFile } from './tree.js';

/** The longest the walk keeps the event loop before it yields. */
const SLICE_MS = 2;
/** An average lstat slower than this (µs) means the disk is being read: go through the pool. */
const COLD_STAT_US = 100;
/** Synchronous lstats measured before the walk judges whether the cache is cold. */
const COLD_SAMPLE = 64;
/** System calls in flight at once through the pool beside this thread's: libuv's four threads busy. */
const POOL_IN_FLIGHT = 32;
/**
 * Folders with fewer files than this are looked up on this thread alone: the pool would save little
 * and cost a wait for its last answers (a trip through the pool, milliseconds on a busy machine).
 */
const POOL_FROM_FILES = 128;

/** The walk's clock: when to yield, and whether the disk answers from its cache. */
class Pace {
  #sliceStart = performance.now();
  #syncCalls = 0;
  #syncMs = 0;
  cold = false;

  constructor(readonly coldStatUs: number) {}

  /** Times one synchronous lstat (or readdir). */
  measure<T>(call: () => T): T {
    if (this.#syncCalls >= COLD_SAMPLE) return call();
    const started = performance.now();
    try {
      return call();
    } finally {
      this.#syncMs += performance.now() - started;
      if (++this.#syncCalls === COLD_SAMPLE && (this.#syncMs * 1000) / COLD_SAMPLE > this.coldStatUs) {
        this.cold = true;
      }
    }
  }

  /** Whether this slice has run long enough: the walk should yield. */
  get due(): boolean {
    return performance.now() - this.#sliceStart >= SLICE_MS;
  }

  async yield(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#sliceStart = performance.now();
  }
}

function readChildren(folder: Dir, pace: Pace): fs.Dirent[] {
  try {
    return pace.measure(() => fs.readdirSync(folder.self, { withFileTypes: true }));
  } catch (error) {
    // Removed since it was opened: as if the listing ran after that.
    if (errno(error) === 'ENOENT') return [];
    throw error;
  }
}

/** The size of regular file `name` in `folder`, or null when it is gone or no longer a file. */
function sizeNow(folder: Dir, name: string, pace: Pace): number | null {
  try {
    const info = pace.measure(() => lstatNow(folder.at(name)));
    return info.isFile() ? info.size : null;
  } catch (error) {
    if (errno(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The sizes of `names` in `folder` (null for one gone or no longer a file): this thread takes them
 * from the front synchronously while, in a folder of many files, the pool takes them from the back,
 * POOL_IN_FLIGHT at a time, until they meet; on a cold disk, the pool takes all that is left. Resolves once every call has
 * come back (the caller may close the folder their paths name only then).
 */
function sizesOf(folder: Dir, names: readonly string[], pace: Pace): Promise<(number | null)[]> {
  const sizes: (number | null)[] = new Array(names.length).fill(null);
  let front = 0;
  let back = names.length;
  let active = 0;
  let failure: { error: unknown } | undefined;
  let settle: (() => void) | undefined;
  const finished = () => active === 0 && (back <= front || failure !== undefined);
  const launch = () => {
    if (names.length < POOL_FROM_FILES && !pace.cold) return;
    while (active < POOL_IN_FLIGHT && back > front && failure === undefined) {
      const index = --back;
      active++;
      fs.lstat(folder.at(names[index]!), (error, info) => {
        active--;
        if (error && errno(error) !== 'ENOENT') failure ??= { error };
        else if (info?.isFile()) sizes[index] = info.size;
        launch();
        if (finished()) settle?.();
      });
    }
  };
  launch();
  return (async () => {
    try {
      while (front < back && !pace.cold) {
        const index = front++;
        sizes[index] = sizeNow(folder, names[index]!, pace);
        if (pace.due) await pace.yield();
      }
    } catch (error) {
      failure ??= { error };
    }
    // This thread stopped (done, failed, or the disk turned cold): the pool takes what is left.
    launch();
    if (!finished()) await new Promise<void>((resolve) => (settle = resolve));
    if (failure) throw failure.error;
    return sizes;
  })();
}

/**
 * Every regular file beneath `start` (whose driver path is `dir`) with its size. Links are never
 * listed or followed (SPEC section 8). With `skipHidden`, a hidden name is reported once (size 0)
 * and not walked: it only proves the folders above it exist, and not walking it keeps a large
 * `node_modules` or `.git` from slowing every listing. Depth first, so at most one folder per
 * level is open. Not a snapshot by itself: the caller checks that no move ran meanwhile. Does not
 * close `start`.
 */
export async function listFiles(
  start: Dir,
  dir: string,
  skipHidden: boolean,
  /** For tests: the average lstat (µs) past which the disk counts as cold. */
  coldStatUs = COLD_STAT_US,
): Promise<DriverEntry[]> {
  const found: DriverEntry[] = [];
  const pace = new Pace(coldStatUs);

  const scan = async (folder: Dir, path: string): Promise<void> => {
    const files: string[] = [];
    const folders: { name: string; hidden: boolean }[] = [];
    for (const child of readChildren(folder, pace)) {
      if (child.isSymbolicLink()) continue;
      const name = child.name;
      const hidden = skipHidden && isHiddenName(name);
      if (child.isFile()) {
        if (hidden) found.push({ path: asDriverPath(path === '' ? name : `${path}/${name}`), size: 0 });
        else files.push(name);
      } else if (child.isDirectory()) folders.push({ name, hidden });
    }
    if (files.length > 0) {
      const sizes = await sizesOf(folder, files, pace);
      for (let index = 0; index < files.length; index++) {
        const size = sizes[index]!;
        const name = files[index]!;
        if (size !== null) found.push({ path: asDriverPath(path === '' ? name : `${path}/${name}`), size });
      }
    }
    for (const { name, hidden } of folders) {
      const inner = await openFolder(folder, name);
      // Gone (or swapped for a link) since the folder was read: left out.
      if (typeof inner === 'string') continue;
      const childPath = path === '' ? name : `${path}/${name}`;
      try {
        if (!hidden) await scan(inner, childPath);
        else if (await holdsFile(inner)) found.push({ path: asDriverPath(childPath), size: 0 });
      } finally {
        inner.close();
      }
    }
  };

  await scan(start, dir);
  return found;
}
