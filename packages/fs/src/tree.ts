// Walking the memory folder through open handles (see dir.ts): resolving a driver path, reading a
// file, listing, and removing, each one name at a time, so no link is ever followed.

import type { Dirent } from 'node:fs';
import { closeAll, type Dir, type NotAFolder, openFolder } from './dir.js';
import { errno, fstat, read, readdir, rmdir, settleAll, unlink } from './sys.js';

/** The folders on the way to a driver path's last name, opened one by one from the memory folder. */
export interface Walk {
  /** `folders[i]` holds the folder named by the first `i` segments; `folders[0]` is the memory folder. */
  readonly folders: Dir[];
  /** Where the walk stopped short of the parent (the index of the segment), and why. */
  readonly stop?: { readonly depth: number; readonly reason: NotAFolder } | undefined;
  /** The parent of the last name, when the walk reached it. */
  readonly parent: Dir | undefined;
}

/**
 * Opens the folders of `segments` except the last, from `root`. Stops at the first that is missing,
 * a link, or not a folder. Close the handles with {@link closeWalk}.
 */
export async function walk(root: Dir, segments: readonly string[]): Promise<Walk> {
  const folders = [root];
  try {
    for (let depth = 0; depth < segments.length - 1; depth++) {
      const next = await openFolder(folders[depth]!, segments[depth]!);
      if (typeof next === 'string') return { folders, stop: { depth, reason: next }, parent: undefined };
      folders.push(next);
    }
  } catch (error) {
    closeAll(folders.slice(1));
    throw error;
  }
  return { folders, parent: folders.at(-1) };
}

/** Closes what {@link walk} opened (not the memory folder it started from). */
export function closeWalk(walked: Walk): void {
  closeAll(walked.folders.slice(1));
}

const READ_CHUNK = 64 * 1024;

/** What {@link readText} finds where it expected a file: a folder. */
export const FOLDER = Symbol('folder');

/** A file's content as read: the text, and its size on disk (the bytes the totals count). */
export interface FileText {
  readonly content: string;
  readonly bytes: number;
}

/**
 * The content of the open descriptor `fd` as UTF-8, {@link FOLDER} for a folder, or null when it is
 * neither a regular file nor a folder. One read call for files up to 64 KiB: views are the most
 * frequent command, and every call is a trip through the thread pool. Does not close `fd`.
 */
export async function readText(fd: number): Promise<FileText | typeof FOLDER | null> {
  try {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const bytesRead = await read(fd, buffer, 0, READ_CHUNK);
      chunks.push(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
      // A short read ends a regular file. An empty one may also be a FIFO or a device: look.
      if (bytesRead === 0 && chunks.length === 1 && !(await fstat(fd)).isFile()) return null;
      if (bytesRead < READ_CHUNK) break;
      // A long one: make sure this is a regular file before reading on (a device such as /dev/zero
      // would never end), then read the rest in one go.
      if (chunks.length === 1) {
        const info = await fstat(fd);
        if (!info.isFile()) return null;
        if (info.size > READ_CHUNK) {
          const rest = Buffer.allocUnsafe(info.size - READ_CHUNK);
          const more = await read(fd, rest, 0, rest.length);
          chunks.push(rest.subarray(0, more));
          bytes += more;
          if (more < rest.length) break;
        }
      }
    }
    const content =
      chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    return { content, bytes };
  } catch (error) {
    if (errno(error) === 'EISDIR') return FOLDER;
    // A FIFO with a writer, opened without blocking.
    if (errno(error) === 'EAGAIN') return null;
    throw error;
  }
}

/**
 * Whether a regular file lies anywhere beneath `folder` (hidden ones count). A folder without one
 * is no directory (SPEC section 3): a crash, or someone else, left it empty.
 */
export async function holdsFile(folder: Dir): Promise<boolean> {
  const children = await readdirOrNothing(folder);
  if (children.some((child) => child.isFile())) return true;
  for (const child of children) {
    if (!child.isDirectory()) continue;
    const inner = await openFolder(folder, child.name);
    if (typeof inner === 'string') continue;
    try {
      if (await holdsFile(inner)) return true;
    } finally {
      inner.close();
    }
  }
  return false;
}

async function readdirOrNothing(folder: Dir): Promise<Dirent[]> {
  try {
    return await readdir(folder.self);
  } catch (error) {
    if (errno(error) === 'ENOENT') return [];
    throw error;
  }
}

/** Runs at most `limit` calls at once: enough to keep libuv's thread pool busy, no more. */
function limiter(limit: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

// Calls in flight at once while removing a tree.
const REMOVE_CONCURRENCY = 64;
/**
 * Removes `name` inside `dir` and everything beneath it, one name at a time through handles: a
 * link met on the way is removed itself, never followed (Node's `rm` re-walks path strings, which
 * a swapped link would redirect).
 */
export async function removeTree(dir: Dir, name: string): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await unlink(dir.at(name));
      return;
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT') return;
      if (code !== 'EISDIR' && code !== 'EPERM') throw error;
    }
    const inner = await openFolder(dir, name);
    if (inner === 'missing') return;
    if (typeof inner === 'string') continue; // swapped for something else: unlink it
    try {
      const children = await readdirOrNothing(inner);
      const limit = limiter(REMOVE_CONCURRENCY);
      await settleAll(children.map((child) => limit(() => removeTree(inner, child.name))));
    } finally {
      inner.close();
    }
    try {
      await rmdir(dir.at(name));
      return;
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT') return;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
    }
  }
}

/**
 * Removes folder `name` inside `dir` if it holds only folders (no file, link or anything else at
 * any depth): such a folder is no directory (SPEC section 3), and a write or move may take its
 * name. Returns false, removing nothing that matters, when something else is inside.
 */
export async function removeEmptyFolders(dir: Dir, name: string): Promise<boolean> {
  const inner = await openFolder(dir, name);
  if (inner === 'missing') return true;
  if (typeof inner === 'string') return false;
  try {
    for (const child of await readdirOrNothing(inner)) {
      if (!child.isDirectory() || !(await removeEmptyFolders(inner, child.name))) return false;
    }
  } finally {
    inner.close();
  }
  try {
    await rmdir(dir.at(name));
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return true;
    if (errno(error) === 'ENOTEMPTY' || errno(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Removes the folders of `walked` that a removal or a move left empty, deepest first, up to (not
 * including) the memory folder. An rmdir names its folder through the handle of the folder above,
 * so a link swapped in on the way is not followed (rmdir refuses a link anyway).
 */
export async function pruneEmpty(walked: Walk, segments: readonly string[]): Promise<void> {
  for (let depth = walked.folders.length - 1; depth >= 1; depth--) {
    try {
      await rmdir(walked.folders[depth - 1]!.at(segments[depth - 1]!));
    } catch {
      return; // not empty (or gone): everything above is still needed
    }
  }
}
