// The admin side of the filesystem driver, over the folders of a root: namespaces are the folders
// of `{base}/namespaces`, a drop first renames the namespace's folder out of every store's way (one
// rename: it is gone at once) and then removes the renamed tree in bounded batches, and a sweep
// expires files by their change time (ctime), which changes, renames and touching reads move. The
// admin methods of the driver are at the end: the listing, usage, the drop and the sweep.
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import type {
  DriverCallOptions,
  DriverDropOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverSweepOptions,
  DriverUsage,
} from '@memdir/core';
import { prunable, validateNamespace } from '@memdir/core/driver';
import type { FolderCalls } from './calls.js';
import { type Dir, openFolder } from './dir.js';
import { compact } from './history/compact.js';
import { HistoryLog } from './history/log.js';
import { Recorder } from './history/recorder.js';
import { ChangeHook } from './records/hook.js';
import { removeLocked } from './remove.js';
import { errno, lstat, readdir, rename, rmdir, unlink } from './sys.js';
import { holdsFile } from './tree.js';

/** How many namespaces one `listNamespaces` call looks into, at most (a page may then come back short). */
const LOOK_LIMIT = 1_000;

/** A dropped namespace's folder while it is removed: `.drop~{name}~{random}` (no name has `~` or a leading `.`). */
function trashPrefix(name: string): string {
  return `.drop~${name}~`;
}

async function children(dir: Dir): Promise<Dirent[]> {
  try {
    return await readdir(dir.self);
  } catch (error) {
    if (errno(error) === 'ENOENT') return [];
    throw error;
  }
}

/** Whether the namespace folder `dir` holds anything: a file, a version, or a namespace that does. */
async function holdsAnything(dir: Dir): Promise<boolean> {
  const memories = await openFolder(dir, 'memories');
  if (typeof memories !== 'string') {
    try {
      if (await holdsFile(memories)) return true;
    } finally {
      memories.close();
    }
  }
  const memdir = await openFolder(dir, '.memdir');
  if (typeof memdir !== 'string') {
    // Read from outside the lock: a line being written is not read, nothing is cut.
    const history = new HistoryLog(memdir, true);
    try {
      await history.refresh();
      if (history.index.size > 0) return true;
    } finally {
      history.close();
      memdir.close();
    }
  }
  const nested = await openFolder(dir, 'namespaces');
  if (typeof nested === 'string') return false;
  try {
    for (const child of await children(nested)) {
      if (!child.isDirectory() || child.name.startsWith('.')) continue;
      const inner = await openFolder(nested, child.name);
      if (typeof inner === 'string') continue;
      try {
        if (await holdsAnything(inner)) return true;
      } finally {
        inner.close();
      }
    }
  } finally {
    nested.close();
  }
  return false;
}

/** The namespaces in `base/namespaces` that hold anything, a page at a time (see the driver contract). */
async function namespacesBelow(
  base: Dir,
  query: {
    readonly prefix?: string | undefined;
    readonly after?: string | undefined;
    readonly limit: number;
  },
): Promise<{ names: string[]; next: string | null }> {
  const spaces = await openFolder(base, 'namespaces');
  if (typeof spaces === 'string') return { names: [], next: null };
  try {
    const prefix = query.prefix ?? '';
    const after = query.after;
    // Names are ASCII, so UTF-16 order is byte order.
    const candidates = (await children(spaces))
      .filter((child) => child.isDirectory() && !child.name.startsWith('.'))
      .map((child) => child.name)
      .filter((name) => name.startsWith(prefix) && (after === undefined || name > after))
      .sort();
    const names: string[] = [];
    for (let index = 0; index < candidates.length; index++) {
      const name = candidates[index]!;
      if (names.length === query.limit || index === LOOK_LIMIT) {
        return { names, next: candidates[index - 1]! };
      }
      const inner = await openFolder(spaces, name);
      if (typeof inner === 'string') continue;
      try {
        if (await holdsAnything(inner)) names.push(name);
      } finally {
        inner.close();
      }
    }
    return { names, next: null };
  } finally {
    spaces.close();
  }
}

/**
 * Removes at most `budget` entries (files, links, emptied folders) of the tree `name` in `dir`,
 * deepest first, the tree's own folder last. Returns how many it removed and whether it is gone.
 */
async function removeSome(
  dir: Dir,
  name: string,
  budget: number,
): Promise<{ removed: number; gone: boolean }> {
  const inner = await openFolder(dir, name);
  if (inner === 'missing') return { removed: 0, gone: true };
  if (typeof inner === 'string') {
    await unlink(dir.at(name)).catch(ignoreMissing);
    return { removed: 1, gone: true };
  }
  let removed = 0;
  try {
    for (const child of await children(inner)) {
      if (removed >= budget) return { removed, gone: false };
      if (child.isDirectory()) {
        const below = await removeSome(inner, child.name, budget - removed);
        removed += below.removed;
        if (!below.gone) return { removed, gone: false };
      } else {
        await unlink(inner.at(child.name)).catch(ignoreMissing);
        removed++;
      }
    }
  } finally {
    inner.close();
  }
  if (removed >= budget) return { removed, gone: false };
  await rmdir(dir.at(name)).catch(ignoreMissing);
  return { removed: removed + 1, gone: true };
}

function ignoreMissing(error: unknown): void {
  if (errno(error) !== 'ENOENT') throw error;
}

/**
 * One batch of dropping namespace `name` below `base`: its folder renamed away first (when it holds
 * anything), then what a drop of it left (this one's, or one a crash interrupted) removed, at most
 * `batch` entries. A namespace that holds nothing is left as it is.
 */
async function dropBelow(
  base: Dir,
  name: string,
  batch: number,
): Promise<{ removed: number; done: boolean }> {
  const spaces = await openFolder(base, 'namespaces');
  if (typeof spaces === 'string') return { removed: 0, done: true };
  try {
    const live = await openFolder(spaces, name);
    if (typeof live !== 'string') {
      let holds: boolean;
      try {
        holds = await holdsAnything(live);
      } finally {
        live.close();
      }
      if (holds) {
        const trash = `${trashPrefix(name)}${randomBytes(6).toString('hex')}`;
        await rename(spaces.at(name), spaces.at(trash)).catch(ignoreMissing);
      }
    }
    let removed = 0;
    let done = true;
    for (const child of await children(spaces)) {
      if (!child.name.startsWith(trashPrefix(name))) continue;
      if (removed >= batch) {
        done = false;
        break;
      }
      const step = await removeSome(spaces, child.name, batch - removed);
      removed += step.removed;
      if (!step.gone) done = false;
    }
    return { removed, done };
  } finally {
    spaces.close();
  }
}

/**
 * Files beneath `memories` whose change time (the later of their last change, move and touching
 * read: all move ctime) is before `before`, at most `limit`, as driver paths.
 */
async function staleFiles(memories: Dir, before: number, limit: number): Promise<string[]> {
  const found: string[] = [];
  const scan = async (folder: Dir, path: string): Promise<void> => {
    for (const child of await children(folder)) {
      if (found.length >= limit) return;
      const childPath = path === '' ? child.name : `${path}/${child.name}`;
      if (child.isFile()) {
        const info = await lstat(folder.at(child.name)).catch(() => null);
        // In whole milliseconds, as the server's clock (Date.now()) counts.
        if (info?.isFile() && Math.floor(Math.max(info.ctimeMs, info.mtimeMs)) < before)
          found.push(childPath);
      } else if (child.isDirectory()) {
        const inner = await openFolder(folder, child.name);
        if (typeof inner === 'string') continue;
        try {
          await scan(inner, childPath);
        } finally {
          inner.close();
        }
      }
    }
  };
  await scan(memories, '');
  return found;
}

// --- the admin methods of the driver ----------------------------------------------------------------

/** The namespaces below the driver's folder that hold anything, a page at a time. */
export function listNamespaces(
  calls: FolderCalls,
  query: DriverNamespaceQuery,
  _options?: DriverCallOptions,
): Promise<DriverNamespacePage> {
  return calls.guard('listNamespaces', false, () =>
    calls.onBase({ names: [], next: null }, (base) => namespacesBelow(base, query)),
  );
}

export async function usage(calls: FolderCalls, options?: DriverCallOptions): Promise<DriverUsage> {
  // A namespace nothing was ever written to (or one just dropped) has no `.memdir`: it holds
  // nothing, and looking makes none.
  const written = await calls.guard('usage', false, () =>
    calls.onBase(
      false,
      async (base) => typeof (await openFolder(base, '.memdir').then(closeDir)) !== 'string',
    ),
  );
  if (!written) return { files: 0, bytes: 0, versions: 0, lastChangeAt: null };
  return calls.change('usage', options ?? {}, async (generation) => {
    const totals = await generation.totals!.current(generation.memories!, calls.backend.log);
    return {
      files: totals.files,
      bytes: totals.bytes,
      versions: generation.history.index.size,
      lastChangeAt: generation.totals!.lastChangeAt(),
    };
  });
}

export function dropNamespace(
  calls: FolderCalls,
  name: string,
  options: DriverDropOptions,
): Promise<{ removed: number; done: boolean }> {
  try {
    validateNamespace(name);
  } catch (error) {
    return Promise.reject(error);
  }
  return calls.guard('dropNamespace', true, () =>
    calls.onBase({ removed: 0, done: true }, (base) => dropBelow(base, name, options.batch)),
  );
}

/** Expiry first (each expired file a removal of its own), then retention, within one budget. */
export function sweep(
  calls: FolderCalls,
  options: DriverSweepOptions,
): Promise<{ expired: number; pruned: number; done: boolean }> {
  const { record, ...rest } = options;
  return calls.change('sweep', rest, async (generation, call) => {
    let budget = options.batch;
    let expired = 0;
    const history = generation.history;
    if (options.expireBefore !== undefined) {
      for (const path of await staleFiles(generation.memories!, options.expireBefore, budget)) {
        // Each expiry is a removal of its own, recorded as one, by the service.
        const recorder = record && new Recorder(history, record, options.op);
        const hook = new ChangeHook(generation, recorder);
        let removal: Awaited<ReturnType<typeof removeLocked>>;
        try {
          removal = await removeLocked(generation, path, { ...call, history: hook });
        } finally {
          hook.finish();
        }
        if (removal.removed) expired++;
        budget--;
      }
    }
    let pruned = 0;
    if (options.retention && budget > 0) {
      const now = options.now ?? Date.now();
      const doomed: string[] = [];
      for (const fileId of history.index.fileIds()) {
        if (doomed.length >= budget) break;
        const versions = history.index.versionsOf(fileId);
        for (const index of prunable(versions, options.retention, now, budget - doomed.length)) {
          doomed.push(versions[index]!.id);
        }
      }
      if (doomed.length > 0) {
        history.begin({ versions: [], pruned: doomed });
        history.end(true);
        await compact(generation, calls.backend.log);
      }
      pruned = doomed.length;
      budget -= pruned;
    }
    return { expired, pruned, done: budget > 0 };
  });
}

/** Closes a folder `openFolder` opened, passing on what it was. */
function closeDir(opened: Dir | string): Dir | string {
  if (typeof opened !== 'string') opened.close();
  return opened;
}
