// The admin side of the filesystem driver, over the folders of a root: namespaces are the folders
// of `{base}/namespaces`, a drop first renames the namespace's folder out of every store's way (one
// rename: it is gone at once) and then removes the renamed tree in bounded batches, and a sweep
// expires files by their change time (ctime), which changes, renames and touching reads move.
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { type Dir, openFolder } from './dir.js';
import { HistoryLog } from './history-log.js';
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
export async function holdsAnything(dir: Dir): Promise<boolean> {
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
export async function listNamespaces(
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
export async function dropNamespace(
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
export async function staleFiles(memories: Dir, before: number, limit: number): Promise<string[]> {
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
