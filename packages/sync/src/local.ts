// The local side: a walk of DIR that never follows a symlink and never leaves DIR, reads that
// refuse anything but a regular file, and changes that replace a file whole (temp in the state
// folder, fsync, rename) after checking that nothing on the way is a symlink.
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { type FileHandle, lstat, mkdir, open, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncFolder, STATE_DIR, stateDir } from './state.js';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A regular file found by the walk (not yet read). */
export interface LocalEntry {
  readonly rel: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Something the walk will not sync, and why. */
export interface LocalRefusal {
  readonly rel: string;
  readonly reason: string;
  readonly fingerprint: string;
}

/** Every regular file beneath DIR, by relative path with `/`; symlinks and special files refused. */
export function walk(dir: string): { files: LocalEntry[]; refused: LocalRefusal[] } {
  const files: LocalEntry[] = [];
  const refused: LocalRefusal[] = [];
  const visit = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (prefix === '' && entry.name === STATE_DIR) continue;
      const rel = prefix + entry.name;
      const full = join(folder, entry.name);
      let stat: ReturnType<typeof lstatSync>;
      try {
        stat = lstatSync(full);
      } catch {
        continue; // gone since the listing
      }
      const fingerprint = `${stat.size}:${stat.mtimeMs}`;
      if (prefix === '' && entry.name.toLowerCase() === STATE_DIR) {
        refused.push({
          rel,
          reason: `its name is ${STATE_DIR}, the sync state folder, in other case`,
          fingerprint,
        });
      } else if (entry.name.includes('\uFFFD')) {
        refused.push({ rel, reason: 'its name is not UTF-8', fingerprint });
      } else if (stat.isSymbolicLink()) {
        refused.push({ rel, reason: 'it is a symbolic link (never followed)', fingerprint });
      } else if (stat.isDirectory()) {
        visit(full, `${rel}/`);
      } else if (stat.isFile()) {
        files.push({ rel, size: stat.size, mtimeMs: stat.mtimeMs });
      } else {
        refused.push({ rel, reason: 'it is not a regular file', fingerprint });
      }
    }
  };
  visit(dir, '');
  return { files, refused };
}

/** What a read of a local file gave. */
export type LocalRead =
  | {
      readonly ok: true;
      readonly text: string;
      readonly sha256: string;
      readonly size: number;
      readonly mtimeMs: number;
    }
  | { readonly ok: false; readonly reason: string; readonly fingerprint: string }
  | { readonly ok: false; readonly gone: true };

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads DIR/rel without following a symlink, blocking on a FIFO, or reading past `maxBytes`. */
export function readLocal(dir: string, rel: string, maxBytes: number): LocalRead {
  let fd: number;
  try {
    fd = openSync(join(dir, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, gone: true };
    return { ok: false, reason: `it cannot be read (${code})`, fingerprint: String(code) };
  }
  try {
    const stat = fstatSync(fd);
    const fingerprint = `${stat.size}:${stat.mtimeMs}`;
    if (!stat.isFile()) return { ok: false, reason: 'it is not a regular file', fingerprint };
    if (stat.size > maxBytes) {
      return { ok: false, reason: `it is ${stat.size} bytes, over the limit of ${maxBytes}`, fingerprint };
    }
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    let text: string;
    try {
      text = fatalUtf8.decode(buffer.subarray(0, read));
    } catch {
      return { ok: false, reason: 'it is not UTF-8 text', fingerprint };
    }
    return { ok: true, text, sha256: sha256Hex(text), size: read, mtimeMs: stat.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Whether every folder on the way to DIR/rel is a real folder (made when missing), never a symlink. */
function prepareParents(dir: string, rel: string): boolean {
  const segments = rel.split('/').slice(0, -1);
  let folder = dir;
  for (const segment of segments) {
    folder = join(folder, segment);
    try {
      const stat = lstatSync(folder);
      if (!stat.isDirectory()) return false;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      mkdirSync(folder);
    }
  }
  return true;
}

/** The local file's state just before a change: its SHA-256, null when absent, false when not a plain file. */
export function currentSha(dir: string, rel: string, maxBytes: number): string | null | false {
  const read = readLocal(dir, rel, maxBytes);
  if (read.ok) return read.sha256;
  return 'gone' in read ? null : false;
}

/**
 * Replaces DIR/rel with `text` whole (temp in the state folder, fsync, rename, fsync of the folder).
 * @returns the file's size and mtime after, or null when the way there is not a plain folder.
 */
export function writeLocal(dir: string, rel: string, text: string): { size: number; mtimeMs: number } | null {
  const written = replaceLocal(dir, rel, text);
  if (written !== null) {
    fsyncFile(join(dir, rel));
    fsyncFolder(join(dir, ...rel.split('/').slice(0, -1)));
  }
  return written;
}

/** Whether DIR/rel may be replaced: every folder on the way a real folder (made when missing), and
 * the file itself absent or a plain file (never a symlink). */
function mayReplace(dir: string, rel: string): boolean {
  if (!prepareParents(dir, rel)) return false;
  try {
    return lstatSync(join(dir, rel)).isFile();
  } catch {
    return true; // absent: fine
  }
}

function tempPath(dir: string): string {
  return join(stateDir(dir), 'tmp', `d-${process.pid}-${Math.random().toString(36).slice(2)}`);
}

/**
 * Replaces DIR/rel with `text` whole (temp in the state folder, rename), without waiting for the
 * disk: the caller makes it durable with {@link makeDurable} before any baseline names it. Still
 * whole or absent to every reader and after a killed process; only a power loss before
 * `makeDurable` can lose it, and then no baseline says it was there.
 * @returns the file's size and mtime after, or null when the way there is not a plain folder.
 */
export function replaceLocal(
  dir: string,
  rel: string,
  text: string,
): { size: number; mtimeMs: number } | null {
  if (!mayReplace(dir, rel)) return null;
  const target = join(dir, rel);
  mkdirSync(join(stateDir(dir), 'tmp'), { recursive: true });
  const temp = tempPath(dir);
  writeFileSync(temp, text, { flag: 'wx', mode: 0o644 });
  renameSync(temp, target);
  const after = lstatSync(target);
  return { size: after.size, mtimeMs: after.mtimeMs };
}

/**
 * {@link replaceLocal} with the file's creation, write and rename made off the event loop, so
 * that several downloads are written while the store's answers keep arriving. The way there is
 * checked (and its folders made) at once, before the call returns its promise.
 */
export function replaceLocalAsync(
  dir: string,
  rel: string,
  text: string,
): Promise<{ size: number; mtimeMs: number } | null> {
  if (!mayReplace(dir, rel)) return Promise.resolve(null);
  return writeAndRename(dir, join(dir, rel), text);
}

async function writeAndRename(
  dir: string,
  target: string,
  text: string,
): Promise<{ size: number; mtimeMs: number }> {
  const temp = tempPath(dir);
  try {
    await writeFile(temp, text, { flag: 'wx', mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // The temporary folder is made once a pass (a pass starts by removing it), not for every file.
    await mkdir(join(stateDir(dir), 'tmp'), { recursive: true });
    await writeFile(temp, text, { flag: 'wx', mode: 0o644 });
  }
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  const after = await lstat(target);
  return { size: after.size, mtimeMs: after.mtimeMs };
}

function fsyncFile(path: string): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsyncs at once: a disk commits concurrent fsyncs together, where one after another each waits. */
const FSYNC_CONCURRENCY = 16;

async function fsyncPath(path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return; // replaced or removed since
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the files DIR/rels written by {@link replaceLocal}, and their folders, durable. */
export async function makeDurable(dir: string, rels: readonly string[]): Promise<void> {
  const folders = new Set(rels.map((rel) => join(dir, ...rel.split('/').slice(0, -1))));
  const paths = [...rels.map((rel) => join(dir, rel)), ...folders];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) await fsyncPath(paths[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(FSYNC_CONCURRENCY, paths.length) }, worker));
}

/** Removes DIR/rel (a plain file only). */
export function removeLocal(dir: string, rel: string): void {
  const target = join(dir, rel);
  const stat = lstatSync(target);
  if (!stat.isFile()) return;
  unlinkSync(target);
  fsyncFolder(join(dir, ...rel.split('/').slice(0, -1)));
}
