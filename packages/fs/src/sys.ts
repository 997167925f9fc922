// The system calls the store makes. Content (read, write, fsync) and changes (rename, unlink, mkdir,
// rmdir, links) go through libuv's thread pool, as promises over Node's callback API (which skips
// the FileHandle bookkeeping of `fs/promises`). Looking a name up (open with O_NOFOLLOW, lstat) and
// closing are synchronous: on a local disk they take a few microseconds, where a trip through the
// thread pool takes ten times that on a loaded machine (measured: openat of a folder through
// /proc/self/fd 4-5 us synchronous, 40-65 us awaited), and a command makes one per path segment.
import * as fs from 'node:fs';

const { constants } = fs;

/** Flags of open(2); 0 where the platform lacks one (O_NOFOLLOW and O_DIRECTORY on Windows). */
export const O_RDONLY = constants.O_RDONLY;
export const O_WRONLY = constants.O_WRONLY;
export const O_RDWR = constants.O_RDWR;
export const O_CREAT = constants.O_CREAT;
export const O_EXCL = constants.O_EXCL;
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
export const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
export const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Modes of what the store creates, whatever the umask: private to the owner. */
export const FILE_MODE = 0o600;
export const FOLDER_MODE = 0o700;

type Callback<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

function call<T>(run: (callback: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    run((error, value) => (error ? reject(error) : resolve(value)));
  });
}

export const open = (path: string, flags: number, mode = 0o600) =>
  call<number>((done) => fs.open(path, flags, mode, done));

/** Closes `fd`: nothing uses the number afterwards, and a close cannot fail usefully. */
export function closeNow(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {}
}

/** Opens a name (see the top of this file: a lookup, synchronous). */
export function openNow(path: string, flags: number): number {
  return fs.openSync(path, flags);
}

/** What is at a path itself (a lookup, synchronous). */
export function lstatNow(path: string): fs.Stats {
  return fs.lstatSync(path);
}

/**
 * Reads up to `buffer.length` bytes at `position` (a small record kept in the page cache, such as
 * the totals: synchronous, like a lookup).
 */
export function preadNow(fd: number, buffer: Buffer, position: number): number {
  return fs.readSync(fd, buffer, 0, buffer.length, position);
}

/** Writes all of `data` at `position` in one call (a small record: one page, never torn by a crash). */
export function pwriteNow(fd: number, data: Buffer, position: number): void {
  const written = fs.writeSync(fd, data, 0, data.length, position);
  if (written !== data.length) throw new Error(`short write of a ${data.length}-byte record`);
}

export const read = (fd: number, buffer: Buffer, offset: number, length: number) =>
  call<number>((done) => fs.read(fd, buffer, offset, length, null, done));

export async function writeAll(fd: number, data: Buffer): Promise<void> {
  for (let offset = 0; offset < data.length; ) {
    offset += await call<number>((done) => fs.write(fd, data, offset, data.length - offset, null, done));
  }
}

export const fsync = (fd: number) => call<void>((done) => fs.fsync(fd, done));
export const fstat = (fd: number) => call<fs.Stats>((done) => fs.fstat(fd, done));
export const lstat = (path: string) => call<fs.Stats>((done) => fs.lstat(path, done));
export const readdir = (path: string) =>
  call<fs.Dirent[]>((done) => fs.readdir(path, { withFileTypes: true }, done));
export const mkdir = (path: string, mode: number) =>
  call<void>((done) => fs.mkdir(path, { mode }, (error) => done(error, undefined)));
export const rename = (from: string, to: string) => call<void>((done) => fs.rename(from, to, done));
export const unlink = (path: string) => call<void>((done) => fs.unlink(path, done));
export const rmdir = (path: string) => call<void>((done) => fs.rmdir(path, done));
export const symlink = (target: string, path: string) => call<void>((done) => fs.symlink(target, path, done));
export const readlink = (path: string) => call<string>((done) => fs.readlink(path, 'utf8', done));
/** Sets the times of `path` itself: a link put in its place is changed, never what it points to. */
export const lutimes = (path: string, atime: number, mtime: number) =>
  call<void>((done) => fs.lutimes(path, atime, mtime, done));

/** The errno code of a Node.js filesystem error, if any. */
export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Nothing is there (or a folder on the way is not one). */
export function isMissing(error: unknown): boolean {
  const code = errno(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * `Promise.all` that waits for every promise before it rejects: no call may outlive the folder
 * handles it uses, since a closed descriptor's number can be reused at once by another folder.
 */
export async function settleAll<T extends readonly unknown[]>(
  promises: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const results = await Promise.allSettled(promises);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
