// How every call of the filesystem driver runs on its store folder: a read on the folder as it is
// now (no lock), a change under the folder's cross-process lock within the call's deadline with its
// history brought up to date and its versions recorded, the admin's walks on the base folder, and
// one guard around each that turns a failure into the model's words and logs a slow call.
import type { ChangeRecord, DriverCallOptions, DriverQuota } from '@memdir/core';
import { checkTime, type DriverLog, deadlineOf } from '@memdir/core/driver';
import type { Backend } from './backend.js';
import type { Dir } from './dir.js';
import { closedFailure, filesystemFailure } from './errors.js';
import type { Access, Folder } from './folder.js';
import type { Generation } from './generation.js';
import { compact } from './history/compact.js';
import { Recorder, settlePending } from './history/recorder.js';
import { adopt, settleRecords } from './records/files.js';
import { ChangeHook } from './records/hook.js';
import type { SnapshotCall } from './snapshot.js';
import type { ChangeCall } from './write.js';

/**
 * What every locked call does first: the history and the records brought up to date from their
 * files, what a dead process left pending settled, and every file given a record once (a folder
 * written before records were kept).
 */
export async function prepareLocked(generation: Generation): Promise<void> {
  const history = generation.history;
  await history.refresh();
  if (history.pending) await settlePending(history, generation.memories);
  const records = generation.records;
  await records.refresh();
  if (records.pending) await settleRecords(generation, records);
  if (!records.adopted) await adopt(generation);
}

/** Rewrites the records file when it is mostly dead lines (under the lock). */
export async function compactRecords(generation: Generation, log: DriverLog): Promise<void> {
  const records = generation.records;
  if (!records.wasteful || records.pending) return;
  await records.rewrite(generation.newTemp()).catch((error: unknown) => {
    log.warn('records could not be compacted', { code: (error as NodeJS.ErrnoException).code });
  });
}

/** Calls slower than this are logged. */
const SLOW_CALL_MS = 1_000;

/** What a change call carries that the locked step uses. */
export type ChangeOptions = DriverCallOptions & {
  readonly quota?: DriverQuota | undefined;
  readonly record?: ChangeRecord | undefined;
  readonly op?: string | undefined;
  /** `write`'s: the file id of a file it creates. */
  readonly fileId?: string | undefined;
};

/** The calls of one driver (one store folder: `{root}`, or a namespace's below it). */
export class FolderCalls {
  #closed = false;

  constructor(
    readonly backend: Backend,
    readonly folder: Folder,
  ) {}

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.folder.close();
  }

  /** Runs `task` on this driver's base folder (`{root}` or the namespace's), or gives `none` without one. */
  async onBase<T>(none: T, task: (base: Dir) => Promise<T>): Promise<T> {
    const base = await this.folder.openBase(false);
    if (!base) return none;
    try {
      return await task(base);
    } finally {
      base.close();
    }
  }

  #access(write: boolean, options: DriverCallOptions | undefined): Access {
    return { write, staleMs: this.backend.staleMs, log: this.backend.log, stats: options?.stats };
  }

  #times(options: DriverCallOptions | undefined): { deadline: number; started: number } {
    const started = Date.now();
    return { deadline: deadlineOf(options, started), started };
  }

  /** How a listing of this call walks: within its deadline, under the lock when it must. */
  snapshotCall(generation: Generation, options: DriverCallOptions | undefined): SnapshotCall {
    const { deadline, started } = this.#times(options);
    const lock = generation.lock;
    return {
      deadline,
      stats: options?.stats,
      log: this.backend.log,
      underLock: lock && ((task) => lock.run(task, this.backend.lockWait(deadline, started))),
      touch: options?.touch,
    };
  }

  /** Runs a read on the folder as it is now; `looksEmpty` results are checked against a removed folder. */
  read<T>(
    method: string,
    options: DriverCallOptions | undefined,
    task: (generation: Generation) => Promise<T>,
    looksEmpty: (result: T) => boolean,
  ): Promise<T> {
    return this.guard(method, false, () => this.folder.use(this.#access(false, options), task, looksEmpty));
  }

  /**
   * Runs a change under the folder's lock, on a folder made ready for writing: history brought up
   * to date first (what a dead process left pending settled), the change's versions recorded in
   * its locked step when the call carries a record. `after` runs outside the lock.
   */
  change<T, R = T>(
    method: string,
    options: ChangeOptions,
    task: (generation: Generation, call: ChangeCall) => Promise<T>,
    after?: (generation: Generation, result: T) => Promise<R>,
  ): Promise<R> {
    return this.guard(method, true, () => {
      const { deadline, started } = this.#times(options);
      return this.folder.use(this.#access(true, options), async (generation) => {
        const result = await generation.lock!.run(
          async () => {
            // Waited until the deadline (behind commands of this process, say): nobody waits for
            // the answer, so nothing is changed.
            checkTime({ deadline });
            await prepareLocked(generation);
            const { record } = options;
            const recorder = record && new Recorder(generation.history, record, options.op ?? '');
            const hook = new ChangeHook(generation, recorder, { fileIdOption: options.fileId });
            try {
              const call = {
                quota: options.quota,
                log: this.backend.log,
                history: hook,
                touch: options.touch,
              };
              return await task(generation, call);
            } finally {
              if (hook.finish()) await compact(generation, this.backend.log);
              await compactRecords(generation, this.backend.log);
            }
          },
          this.backend.lockWait(deadline, started),
        );
        return after ? after(generation, result) : (result as unknown as R);
      });
    });
  }

  async guard<T>(method: string, change: boolean, run: () => Promise<T>): Promise<T> {
    if (this.#closed) throw closedFailure();
    const started = Date.now();
    try {
      return await run();
    } catch (error) {
      throw filesystemFailure(error, change);
    } finally {
      const took = Date.now() - started;
      if (took > SLOW_CALL_MS) this.backend.log.info('slow call', { call: method, tookMs: took });
    }
  }
}
