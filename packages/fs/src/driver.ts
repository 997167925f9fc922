// The filesystem driver: each method runs on the folder as this process holds it open (folder.ts),
// reads without a lock, changes under the cross-process lock (lock.ts) within the call's deadline.
// The work of each method lives in a module of its own (snapshot, write, edit, remove, move).
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type {
  ChangeRecord,
  DriverCallOptions,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDropOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPath,
  DriverPointInTime,
  DriverQuota,
  DriverRestoreOptions,
  DriverSweepOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverUsage,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  DriverWriteOptions,
  MemdirLogger,
  MemoryDriver,
} from '@memdir/core';
import {
  AbstractMemoryDriver,
  checkTime,
  type DriverLog,
  deadlineOf,
  driverLog,
  foldListing,
  importedSequences,
  newFileId,
  optionError,
  positiveInteger,
  prunable,
  refuseConflict,
  refuseNotFound,
  refuseQuota,
  validateNamespace,
} from '@memdir/core/driver';
import { dropNamespace, listNamespaces, staleFiles } from './admin.js';
import { type Dir, openFolder } from './dir.js';
import { applyEditLocked, editLocked } from './edit.js';
import { closedFailure, filesystemFailure } from './errors.js';
import { type Access, createFoldersNow, type Folder, openFolderOf } from './folder.js';
import type { Generation } from './generation.js';
import { Recorder, settlePending } from './history.js';
import type { LockWait } from './lock.js';
import { kindOfPath } from './lookup.js';
import { moveLocked } from './move.js';
import { removeLocked } from './remove.js';
import { readAt, type SnapshotCall, snapshot } from './snapshot.js';
import { removeTree } from './tree.js';
import { versioned } from './version.js';
import { type ChangeCall, writeLocked } from './write.js';

/** Default of {@link FsDriverOptions.staleLockMs}. */
export const DEFAULT_STALE_LOCK_MS = 60_000;

/** Options of {@link createFsDriver}. */
export interface FsDriverOptions {
  /**
   * The folder that holds the memory. Memory files live in `{root}/memories` (the layout of
   * Anthropic's `BetaLocalFilesystemMemoryTool`, so an existing folder carries over); memdir keeps
   * its lock, totals and temporary files in `{root}/.memdir`, out of the model's reach. Namespace
   * `n` lives in `{root}/namespaces/n` with the same layout. `{root}/memories` is created (mode
   * 0700) when the driver opens. The root path is the application's: links on it are followed;
   * nothing below it ever is.
   */
  root: string;
  /**
   * The longest a change waits for another process that holds the folder's lock before it fails
   * with `BACKEND` (reason `busy`: "The memory store is busy..."). Without it the wait is derived
   * from the command's deadline (`timeoutMs`): it ends early enough that a busy store says so
   * before the deadline passes. Give it to answer "busy" sooner than that. Reads never wait: they
   * take no lock.
   * @default undefined (derived from the deadline)
   */
  lockTimeoutMs?: number | undefined;
  /**
   * A lock left by a process on another kernel (a folder shared with a VM or another machine) is
   * taken as abandoned once older than this. On one kernel, containers included, a holder's death
   * is seen at once and this plays no part.
   * @default 60000
   */
  staleLockMs?: number | undefined;
  /**
   * Where the driver reports lock waits, broken locks, recomputed totals, a folder reopened after
   * it was removed, and slow calls: never a path or content.
   * @default `NODE_DEBUG=memdir` output through `util.debuglog`
   */
  logger?: MemdirLogger | undefined;
}

/** The optional methods of the contract the filesystem driver has. */
type FsMethods = Required<
  Pick<
    MemoryDriver,
    | 'stat'
    | 'describe'
    | 'edit'
    | 'update'
    | 'listVersions'
    | 'readVersion'
    | 'restoreVersion'
    | 'redactVersion'
    | 'treeAt'
    | 'importVersions'
    | 'listNamespaces'
    | 'usage'
    | 'dropNamespace'
    | 'sweep'
  >
>;

/** The filesystem driver (see {@link createFsDriver}): a memory driver with {@link FsMethods}. */
export type FsDriver = Omit<MemoryDriver, keyof FsMethods | 'namespace'> &
  FsMethods & {
    namespace(name: string): FsDriver;
  };

/**
 * What a lock wait leaves before the deadline, so the change can still be made and answered in
 * time, and a busy store says "busy" rather than running into the engine's timeout: a fifth of the
 * call's time, at most a second (a `timeoutMs` of 1,000 waits up to 800 ms, of 5,000 up to 4 s).
 */
const LOCK_RESERVE_SHARE = 0.2;
const LOCK_RESERVE_MAX_MS = 1_000;
/** Calls slower than this are logged. */
const SLOW_CALL_MS = 1_000;

const EMPTY_ROOT: DriverListing = { kind: 'directory', size: 0, count: 0, entries: [] };
const EDITED: DriverEditOutcome = { outcome: 'edited', firstLine: 0, lines: [] };

/** What a driver shares with its namespaces: the root, the lock's settings, the log. */
class Backend {
  readonly identity: { readonly kind: 'fs'; readonly id: string };

  constructor(
    readonly root: string,
    readonly staleMs: number,
    readonly lockCapMs: number | undefined,
    readonly log: DriverLog,
  ) {
    // The root is a host path: telemetry gets a hash of it, never the path.
    this.identity = { kind: 'fs', id: `fs-${createHash('sha256').update(root).digest('hex').slice(0, 12)}` };
  }

  /** When a change that started at `started` stops waiting for the lock. */
  lockWait(deadline: number, started: number): LockWait {
    const reserve = Math.min(LOCK_RESERVE_MAX_MS, Math.max(0, deadline - started) * LOCK_RESERVE_SHARE);
    const giveUpAt = Math.min(deadline - reserve, started + (this.lockCapMs ?? Number.POSITIVE_INFINITY));
    return { giveUpAt, staleMs: this.staleMs, log: this.log };
  }
}

const CAPABILITIES = { atomicRename: true, quotas: true, history: true, admin: true } as const;

/** What a change call carries that the locked step uses. */
type ChangeOptions = DriverCallOptions & {
  readonly quota?: DriverQuota | undefined;
  readonly record?: ChangeRecord | undefined;
  readonly op?: string | undefined;
  /** `write`'s: the file id of a file it creates. */
  readonly fileId?: string | undefined;
};

/** The driver over one store folder: `{root}`, or `{root}/namespaces/{name}` (and deeper). */
class FsMemoryDriver extends AbstractMemoryDriver implements FsDriver {
  readonly capabilities = CAPABILITIES;
  readonly identity: { readonly kind: 'fs'; readonly id: string };
  readonly #backend: Backend;
  readonly #segments: readonly string[];
  readonly #folder: Folder;
  #closed = false;

  constructor(backend: Backend, segments: readonly string[]) {
    super();
    this.#backend = backend;
    this.#segments = segments;
    this.identity = backend.identity;
    createFoldersNow(backend.root, segments);
    this.#folder = openFolderOf({ root: backend.root, segments });
  }

  /** Namespace `name` below this one, checked by core's rule (a `TypeError` otherwise). */
  override namespace(name: string): FsDriver {
    return super.namespace(name) as FsDriver;
  }

  protected openNamespace(name: string): FsDriver {
    return new FsMemoryDriver(this.#backend, [...this.#segments, 'namespaces', name]);
  }

  read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | { kind: 'directory' } | null> {
    return this.#read(
      'read',
      options,
      (generation) => readAt(generation, path, options?.touch === true),
      isNull,
    );
  }

  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    return this.#read(
      'stat',
      options,
      async (generation) => {
        if (path === '') return 'directory' as const;
        return generation.memories ? kindOfPath(generation.memories, path) : null;
      },
      isNull,
    );
  }

  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null> {
    return this.#read(
      'describe',
      options,
      async (generation) => {
        const found = await snapshot(generation, path, true, this.#snapshotCall(generation, options));
        if (found === null || !Array.isArray(found)) return found;
        if (path === '' && found.length === 0) return EMPTY_ROOT;
        // A folder with nothing beneath it is no directory (SPEC section 3).
        if (found.length === 0) return null;
        return foldListing(path, found, options.limit);
      },
      (result) => result === null || result === EMPTY_ROOT,
    );
  }

  async *list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry> {
    const found = await this.#read(
      'list',
      options,
      (generation) =>
        snapshot(generation, dir, options?.skipHidden ?? false, this.#snapshotCall(generation, options)),
      (result) => result === null || (Array.isArray(result) && result.length === 0),
    );
    if (Array.isArray(found)) yield* found;
  }

  write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    return this.#change('write', options, async (generation, call) => {
      await writeLocked(generation, path, content, options.expect, call);
      return versioned(content);
    });
  }

  /**
   * The edit as data, applied under the lock with the kit's `applyEdit` (the reference semantics):
   * one call, nothing to compare or retry, the quota judged in the same locked step.
   */
  edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    return this.#change('edit', options, (generation, call) =>
      applyEditLocked(generation, path, edit, options.maxFileBytes, call),
    );
  }

  /**
   * The read-modify-write of an engine without `edit` (or a wrapper that hides it), in the same
   * locked step as `edit`. What `edit` throws is passed on as is (the contract), not taken for a
   * filesystem failure.
   */
  update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    let refused: { error: unknown } | undefined;
    const transform = (content: string) => {
      try {
        return { outcome: EDITED, content: edit(content) };
      } catch (error) {
        refused = { error };
        throw error;
      }
    };
    return this.#change('update', options, async (generation, call) => {
      const outcome = await editLocked(generation, path, transform, call);
      if (outcome.outcome === 'missing') return outcome.kind;
      if (outcome.outcome === 'quota') throw refuseQuota(path, outcome.breach);
      return 'file' as const;
    }).catch((error: unknown) => {
      throw refused ? refused.error : error;
    });
  }

  remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const log = this.#backend.log;
    return this.#change(
      'remove',
      options,
      (generation, call) => removeLocked(generation, path, call),
      async (generation, removal) => {
        // The folder left every listing with the rename; its files go now, outside the lock. The
        // delete is done either way: trash that stays is swept by the next process that writes.
        if (removal.trash) {
          await removeTree(generation.tmp!, removal.trash).catch(() => {
            log.warn('trash could not be cleared', {});
          });
        }
        return removal.removed;
      },
    );
  }

  move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    return this.#change('move', options, (generation, call) => moveLocked(generation, from, to, call));
  }

  // --- history -------------------------------------------------------------------------------------
  // Read under the lock too: the index is brought up to date from the file, and a change a dead
  // process left pending is settled before anyone sees the history.

  listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return this.#change('listVersions', options ?? {}, async (generation) =>
      generation.history.index.list(query),
    );
  }

  readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return this.#change('readVersion', options ?? {}, async (generation) => generation.history.read(id));
  }

  treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return this.#change('treeAt', options ?? {}, async (generation) =>
      generation.history.index.treeAt(at, options?.path ?? ''),
    );
  }

  restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    if (!options?.record) throw new TypeError('restoreVersion: options.record is required (history on)');
    // The record is the restore's own (a restored version, its file id by the restore rule).
    const { record, ...rest } = options;
    return this.#change('restoreVersion', { ...rest, signal: options.signal }, async (generation, call) => {
      const history = generation.history;
      const source = history.read(id);
      if (!source || source.content === null) throw refuseNotFound(options.to ?? '');
      const to = options.to ?? (source.path as DriverPath);
      // A deleted file comes back as itself where it was deleted; anywhere else it is a copy.
      const latest = history.index.latestOf(source.fileId);
      const comesBack = latest?.operation === 'deleted' && latest.path === to;
      const recorder = new Recorder(history, record, options.op, undefined, {
        restoredFrom: id,
        fileIdIfNew: comesBack ? source.fileId : newFileId(),
      });
      const expect = options.expectSha256 === undefined ? undefined : { sha256: options.expectSha256 };
      try {
        await writeLocked(
          generation,
          to,
          source.content,
          expect,
          { ...call, history: recorder },
          options.maxFileBytes,
        );
      } finally {
        if (recorder.finish()) await this.#compact(generation);
      }
      const { content: _content, ...version } = recorder.last!;
      return version;
    });
  }

  redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    const { record: _record, ...rest } = options;
    return this.#change('redactVersion', rest, async (generation) => {
      const history = generation.history;
      const entry = history.index.get(id);
      if (!entry) return null;
      if (entry.version.redactedAt === null) {
        const redactedAt = Date.now();
        // The whole file is rewritten without the content: gone for good, not only hidden.
        await history.rewrite(generation.newTemp(), (version) =>
          version.id === id
            ? {
                ...version,
                content: null,
                path: null,
                previousPath: null,
                size: null,
                sha256: null,
                redactedAt,
              }
            : version,
        );
      }
      return history.index.get(id)!.version;
    });
  }

  importVersions(versions: readonly DriverVersionWithContent[], options: DriverCallOptions): Promise<void> {
    try {
      importedSequences(versions);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#change('importVersions', options ?? {}, async (generation) => {
      if (versions.length === 0) return;
      const history = generation.history;
      const last = history.index.last;
      if (last !== undefined && last >= versions[0]!.id) throw refuseConflict('');
      history.import(versions);
    });
  }

  // --- admin ---------------------------------------------------------------------------------------

  listNamespaces(query: DriverNamespaceQuery, _options?: DriverCallOptions): Promise<DriverNamespacePage> {
    return this.#guard('listNamespaces', false, () =>
      this.#onBase({ names: [], next: null }, (base) => listNamespaces(base, query)),
    );
  }

  async usage(options?: DriverCallOptions): Promise<DriverUsage> {
    // A namespace nothing was ever written to (or one just dropped) has no `.memdir`: it holds
    // nothing, and looking makes none.
    const written = await this.#guard('usage', false, () =>
      this.#onBase(
        false,
        async (base) => typeof (await openFolder(base, '.memdir').then(closeDir)) !== 'string',
      ),
    );
    if (!written) return { files: 0, bytes: 0, versions: 0, lastChangeAt: null };
    return this.#change('usage', options ?? {}, async (generation) => {
      const totals = await generation.totals!.current(generation.memories!, this.#backend.log);
      return {
        files: totals.files,
        bytes: totals.bytes,
        versions: generation.history.index.size,
        lastChangeAt: generation.totals!.lastChangeAt(),
      };
    });
  }

  dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    try {
      validateNamespace(name);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#guard('dropNamespace', true, () =>
      this.#onBase({ removed: 0, done: true }, (base) => dropNamespace(base, name, options.batch)),
    );
  }

  sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    const { record, ...rest } = options;
    return this.#change('sweep', rest, async (generation, call) => {
      let budget = options.batch;
      let expired = 0;
      const history = generation.history;
      if (options.expireBefore !== undefined) {
        for (const path of await staleFiles(generation.memories!, options.expireBefore, budget)) {
          // Each expiry is a removal of its own, recorded as one, by the service.
          const recorder = record && new Recorder(history, record, options.op);
          let removal: Awaited<ReturnType<typeof removeLocked>>;
          try {
            removal = await removeLocked(generation, path, { ...call, history: recorder });
          } finally {
            recorder?.finish();
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
          await this.#compact(generation);
        }
        pruned = doomed.length;
        budget -= pruned;
      }
      return { expired, pruned, done: budget > 0 };
    });
  }

  /** Runs `task` on this driver's base folder (`{root}` or the namespace's), or gives `none` without one. */
  async #onBase<T>(none: T, task: (base: Dir) => Promise<T>): Promise<T> {
    const base = await this.#folder.openBase(false);
    if (!base) return none;
    try {
      return await task(base);
    } finally {
      base.close();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#folder.close();
  }

  #access(write: boolean, options: DriverCallOptions | undefined): Access {
    return { write, staleMs: this.#backend.staleMs, log: this.#backend.log, stats: options?.stats };
  }

  #times(options: DriverCallOptions | undefined): { deadline: number; started: number } {
    const started = Date.now();
    return { deadline: deadlineOf(options, started), started };
  }

  /** How a listing of this call walks: within its deadline, under the lock when it must. */
  #snapshotCall(generation: Generation, options: DriverCallOptions | undefined): SnapshotCall {
    const { deadline, started } = this.#times(options);
    const lock = generation.lock;
    return {
      deadline,
      stats: options?.stats,
      log: this.#backend.log,
      underLock: lock && ((task) => lock.run(task, this.#backend.lockWait(deadline, started))),
      touch: options?.touch,
    };
  }

  /** Runs a read on the folder as it is now; `looksEmpty` results are checked against a removed folder. */
  #read<T>(
    method: string,
    options: DriverCallOptions | undefined,
    task: (generation: Generation) => Promise<T>,
    looksEmpty: (result: T) => boolean,
  ): Promise<T> {
    return this.#guard(method, false, () => this.#folder.use(this.#access(false, options), task, looksEmpty));
  }

  /**
   * Runs a change under the folder's lock, on a folder made ready for writing: history brought up
   * to date first (what a dead process left pending settled), the change's versions recorded in
   * its locked step when the call carries a record. `after` runs outside the lock.
   */
  #change<T, R = T>(
    method: string,
    options: ChangeOptions,
    task: (generation: Generation, call: ChangeCall) => Promise<T>,
    after?: (generation: Generation, result: T) => Promise<R>,
  ): Promise<R> {
    return this.#guard(method, true, () => {
      const { deadline, started } = this.#times(options);
      return this.#folder.use(this.#access(true, options), async (generation) => {
        const result = await generation.lock!.run(
          async () => {
            // Waited until the deadline (behind commands of this process, say): nobody waits for
            // the answer, so nothing is changed.
            checkTime({ deadline });
            const history = generation.history;
            await history.refresh();
            if (history.pending) await settlePending(history, generation.memories);
            const { record } = options;
            const recorder = record && new Recorder(history, record, options.op ?? '', options.fileId);
            try {
              const call = {
                quota: options.quota,
                log: this.#backend.log,
                history: recorder,
                touch: options.touch,
              };
              return await task(generation, call);
            } finally {
              if (recorder?.finish()) await this.#compact(generation);
            }
          },
          this.#backend.lockWait(deadline, started),
        );
        return after ? after(generation, result) : (result as unknown as R);
      });
    });
  }

  /** Rewrites the history file when pruning left it mostly dead (under the lock). */
  async #compact(generation: Generation): Promise<void> {
    if (!generation.history.wasteful) return;
    await generation.history.rewrite(generation.newTemp()).catch((error: unknown) => {
      this.#backend.log.warn('history could not be compacted', {
        code: (error as NodeJS.ErrnoException).code,
      });
    });
  }

  async #guard<T>(method: string, change: boolean, run: () => Promise<T>): Promise<T> {
    if (this.#closed) throw closedFailure();
    const started = Date.now();
    try {
      return await run();
    } catch (error) {
      throw filesystemFailure(error, change);
    } finally {
      const took = Date.now() - started;
      if (took > SLOW_CALL_MS) this.#backend.log.info('slow call', { call: method, tookMs: took });
    }
  }
}

/** Closes a folder `openFolder` opened, passing on what it was. */
function closeDir(opened: Dir | string): Dir | string {
  if (typeof opened !== 'string') opened.close();
  return opened;
}

function isNull(result: unknown): boolean {
  return result === null;
}

/**
 * A driver that keeps each memory file as a plain file under `options.root` (see
 * {@link FsDriverOptions.root} for the layout). It follows no symbolic link below the root: every
 * name is opened through the handle of the folder above it (SPEC section 8). Every change is written
 * to a temporary file, fsynced and renamed into place, under a lock shared by every process on the
 * folder, so no update is lost and a crash leaves each file whole; the namespace's totals (bytes,
 * files) are kept beside it for quotas. Reads take no lock. Files are created 0600 and folders 0700.
 * @throws TypeError for invalid options.
 */
export function createFsDriver(options: FsDriverOptions): FsDriver {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw optionError('fs', 'root', 'expected the path of the memory folder');
  }
  const lockCapMs =
    options.lockTimeoutMs === undefined
      ? undefined
      : positiveInteger('fs', 'lockTimeoutMs', options.lockTimeoutMs, 1);
  const staleMs = positiveInteger('fs', 'staleLockMs', options.staleLockMs, DEFAULT_STALE_LOCK_MS);
  const backend = new Backend(resolve(options.root), staleMs, lockCapMs, driverLog('fs', options.logger));
  return new FsMemoryDriver(backend, []);
}
