import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { DriverEntry, DriverFile, DriverListing, MemoryDriver, WriteExpectation } from '@memdir/core';
import { MemoryToolError } from '@memdir/core';
import {
  foldListing,
  refuseAlreadyExists,
  refuseConflict,
  refuseLink,
  refuseNotFound,
  refusePathConflict,
  validateNamespace,
} from '@memdir/core/driver';
import { type Dir, kindAt, openEntry, openFolder } from './dir.js';
import { backendFailure } from './errors.js';
import {
  createFoldersNow,
  FOLDER_MODE,
  type Folder,
  type Generation,
  openFolderOf,
  seqSettled,
} from './folder.js';
import type { LockOptions } from './lock.js';
import { closeNow, errno, mkdir, rename, rmdir, settleAll, unlink } from './sys.js';
import {
  closeWalk,
  FOLDER,
  holdsFile,
  listFiles,
  pruneEmpty,
  readText,
  removeEmptyFolders,
  removeTree,
  type Walk,
  walk,
} from './tree.js';

/** Default of {@link FsDriverOptions.lockTimeoutMs}: below the engine's 5 s deadline, so a busy store says so. */
export const DEFAULT_LOCK_TIMEOUT_MS = 3_000;
/** Default of {@link FsDriverOptions.staleLockMs}. */
export const DEFAULT_STALE_LOCK_MS = 60_000;

/** Options of {@link createFsDriver}. */
export interface FsDriverOptions {
  /**
   * The folder that holds the memory. Memory files live in `{root}/memories` (the layout of
   * Anthropic's `BetaLocalFilesystemMemoryTool`, so an existing folder carries over); memdir keeps
   * its lock and temporary files in `{root}/.memdir`, out of the model's reach. Namespace `n` lives
   * in `{root}/namespaces/n` with the same layout. `{root}/memories` is created (mode 0700) when the
   * driver opens. The root path is the application's: links on it are followed; nothing below it
   * ever is.
   */
  root: string;
  /**
   * How long a change waits for another process that holds the store's lock before it fails with
   * `BACKEND` ("The memory store is busy..."). Keep it below the store's `timeoutMs`, or the
   * engine's deadline answers first. Reads never wait: they take no lock.
   * @default 3000
   */
  lockTimeoutMs?: number;
  /**
   * A lock left by a process on another kernel (a folder shared with a VM or another machine) is
   * taken as abandoned once older than this. On one kernel, containers included, a holder's death
   * is seen at once and this plays no part.
   * @default 60000
   */
  staleLockMs?: number;
}

/** Walks in a row that may meet a move before a listing walks under the lock instead. */
const LISTING_ATTEMPTS = 8;
/** How long one odd mark may stay before it is taken as a move whose writer died half-way. */
const STUCK_SEQ_MS = 1_000;

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

function unwrap<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const EMPTY_ROOT: DriverListing = { kind: 'directory', size: 0, count: 0, entries: [] };

/** The driver path of the first `count` segments. */
function prefix(segments: readonly string[], count: number): string {
  return segments.slice(0, count).join('/');
}

/** The refusal for a walk that stopped on a link or a non-folder: INVALID_PATH, or PATH_CONFLICT for a write. */
function stopRefusal(walked: Walk, segments: readonly string[]): MemoryToolError | undefined {
  const stop = walked.stop;
  if (!stop) return undefined;
  const at = prefix(segments, stop.depth + 1);
  if (stop.reason === 'link') return refuseLink(at);
  if (stop.reason === 'missing') return undefined;
  return refusePathConflict(at);
}

/** What is at a driver path, found through handles: a file's content, an open folder, or nothing. */
type Found =
  | { readonly kind: 'file'; readonly content: string; readonly walked: Walk }
  | { readonly kind: 'folder'; readonly folder: Dir; readonly walked: Walk }
  | null;

/**
 * Opens `path` below `root` one name at a time. INVALID_PATH for a link anywhere on it; null for
 * nothing there (or a file where a folder would have to be, or something that is not a file).
 * The caller closes what it gets (`walked`, `folder`).
 */
async function find(root: Dir, path: string): Promise<Found> {
  const segments = path.split('/');
  const walked = await walk(root, segments);
  const refusal = stopRefusal(walked, segments);
  if (walked.stop) {
    closeWalk(walked);
    if (refusal?.code === 'INVALID_PATH') throw refusal;
    return null;
  }
  const entry = await openEntry(walked.parent!, segments.at(-1)!).catch((error) => {
    closeWalk(walked);
    throw error;
  });
  if (typeof entry === 'string') {
    closeWalk(walked);
    if (entry === 'link') throw refuseLink(path);
    return null;
  }
  let content: string | typeof FOLDER | null;
  try {
    content = await readText(entry);
  } catch (error) {
    closeNow(entry);
    closeWalk(walked);
    throw error;
  }
  if (content === FOLDER)
    return { kind: 'folder', folder: walked.parent!.child(entry, segments.at(-1)!), walked };
  closeNow(entry);
  if (content === null) {
    closeWalk(walked);
    return null;
  }
  return { kind: 'file', content, walked };
}

/** Whether the open folder holds a file (a directory, SPEC section 3); closes it. */
async function closeHoldsFile(folder: Dir): Promise<boolean> {
  try {
    return await holdsFile(folder);
  } finally {
    folder.close();
  }
}

/**
 * The file at `path`, or every file beneath the folder at `path`, as one snapshot. Reads take no
 * lock: a move (rename, or a folder's delete, which moves it to the trash first) marks the seq
 * before and after, and a walk that saw the seq change, or a move still running, looks again. So
 * a listing never shows a moved folder in both places or in neither, nor half of a folder being
 * deleted.
 */
async function snapshot(
  generation: Generation,
  path: string,
  skipHidden: boolean,
  underLock: <T>(task: () => Promise<T>) => Promise<T> | undefined,
): Promise<DriverFile | DriverEntry[] | null> {
  const once = async (): Promise<DriverFile | DriverEntry[] | null> => {
    const root = generation.memories;
    if (!root) return path === '' ? [] : null;
    if (path === '') return listFiles(root, path, skipHidden);
    const found = await find(root, path);
    if (found === null) return null;
    closeWalk(found.walked);
    // One file is read in one call: no move can split it.
    if (found.kind === 'file') return versioned(found.content);
    try {
      return await listFiles(found.folder, path, skipHidden);
    } finally {
      found.folder.close();
    }
  };
  let odd: { value: number; since: number } | undefined;
  for (let attempt = 1; ; attempt++) {
    const before = await generation.readSeq();
    const result = await once();
    if (!Array.isArray(result)) return result;
    const after = await generation.readSeq();
    if (before === after) {
      if (seqSettled(before)) return result;
      // The same odd mark across the whole walk: a move is running, or its writer died half-way.
      if (odd?.value !== before) odd = { value: before, since: Date.now() };
      else if (Date.now() - odd.since > STUCK_SEQ_MS) return result;
    }
    // Moves keep meeting the walk (another process streams them): walk once under the lock,
    // where none can run. A folder that cannot be written cannot take the lock: keep looking.
    if (attempt >= LISTING_ATTEMPTS) {
      const locked = underLock(once);
      if (locked) return locked;
    }
    if (attempt > 2) await sleep(Math.min(attempt, 10));
  }
}

/** A folder this command made, to remove again if the command fails (a failed write leaves no folder). */
interface Made {
  readonly parent: Dir;
  readonly name: string;
  readonly folder: Dir;
}

/**
 * Makes (or opens, when another process made it meanwhile) the folders of `segments` from `depth`
 * up to the last name's parent, inside `from`. Returns the parent, and pushes what it made on `made`.
 */
async function makeFolders(
  from: Dir,
  segments: readonly string[],
  depth: number,
  made: Made[],
): Promise<Dir> {
  let current = from;
  for (let index = depth; index < segments.length - 1; index++) {
    const name = segments[index]!;
    let fresh = true;
    await mkdir(current.at(name), FOLDER_MODE).catch((error) => {
      if (errno(error) !== 'EEXIST') throw error;
      fresh = false;
    });
    const opened = await openFolder(current, name);
    if (opened === 'link') throw refuseLink(prefix(segments, index + 1));
    if (typeof opened === 'string') throw refusePathConflict(prefix(segments, index + 1));
    made.push({ parent: current, name: fresh ? name : '', folder: opened });
    current = opened;
  }
  return current;
}

/** Removes the folders a failed command made, deepest first; closes their handles either way. */
async function unmake(made: Made[], failed: boolean): Promise<void> {
  for (const entry of [...made].reverse()) {
    if (failed && entry.name !== '') await rmdir(entry.parent.at(entry.name)).catch(() => {});
    entry.folder.close();
  }
}

function driverAt(root: string, segments: readonly string[], lock: LockOptions): MemoryDriver {
  createFoldersNow(root, segments);
  const folder: Folder = openFolderOf({ root, segments });
  let closed = false;

  async function guard<T>(change: boolean, task: () => Promise<T>): Promise<T> {
    if (closed) throw new MemoryToolError('BACKEND', 'The memory store is closed.');
    try {
      return await task();
    } catch (error) {
      throw backendFailure(error, change);
    }
  }

  /**
   * For a listing that keeps meeting moves: runs its walk under the lock, when this folder can be
   * written (else undefined, at once).
   */
  function underLock(generation: Generation, signal: AbortSignal | undefined) {
    return <T>(task: () => Promise<T>): Promise<T> | undefined => {
      if (!generation.lock) return undefined;
      return generation.lock.run(task, lock, signal);
    };
  }

  /** Runs a change under the folder's lock, on a folder made ready for writing. */
  function change<T>(signal: AbortSignal | undefined, task: (generation: Generation) => Promise<T>) {
    return guard(true, () =>
      folder.use(lock.staleMs, (generation) => generation.lock!.run(() => task(generation), lock, signal)),
    );
  }

  async function writeLocked(
    generation: Generation,
    path: string,
    content: string,
    expect: WriteExpectation | undefined,
  ): Promise<void> {
    const segments = path.split('/');
    const name = segments.at(-1)!;
    // The new content is written and fsynced while the path is checked: the two overlap.
    const temp = generation.newTemp();
    const written = temp.write(content);
    written.catch(() => {});
    const walked = await walk(generation.memories!, segments).catch(async (error) => {
      await temp.discard();
      throw error;
    });
    const made: Made[] = [];
    let failed = true;
    try {
      const refusal = stopRefusal(walked, segments);
      if (refusal) throw refusal;
      let replaceEmptyFolder = false;
      if (walked.parent) {
        const kind = await kindAt(walked.parent, name);
        if (kind === 'link') throw refuseLink(path);
        if (kind === 'other') throw refusePathConflict(path);
        if (kind === 'directory') {
          const inner = await openFolder(walked.parent, name);
          if (typeof inner !== 'string' && (await closeHoldsFile(inner))) throw refusePathConflict(path);
          replaceEmptyFolder = true;
        }
        if (expect && 'absent' in expect && kind === 'file') throw refuseConflict(path);
        if (expect && 'version' in expect) {
          // Read in the folder the commit goes to, through its handle.
          const entry = kind === 'file' ? await openEntry(walked.parent, name) : 'missing';
          let current: string | typeof FOLDER | null = null;
          if (typeof entry === 'number') {
            try {
              current = await readText(entry);
            } finally {
              closeNow(entry);
            }
          }
          if (typeof current !== 'string' || contentVersion(current) !== expect.version) {
            throw refuseConflict(path);
          }
        }
      } else if (expect && 'version' in expect) {
        throw refuseConflict(path);
      }
      // Only once the content is safely on disk are folders made: a full disk leaves none behind.
      await written;
      const parent =
        walked.parent ?? (await makeFolders(walked.folders.at(-1)!, segments, walked.stop!.depth, made));
      if (replaceEmptyFolder && !(await removeEmptyFolders(parent, name))) throw refusePathConflict(path);
      await temp.commit(parent.at(name)).catch((error) => {
        if (errno(error) === 'EISDIR' || errno(error) === 'ENOTEMPTY') throw refusePathConflict(path);
        throw error;
      });
      failed = false;
    } finally {
      if (failed) await temp.discard();
      await unmake(made, failed);
      closeWalk(walked);
    }
  }

  return {
    capabilities: { atomicRename: true },
    // For telemetry: the store kind and a short hash of the root folder (no host path in it).
    identity: { kind: 'fs', id: `fs-${createHash('sha256').update(root).digest('hex').slice(0, 12)}` },

    namespace(name) {
      return driverAt(root, [...segments, 'namespaces', validateNamespace(name)], lock);
    },

    read(path) {
      return guard(false, () =>
        folder.use(
          false,
          async (generation) => {
            if (path === '') return { kind: 'directory' } as const;
            const root = generation.memories;
            const found = root ? await find(root, path) : null;
            if (found === null) return null;
            closeWalk(found.walked);
            if (found.kind === 'file') return versioned(found.content);
            return (await closeHoldsFile(found.folder)) ? ({ kind: 'directory' } as const) : null;
          },
          (result) => result === null,
        ),
      );
    },

    stat(path) {
      return guard(false, () =>
        folder.use(
          false,
          async (generation) => {
            if (path === '') return 'directory' as const;
            const root = generation.memories;
            if (!root) return null;
            const segments = path.split('/');
            const walked = await walk(root, segments);
            try {
              const refusal = stopRefusal(walked, segments);
              if (walked.stop) {
                if (refusal?.code === 'INVALID_PATH') throw refusal;
                return null;
              }
              const kind = await kindAt(walked.parent!, segments.at(-1)!);
              if (kind === 'link') throw refuseLink(path);
              if (kind === 'file') return 'file' as const;
              if (kind !== 'directory') return null;
              const inner = await openFolder(walked.parent!, segments.at(-1)!);
              if (inner === 'link') throw refuseLink(path);
              if (typeof inner === 'string') return null;
              return (await closeHoldsFile(inner)) ? ('directory' as const) : null;
            } finally {
              closeWalk(walked);
            }
          },
          (result) => result === null,
        ),
      );
    },

    describe(path, { limit, signal }) {
      return guard(false, () =>
        folder.use(
          false,
          async (generation) => {
            const found = await snapshot(generation, path, true, underLock(generation, signal));
            if (found === null || !Array.isArray(found)) return found;
            if (path === '' && found.length === 0) return EMPTY_ROOT;
            // A folder with nothing beneath it is no directory (SPEC section 3).
            if (found.length === 0) return null;
            return foldListing(path, found, limit);
          },
          (result) => result === null || result === EMPTY_ROOT,
        ),
      );
    },

    async *list(dir, options) {
      const found = await guard(false, () =>
        folder.use(
          false,
          (generation) =>
            snapshot(generation, dir, options?.skipHidden ?? false, underLock(generation, options?.signal)),
          (result) => result === null || (Array.isArray(result) && result.length === 0),
        ),
      );
      if (Array.isArray(found)) yield* found;
    },

    write(path, content, { expect, signal }) {
      return change(signal, async (generation) => {
        await writeLocked(generation, path, content, expect);
        return versioned(content);
      });
    },

    update(path, edit, { signal }) {
      // The fast path of a read-modify-write: read, edit and write under one lock, so the edit can
      // never apply to content that changed, and there is nothing to compare or retry. What the
      // edit throws is passed on as is (the contract), not taken for a filesystem failure.
      let refused: { error: unknown } | undefined;
      const apply = (content: string): string => {
        try {
          return edit(content);
        } catch (error) {
          refused = { error };
          throw error;
        }
      };
      return change(signal, async (generation) => {
        if (path === '') return 'directory' as const;
        // Opened now, so creating the temporary file overlaps reading the old content.
        const temp = generation.newTemp();
        let failed = true;
        let found: Found = null;
        try {
          found = await find(generation.memories!, path);
          if (found === null) return null;
          if (found.kind === 'folder') {
            return (await closeHoldsFile(found.folder)) ? ('directory' as const) : null;
          }
          await temp.write(apply(found.content));
          // Into the folder the file was read from, through its handle: never through a link.
          await temp.commit(found.walked.parent!.at(path.split('/').at(-1)!));
          failed = false;
          return 'file' as const;
        } finally {
          if (failed) await temp.discard();
          if (found) closeWalk(found.walked);
        }
      }).catch((error: unknown) => {
        throw refused ? refused.error : error;
      });
    },

    remove(path, { signal }) {
      return guard(true, () =>
        folder.use(lock.staleMs, async (generation) => {
          let trash: string | undefined;
          const removed = await generation.lock!.run(
            async () => {
              const segments = path.split('/');
              const name = segments.at(-1)!;
              const walked = await walk(generation.memories!, segments);
              try {
                const refusal = stopRefusal(walked, segments);
                if (walked.stop) {
                  if (refusal?.code === 'INVALID_PATH') throw refusal;
                  return false;
                }
                const parent = walked.parent!;
                const kind = await kindAt(parent, name);
                if (kind === 'link') throw refuseLink(path);
                if (kind === 'file') {
                  try {
                    await unlink(parent.at(name));
                  } catch (error) {
                    if (errno(error) === 'ENOENT') return false;
                    throw error;
                  }
                } else if (kind === 'directory') {
                  // Marked at once: the mark and the check below overlap, and a mark for nothing
                  // only makes a listing look again.
                  const moving = generation.beginMove();
                  try {
                    const inner = await openFolder(parent, name);
                    if (inner === 'link') throw refuseLink(path);
                    if (typeof inner === 'string' || !(await closeHoldsFile(inner))) return false;
                    // One rename takes the whole subtree out of view atomically; the slow removal
                    // happens afterwards, outside the lock.
                    const name_ = generation.trashName();
                    await moving;
                    await rename(parent.at(name), generation.tmp!.at(name_));
                    trash = name_;
                  } finally {
                    await moving.then(() => generation.endMove());
                  }
                } else {
                  return false;
                }
                await pruneEmpty(walked, segments);
                return true;
              } finally {
                closeWalk(walked);
              }
            },
            lock,
            signal,
          );
          if (trash) await removeTree(generation.tmp!, trash);
          return removed;
        }),
      );
    },

    move(from, to, { signal }) {
      return change(signal, async (generation) => {
        const root = generation.memories!;
        const fromSegments = from.split('/');
        const toSegments = to.split('/');
        const fromName = fromSegments.at(-1)!;
        const toName = toSegments.at(-1)!;
        // Marked at once, so the mark overlaps the checks (see remove).
        const moving = generation.beginMove();
        moving.catch(() => {});
        const made: Made[] = [];
        let failed = true;
        let ended = false;
        const walks = Promise.allSettled([walk(root, fromSegments), walk(root, toSegments)]);
        try {
          const [walkedFrom, walkedTo] = await walks;
          const source = unwrap(walkedFrom);
          const target = unwrap(walkedTo);
          // Everything about both paths first, then the refusal SPEC section 1 ranks first:
          // INVALID_PATH (old path, then new), NOT_FOUND, PATH_CONFLICT, ALREADY_EXISTS.
          const [sourceState, targetState] = await settleAll([
            (async () => {
              const refusal = stopRefusal(source, fromSegments);
              if (source.stop) return refusal?.code === 'INVALID_PATH' ? refusal : 'missing';
              const kind = await kindAt(source.parent!, fromName);
              if (kind === 'link') return refuseLink(from);
              if (kind === 'file') return 'ok';
              if (kind !== 'directory') return 'missing';
              const inner = await openFolder(source.parent!, fromName);
              if (typeof inner === 'string') return inner === 'link' ? refuseLink(from) : 'missing';
              return (await closeHoldsFile(inner)) ? 'ok' : 'missing';
            })(),
            (async () => {
              const refusal = stopRefusal(target, toSegments);
              if (refusal) return refusal;
              if (target.stop) return 'missing parents';
              const kind = await kindAt(target.parent!, toName);
              if (kind === 'link') return refuseLink(to);
              if (kind === null) return 'free';
              if (kind !== 'directory') return refuseAlreadyExists(to);
              const inner = await openFolder(target.parent!, toName);
              if (typeof inner === 'string')
                return inner === 'link' ? refuseLink(to) : refuseAlreadyExists(to);
              return (await closeHoldsFile(inner)) ? refuseAlreadyExists(to) : 'empty folder';
            })(),
          ]);
          const refusals = [sourceState, targetState].filter((state) => state instanceof MemoryToolError);
          const invalid = refusals.find((refusal) => refusal.code === 'INVALID_PATH');
          if (invalid) throw invalid;
          if (sourceState === 'missing') throw refuseNotFound(from);
          if (targetState instanceof MemoryToolError) throw targetState;
          const parent =
            target.parent ??
            (await makeFolders(target.folders.at(-1)!, toSegments, target.stop!.depth, made));
          if (targetState === 'empty folder' && !(await removeEmptyFolders(parent, toName))) {
            throw refuseAlreadyExists(to);
          }
          await moving;
          await rename(source.parent!.at(fromName), parent.at(toName)).catch((error) => {
            const code = errno(error);
            if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR') throw refuseAlreadyExists(to);
            if (code === 'ENOENT') throw refuseNotFound(from);
            throw error;
          });
          failed = false;
          ended = true;
          // The mark and removing the folders the move emptied overlap.
          await settleAll([generation.endMove(), pruneEmpty(source, fromSegments)]);
        } finally {
          if (!ended)
            await moving.then(
              () => generation.endMove(),
              () => {},
            );
          await unmake(made, failed);
          for (const each of await walks) if (each.status === 'fulfilled') closeWalk(each.value);
        }
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      await folder.close();
    },
  };
}

/**
 * A driver that keeps each memory file as a plain file under `options.root` (see
 * {@link FsDriverOptions.root} for the layout). It follows no symbolic link below the root: every
 * name is opened through the handle of the folder above it (SPEC section 8). Every change is written
 * to a temporary file, fsynced and renamed into place, under a lock shared by every process on the
 * folder, so no update is lost and a crash leaves each file whole. Reads take no lock. Files are
 * created 0600 and folders 0700.
 */
export function createFsDriver(options: FsDriverOptions): MemoryDriver {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw new TypeError('createFsDriver: `root` must be the path of the memory folder');
  }
  const timeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleLockMs ?? DEFAULT_STALE_LOCK_MS;
  for (const [name, value] of [
    ['lockTimeoutMs', timeoutMs],
    ['staleLockMs', staleMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`createFsDriver: \`${name}\` must be a positive integer, got ${String(value)}`);
    }
  }
  return driverAt(resolve(options.root), [], { timeoutMs, staleMs });
}
