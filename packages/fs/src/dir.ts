// Folders reached through open handles, one name at a time, never following a link.
//
// Node.js has no openat(2), but on Linux `/proc/self/fd/N/name` reaches `name` inside the folder
// that descriptor N holds, wherever that folder is now and whatever its path now leads to: the
// kernel jumps straight to the open folder and looks up only `name`. With O_NOFOLLOW (and
// O_DIRECTORY for folders) that lookup refuses a link, so checking a name and using it are one
// step, and a process that swaps a folder for a link between two calls changes nothing: the store
// keeps working in the folder it opened. rename, unlink, mkdir, rmdir and lstat never follow the
// last name of a path, so they name their folder the same way.
//
// Without /proc (macOS, the BSDs, a Linux with /proc unmounted), a handle also remembers the path
// it was opened by, and names are reached through that path: every name is still opened with
// O_NOFOLLOW, so a link placed beforehand is refused, but a process that swaps a folder on the way
// while a command runs can redirect that command (see the README).
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  closeNow,
  errno,
  lstatNow,
  O_DIRECTORY,
  O_NOFOLLOW,
  O_NONBLOCK,
  O_RDONLY,
  open,
  openNow,
} from './sys.js';

/** Whether `/proc/self/fd/N` reaches the folder descriptor N holds (checked once per process). */
let procfs: boolean | undefined;

function hasProcfs(): boolean {
  if (procfs !== undefined) return procfs;
  procfs = false;
  // MEMDIR_FS_NO_PROCFS=1 runs the portable mode on Linux too: its tests need it.
  if (process.platform !== 'linux' || process.env['MEMDIR_FS_NO_PROCFS'] === '1') return procfs;
  let fd: number | undefined;
  try {
    fd = fs.openSync('/', O_RDONLY | O_DIRECTORY);
    const held = fs.fstatSync(fd);
    const reached = fs.statSync(`/proc/self/fd/${fd}/.`);
    procfs = held.ino === reached.ino && held.dev === reached.dev;
  } catch {
    procfs = false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return procfs;
}

/** Whether names are reached through open folder handles (Linux), not through path strings. */
export function handlesAreExact(): boolean {
  return hasProcfs();
}

/** An open folder. Its owner closes it once nothing uses it any more. */
export class Dir {
  readonly #prefix: string;
  #closed = false;

  constructor(
    readonly fd: number,
    /** The path it was opened by: only for platforms without /proc, and never shown to anyone. */
    readonly path: string,
  ) {
    this.#prefix = hasProcfs() ? `/proc/self/fd/${fd}` : path;
  }

  /** A path that reaches the folder itself (for readdir). */
  get self(): string {
    return this.#prefix;
  }

  /** A path that reaches `name` inside this folder, not through any other folder's name. */
  at(name: string): string {
    return `${this.#prefix}/${name}`;
  }

  /** The handle of a folder opened inside this one. */
  child(fd: number, name: string): Dir {
    return new Dir(fd, join(this.path, name));
  }

  /** Closes the handle, once: a descriptor closed twice may by then be someone else's. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeNow(this.fd);
  }
}

/** Opens a folder given by a trusted path (the application's root; links on it are followed). */
export async function openTrusted(path: string): Promise<Dir> {
  return new Dir(await open(path, O_RDONLY | O_DIRECTORY), path);
}

/** What is at a name, links not followed. */
export type Kind = 'file' | 'directory' | 'link' | 'other';

/** What is at `name` in `dir` itself; null when nothing is. */
export async function kindAt(dir: Dir, name: string): Promise<Kind | null> {
  return (await entryAt(dir, name))?.kind ?? null;
}

/** What is at `name` in `dir` itself, with its size (a file's bytes); null when nothing is. */
export async function entryAt(dir: Dir, name: string): Promise<{ kind: Kind; size: number } | null> {
  try {
    const info = lstatNow(dir.at(name));
    return { kind: kindOf(info), size: info.size };
  } catch (error) {
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return null;
    throw error;
  }
}

export function kindOf(info: fs.Stats): Kind {
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'directory';
  return info.isSymbolicLink() ? 'link' : 'other';
}

/** Why a name could not be opened as a folder. */
export type NotAFolder = 'missing' | 'link' | 'file' | 'other';

/**
 * Opens folder `name` inside `dir`, refusing a link: the handle, or what is there instead. A link
 * to a folder fails O_DIRECTORY|O_NOFOLLOW with ENOTDIR, like a file: the lstat that follows only
 * tells the two apart for the refusal, nothing is done through it.
 */
export async function openFolder(dir: Dir, name: string): Promise<Dir | NotAFolder> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return dir.child(openNow(dir.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW), name);
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT') return 'missing';
      if (code === 'ELOOP') return 'link';
      if (code !== 'ENOTDIR') throw error;
    }
    const kind = await kindAt(dir, name);
    if (kind === null) return 'missing';
    // A folder again: something swapped it back in between. Look once more.
    if (kind !== 'directory') return kind;
  }
  // Something keeps swapping a folder and a link there.
  return 'link';
}

/**
 * Opens `name` inside `dir` for reading, whatever it is, refusing a link: a descriptor (of a file
 * or a folder), or why not. O_NONBLOCK: a FIFO someone left in the folder must not hang the store.
 */
export async function openEntry(dir: Dir, name: string): Promise<number | 'missing' | 'link' | 'other'> {
  try {
    return openNow(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = errno(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    if (code === 'ELOOP') return 'link';
    // A socket file cannot be opened (ENXIO); neither it nor a device is a memory file.
    if (code === 'ENXIO' || code === 'ENODEV') return 'other';
    throw error;
  }
}

/** Closes every handle in `dirs` (the ones a walk opened; the first, the memory folder, is not its own). */
export function closeAll(dirs: readonly Dir[]): void {
  for (const dir of dirs) dir.close();
}
