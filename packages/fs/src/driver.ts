import { createHash, randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import {
  type DriverEntry,
  type DriverFile,
  isHiddenName,
  isMemoryToolError,
  type MemoryDriver,
  MemoryToolError,
} from '@memdir/core';
import {
  asDriverPath,
  foldListing,
  refuseAlreadyExists,
  refuseConflict,
  refuseLink,
  refuseNotFound,
  refusePathConflict,
} from '@memdir/core/driver';
import { backendFailure, errno } from './errors.js';
import { type LockOptions, withLock } from './lock.js';

/** Options of {@link createFsDriver}. */
export interface FsDriverOptions {
  /**
   * The folder that holds the memory. Memory files live in `{root}/memories` (the layout of
   * Anthropic's `BetaLocalFilesystemMemoryTool`, so an existing folder carries over); memdir keeps
   * its lock and temporary files in `{root}/.memdir`, out of the model's reach. Namespace `n` lives
   * in `{root}/namespaces/n` with the same layout. Created (mode 0700) when missing.
   */
  root: string;
  /**
   * How long a command waits for another process that holds the store's lock before it fails
   * with `BACKEND` ("The memory store is busy...").
   * @default 10000
   */
  lockTimeoutMs?: number;
  /**
   * A lock held longer than this is taken as abandoned even when a process with its pid is alive
   * (a crashed holder whose pid was reused). No command holds the lock anywhere near this long.
   * @default 60000
   */
  staleLockMs?: number;
}

const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;
// lstat calls in flight at once while listing: enough to keep libuv's thread pool busy.
const STAT_CONCURRENCY = 64;

/** The memory folder vanished under a running store (someone removed it by hand). */
function folderRemoved(): MemoryToolError {
  return new MemoryToolError(
    'BACKEND',
    'The memory store is unavailable: its folder was removed. Try again.',
  );
}

/** A link on the way: the engine tells the model "Path would escape /memories directory via symlink". */
function symlinkEscape(path = ''): MemoryToolError {
  return refuseLink(path);
}

function contentVersion(content: string): string {
  return createHash('sha256').update(content).digest('base64url');
}

/** `content` with its version, hashed only if someone reads it (compare-and-swap does; views do not). */
function versioned(content: string): DriverFile {
  let version: string | undefined;
  return {
    kind: 'file',
    content,
    get version() {
      version ??= contentVersion(content);
      return version;
    },
  };
}

function isMissing(error: unknown): boolean {
  const code = errno(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

type Kind = 'file' | 'directory' | 'link' | 'other';

/** What is at `path` itself (links are not followed); null when nothing is. */
async function kindOf(path: string): Promise<Kind | null> {
  try {
    const info = await lstat(path);
    if (info.isFile()) return 'file';
    if (info.isDirectory()) return 'directory';
    return info.isSymbolicLink() ? 'link' : 'other';
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

const READ_CHUNK = 64 * 1024;

/** What `readText` finds where it expected a file: a directory. */
const DIRECTORY = Symbol('directory');

/**
 * The content of the file at `path` as UTF-8, {@link DIRECTORY} for a directory, or null when
 * nothing (or something that is not a regular file) is there.
 * One read call for files up to 64 KiB (open, read, close), where `readFile` also stats the file:
 * each call is a trip through libuv's thread pool, and views are the most frequent command.
 */
async function readText(path: string): Promise<string | typeof DIRECTORY | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO someone left in the folder must not hang the store (regular files
    // ignore the flag).
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (isMissing(error)) return null;
    if (errno(error) === 'EISDIR') return DIRECTORY;
    throw error;
  }
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
      chunks.push(buffer.subarray(0, bytesRead));
      // A short read of a regular file means its end.
      if (bytesRead < READ_CHUNK) break;
      // A long one: make sure this is a regular file before reading on (a link to a device such as
      // /dev/zero would never end), then read the rest in one go.
      if (chunks.length === 1) {
        const info = await handle.stat();
        if (!info.isFile()) return null;
        if (info.size > READ_CHUNK) {
          const rest = Buffer.allocUnsafe(info.size - READ_CHUNK);
          const { bytesRead: more } = await handle.read(rest, 0, rest.length, null);
          chunks.push(rest.subarray(0, more));
          if (more < rest.length) break;
        }
      }
    }
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (errno(error) === 'EISDIR') return DIRECTORY;
    throw error;
  } finally {
    await handle.close();
  }
}

/** Runs `task` over `items` with at most `limit` in flight. */
async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

let tempCounter = 0;

interface Layout {
  /** `{base}/memories`, as given (not resolved). */
  memories: string;
  /** `{base}/.memdir/lock`. */
  lock: string;
  /** `{base}/.memdir/tmp`. */
  tmp: string;
}

function layoutOf(base: string): Layout {
  return {
    memories: join(base, 'memories'),
    lock: join(base, '.memdir', 'lock'),
    tmp: join(base, '.memdir', 'tmp'),
  };
}

/** Removes temporary files and trash left by processes that are gone (crashed mid-write). */
async function sweepLeftovers(tmp: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tmp);
  } catch {
    return;
  }
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(name.split('-')[0]);
      if (!Number.isSafeInteger(pid) || pid === process.pid) return;
      try {
        process.kill(pid, 0);
        return;
      } catch (error) {
        if (errno(error) !== 'ESRCH') return;
      }
      await rm(join(tmp, name), { recursive: true, force: true }).catch(() => {});
    }),
  );
}

function driverAt(base: string, lockOptions: LockOptions): MemoryDriver {
  const layout = layoutOf(base);
  let ready: Promise<string> | undefined;
  let closed = false;

  /** Creates the folders once and returns the real path of `memories`. */
  function realRoot(): Promise<string> {
    ready ??= (async () => {
      await mkdir(layout.memories, { recursive: true, mode: DIRECTORY_MODE });
      await mkdir(layout.tmp, { recursive: true, mode: DIRECTORY_MODE });
      await sweepLeftovers(layout.tmp);
      return realpath(layout.memories);
    })();
    ready.catch(() => {
      ready = undefined;
    });
    return ready;
  }

  function within(real: string, root: string): boolean {
    return real === root || real.startsWith(root + sep);
  }

  /**
   * The real location of driver path `path`, refusing any symbolic link that leads out of the
   * memory folder (SPEC section 8). Links that stay inside are followed. A path whose ancestor
   * is a file resolves to a location under that file, which callers then find is not a directory.
   */
  async function locate(path: string): Promise<string> {
    const root = await realRoot();
    if (path === '') return root;
    const full = join(root, path);
    try {
      const real = await realpath(full);
      if (real === full) return full;
      if (!within(real, root)) throw symlinkEscape();
      return real;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    // Part of the path does not exist yet: resolve its folder the way a write would, so a link
    // out of the folder is refused on the way. Under a file, nothing can exist: the path as
    // written is as good as any, callers find nothing there.
    const slash = path.lastIndexOf('/');
    let folder: string;
    try {
      folder = slash === -1 ? root : (await resolveFolder(root, path.slice(0, slash))).real;
    } catch (error) {
      if (isMemoryToolError(error) && error.code === 'PATH_CONFLICT') return full;
      throw error;
    }
    const target = join(folder, path.slice(slash + 1));
    // A dangling link would be followed by mkdir or open: refuse it.
    if ((await lstat(target).catch(() => null))?.isSymbolicLink()) throw symlinkEscape();
    return target;
  }

  /**
   * The content of the file at driver path `path`, or null. Reading and the symlink check run at
   * once: reading first is harmless (the content is dropped if the path leads out of the folder),
   * and it saves a trip through the thread pool on every view and edit.
   */
  async function readChecked(
    path: string,
  ): Promise<{ content: string | typeof DIRECTORY; target: string } | null> {
    const root = await realRoot();
    const full = join(root, path);
    const [located, read] = await Promise.allSettled([locate(path), readText(full)]);
    if (located.status === 'rejected') throw located.reason;
    const target = located.value;
    // Through a link that stays inside, read again where it really leads.
    const content =
      target !== full ? await readText(target) : read.status === 'fulfilled' ? read.value : null;
    if (target === full && read.status === 'rejected') throw read.reason;
    return content === null ? null : { content, target };
  }

  /** The ancestor of driver path `path` that is a file (for a PATH_CONFLICT's `path`). */
  async function fileAncestor(root: string, path: string): Promise<string> {
    const segments = path.split('/');
    for (let depth = 1; depth <= segments.length; depth++) {
      const ancestor = segments.slice(0, depth).join('/');
      const info = await stat(join(root, ancestor)).catch(() => null);
      if (info && !info.isDirectory()) return ancestor;
    }
    return path;
  }

  /**
   * The real location of folder `dir` (a driver path), following links that stay inside the
   * memory folder and refusing others, and whether it exists yet. Throws PATH_CONFLICT (path: the
   * ancestor) when `dir` or one of its ancestors is a file.
   */
  async function resolveFolder(root: string, dir: string): Promise<{ real: string; exists: boolean }> {
    // `dir/.` resolves only if `dir` is a folder: one call answers "exists, is a folder, and where
    // it really is" for every step of the path at once.
    const resolveExisting = async (path: string): Promise<string | null> => {
      try {
        const real = await realpath(`${join(root, path)}${sep}.`);
        if (!within(real, root)) throw symlinkEscape();
        return real;
      } catch (error) {
        if (errno(error) === 'ENOTDIR') throw refusePathConflict(await fileAncestor(root, path));
        if (errno(error) === 'ENOENT') return null;
        throw error;
      }
    };
    const real = await resolveExisting(dir);
    if (real !== null) return { real, exists: true };
    // Some folders are missing: find the deepest one that exists. A dangling link where a folder
    // is missing would be followed by mkdir: refuse it.
    const segments = dir.split('/');
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      const step = join(root, ...segments.slice(0, depth + 1));
      if ((await lstat(step).catch(() => null))?.isSymbolicLink()) throw symlinkEscape();
      const above = depth === 0 ? root : await resolveExisting(segments.slice(0, depth).join('/'));
      if (above !== null) return { real: join(above, ...segments.slice(depth)), exists: false };
    }
    throw folderRemoved();
  }

  /**
   * Where a write to driver path `path` goes, checked under the lock: the real location (a link
   * that stays inside the memory folder is followed, any other refused), whether its folder
   * exists, and what is there now. PATH_CONFLICT (path: the ancestor) when an ancestor is a file.
   */
  async function place(path: string): Promise<{ target: string; parentExists: boolean; kind: Kind | null }> {
    const root = await realRoot();
    const slash = path.lastIndexOf('/');
    const full = join(root, path);
    // Both at once (two trips through the thread pool in parallel, not one after the other): what
    // is at the path as written, and where its folder really is. They disagree only when the
    // folder path passes through a link, and then the target is looked at again where it really is.
    const [folder, kindAsWritten] = await Promise.all([
      slash === -1 ? { real: root, exists: true } : resolveFolder(root, path.slice(0, slash)),
      kindOf(full),
    ]);
    let target = join(folder.real, path.slice(slash + 1));
    let kind = !folder.exists ? null : target === full ? kindAsWritten : await kindOf(target);
    if (kind === 'link') {
      const real = await realpath(target).catch((error) => {
        if (isMissing(error)) throw symlinkEscape(); // dangling: where it leads cannot be checked
        throw error;
      });
      if (!within(real, root)) throw symlinkEscape();
      target = real;
      kind = await kindOf(real);
    }
    return { target, parentExists: folder.exists, kind };
  }

  /** Removes the folders above `target` that the change left empty, up to the memory folder. */
  async function pruneEmptyParents(target: string): Promise<void> {
    const root = await realRoot();
    for (
      let current = dirname(target);
      within(current, root) && current !== root;
      current = dirname(current)
    ) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or already gone): everything above is still needed
      }
    }
  }

  function tempName(): string {
    tempCounter += 1;
    return join(layout.tmp, `${process.pid}-${tempCounter}-${randomBytes(6).toString('hex')}`);
  }

  /** Writes `content` to `target` through a temporary file: readers see old or new, never a mix. */
  async function replaceAtomically(target: string, content: string): Promise<void> {
    const temp = tempName();
    const handle = await open(temp, 'wx', FILE_MODE);
    try {
      try {
        await handle.writeFile(content, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
  }

  /**
   * Every file beneath folder `dir` with its size, walked under the lock so a concurrent move is
   * seen entirely before or entirely after. With `skipHidden`, a hidden name is reported once
   * (size 0) and not walked: it only proves the folders above it exist, and not walking it keeps
   * a large `node_modules` or `.git` from slowing every listing.
   */
  async function listFiles(dir: string, skipHidden: boolean): Promise<DriverEntry[]> {
    const start = await locate(dir);
    return locked(async () => {
      const found: { real: string; path: string }[] = [];
      const sized: DriverEntry[] = [];
      const walk = async (real: string, path: string): Promise<void> => {
        let children: Dirent[];
        try {
          children = await readdir(real, { withFileTypes: true });
        } catch (error) {
          if (isMissing(error)) return;
          throw error;
        }
        const folders: Promise<void>[] = [];
        for (const child of children) {
          // Symbolic links are never listed or followed (SPEC section 8).
          if (child.isSymbolicLink()) continue;
          const childReal = join(real, child.name);
          const childPath = path === '' ? child.name : `${path}/${child.name}`;
          if (skipHidden && isHiddenName(child.name)) {
            if (child.isDirectory() || child.isFile()) sized.push({ path: asDriverPath(childPath), size: 0 });
            continue;
          }
          if (child.isDirectory()) folders.push(walk(childReal, childPath));
          else if (child.isFile()) found.push({ real: childReal, path: childPath });
        }
        await Promise.all(folders);
      };
      await walk(start, dir);
      await forEachLimited(found, STAT_CONCURRENCY, async (file) => {
        try {
          sized.push({ path: asDriverPath(file.path), size: (await lstat(file.real)).size });
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
      });
      return sized;
    });
  }

  async function locked<T>(task: () => Promise<T>): Promise<T> {
    await realRoot(); // the lock lives in a folder made on first use
    return withLock(layout.lock, lockOptions, task);
  }

  async function guard<T>(task: () => Promise<T>): Promise<T> {
    if (closed) throw new MemoryToolError('BACKEND', 'The memory store is closed.');
    try {
      return await task();
    } catch (error) {
      throw backendFailure(error);
    }
  }

  return {
    capabilities: { atomicRename: true },

    namespace(name) {
      return driverAt(join(base, 'namespaces', name), lockOptions);
    },

    read(path) {
      return guard(async () => {
        if (path === '') return { kind: 'directory' } as const;
        const file = await readChecked(path);
        if (file === null) return null;
        return file.content === DIRECTORY ? ({ kind: 'directory' } as const) : versioned(file.content);
      });
    },

    describe(path, { limit }) {
      return guard(async () => {
        const content = path === '' ? DIRECTORY : (await readChecked(path))?.content;
        if (content === undefined) return null;
        if (content !== DIRECTORY) return versioned(content);
        const files = await listFiles(path, true);
        // A folder with nothing beneath it is no directory (SPEC section 3): it was emptied or
        // removed since it was opened, and the view behaves as if it ran after that command.
        if (files.length === 0 && path !== '') return null;
        return foldListing(path, files, limit);
      });
    },

    stat(path) {
      return guard(async () => {
        if (path === '') return 'directory';
        const root = await realRoot();
        // `path/.` resolves only for a folder: one call for the common directory case, with the
        // same symlink check as every other path.
        try {
          const real = await realpath(`${join(root, path)}${sep}.`);
          if (!within(real, root)) throw symlinkEscape();
          return 'directory';
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
        const kind = await kindOf(await locate(path));
        return kind === 'file' ? 'file' : null;
      });
    },

    write(path, content, { expect }) {
      return guard(() =>
        locked(async () => {
          const { target, parentExists, kind } = await place(path);
          if (kind !== null && kind !== 'file') throw refusePathConflict(path);
          if (expect) {
            if ('absent' in expect) {
              if (kind !== null) throw refuseConflict(path);
            } else {
              if (kind === null) throw refuseConflict(path);
              const current = await readText(target);
              if (typeof current !== 'string' || contentVersion(current) !== expect.version) {
                throw refuseConflict(path);
              }
            }
          }
          if (!parentExists) await mkdir(dirname(target), { recursive: true, mode: DIRECTORY_MODE });
          await replaceAtomically(target, content);
          return versioned(content);
        }),
      );
    },

    update(path, edit) {
      // The fast path of a read-modify-write: read, edit and write under one lock, so the edit can
      // never apply to content that changed, and there is nothing to compare or retry.
      return guard(() =>
        locked(async () => {
          if (path === '') return 'directory' as const;
          const file = await readChecked(path);
          if (file === null) return null;
          if (file.content === DIRECTORY) return 'directory' as const;
          await replaceAtomically(file.target, edit(file.content));
          return 'file' as const;
        }),
      );
    },

    async *list(dir, options) {
      yield* await guard(() => listFiles(dir, options?.skipHidden ?? false));
    },

    remove(path) {
      return guard(async () => {
        let trash: string | undefined;
        const removed = await locked(async () => {
          const target = await locate(path);
          try {
            await unlink(target);
          } catch (error) {
            if (isMissing(error)) return false;
            if (errno(error) !== 'EISDIR' && errno(error) !== 'EPERM') throw error;
            // A directory: one rename takes the whole subtree out of view atomically; the slow
            // recursive removal happens afterwards, outside the lock.
            trash = tempName();
            await rename(target, trash);
          }
          await pruneEmptyParents(target);
          return true;
        });
        if (trash) await rm(trash, { recursive: true, force: true });
        return removed;
      });
    },

    move(from, to) {
      return guard(() =>
        locked(async () => {
          const source = await locate(from);
          // Both at once; NOT_FOUND for the source still outranks any refusal of the destination.
          const [sourceKind, placed] = await Promise.allSettled([kindOf(source), place(to)]);
          if (sourceKind.status === 'rejected') throw sourceKind.reason;
          if (sourceKind.value === null) throw refuseNotFound(from);
          if (placed.status === 'rejected') throw placed.reason;
          const destination = placed.value;
          // A dangling link at the destination still occupies the name (place refuses it anyway).
          if (destination.kind !== null) throw refuseAlreadyExists(to);
          if (!destination.parentExists) {
            await mkdir(dirname(destination.target), { recursive: true, mode: DIRECTORY_MODE });
          }
          await rename(source, destination.target);
          await pruneEmptyParents(source);
        }),
      );
    },

    async close() {
      closed = true;
    },
  };
}

/**
 * A driver that keeps each memory file as a plain file under `options.root` (see
 * {@link FsDriverOptions.root} for the layout). Every change is written to a temporary file,
 * fsynced and renamed into place, under a lock shared by every process on this host, so no update
 * is lost and a crash leaves each file whole. Files are created 0600 and folders 0700.
 */
export function createFsDriver(options: FsDriverOptions): MemoryDriver {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw new TypeError('createFsDriver: `root` must be the path of the memory folder');
  }
  return driverAt(resolve(options.root), {
    timeoutMs: options.lockTimeoutMs ?? 10_000,
    staleMs: options.staleLockMs ?? 60_000,
  });
}
