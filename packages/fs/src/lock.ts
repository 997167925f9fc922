// The folder's cross-process lock, held by every change (how it is taken, kept and broken is told
// below, above the class), and how long one change waits for it.
import { setTimeout as delay } from 'node:timers/promises';
import { MemoryToolError } from '@memdir/core';
import type { DriverLog } from '@memdir/core/driver';
import type { Dir } from './dir.js';
import { keepAtExit, type Liveness, type Owner, removeWhenExiting } from './liveness.js';
import { errno, lstat, readlink, symlink, unlink } from './sys.js';

/** How one change waits for the lock. */
export interface LockWait {
  /**
   * When to stop waiting and answer "busy" (`Date.now()` ms): derived from the command's deadline
   * (and the driver's `lockTimeoutMs` cap), so a busy store says so before the deadline passes.
   */
  readonly giveUpAt: number;
  /** A lock left by a process on another kernel is taken as abandoned once older than this. */
  readonly staleMs: number;
  readonly log: DriverLog;
}

// The lock is a symbolic link, `{base}/.memdir/lock`, whose target names its holder: its kernel and
// its liveness token (see liveness.ts). Creating it is one atomic system call that fails with EEXIST
// while someone holds it, and writes no data block. A waiter that finds it asks whether the holder
// is alive: on the same kernel by connecting to the holder's socket, which answers for the process
// itself whatever its pid; a dead holder's lock is broken at once. A holder on another kernel
// cannot be asked, so its lock is broken once older than `staleMs` (no command holds it that long).
//
// Taking and dropping the lock costs two directory changes, which on a journalled filesystem cost
// about as much as writing a small file. So a process keeps the lock from one command to the next
// when they follow each other closely (a loop that awaits each command, with a read in between):
// the release waits LINGER_MS and is cancelled if another command of this process comes first. To
// stay fair to other processes, a holder that has kept the lock for HOLD_MS releases it, and if
// another process has announced that it waits (the `lock.waiting` link), steps aside for HANDOFF_MS
// before taking it again.

/** How long an idle holder keeps the lock for a next command of its own. */
const LINGER_MS = 2;
/** Longest a process keeps the lock across commands before it releases it. */
const HOLD_MS = 50;
/** How long a holder steps aside when another process waits: longer than a waiter's poll. */
const HANDOFF_MS = 25;
/** Longest pause between two attempts of a waiting process. */
const MAX_POLL_MS = 16;
/** How long a waiter trusts its last "the holder is alive" answer before asking again. */
const RECHECK_MS = 100;

const RECORD_TAG = 'memdir-lock 2';

/** The target of a lock link: tag, kernel, token, pid (the pid only for people reading it). */
function record(owner: Owner): string {
  return `${RECORD_TAG}\n${owner.kernel}\n${owner.token}\n${process.pid}`;
}

function parseRecord(target: string): Owner | undefined {
  const [tag, kernel, token] = target.split('\n');
  if (tag !== RECORD_TAG || !kernel || !token) return undefined;
  return { kernel, token };
}

// Waits here use Node's own timers, which keep the process alive: a standalone script that awaits a
// change (no engine, whose watchdog would keep it alive) must not exit while the change waits.

function busy(): MemoryToolError {
  return new MemoryToolError(
    'BACKEND',
    'The memory store is busy: another process is holding its lock. Try again.',
    { reason: 'busy', outcome: 'not-applied' },
  );
}

interface Held {
  readonly target: string;
  readonly since: number;
}

/**
 * The cross-process lock of one store folder, and this process's queue for it: callers in this
 * process never poll for each other.
 */
export class Lock {
  readonly #dir: Dir;
  readonly #liveness: Liveness;
  readonly #target: string;
  /** `staleLockMs` of the latest caller: one lock serves every driver on the folder in this process. */
  #staleMs = 60_000;
  #tail: Promise<void> = Promise.resolve();
  /** Tasks in this process's line (running or waiting). */
  #queued = 0;
  #held: Held | undefined;
  /** The release scheduled LINGER_MS after the last command, cancelled by the next command. */
  #pendingRelease: NodeJS.Timeout | undefined;
  /** The last holder found alive, and when: a waiter does not connect to it on every poll. */
  #lastAlive: { target: string; at: number } | undefined;

  constructor(dir: Dir, liveness: Liveness) {
    this.#dir = dir;
    this.#liveness = liveness;
    this.#target = record(liveness.owner);
  }

  /**
   * Runs `task` while holding the lock, exclusive across every process sharing the folder and every
   * caller in this process. Gives up waiting (BACKEND, reason `busy`, nothing applied) at
   * `wait.giveUpAt`, whether the wait is for another process or for commands of this one ahead in
   * line; once `task` has started, it runs to its end.
   */
  run<T>(task: () => Promise<T>, wait: LockWait): Promise<T> {
    this.#staleMs = wait.staleMs;
    // Nobody ahead in this process (nearly always): no timer.
    if (this.#queued === 0) return this.#enqueue(() => this.#locked(task, wait));
    let state: 'queued' | 'started' | 'abandoned' = 'queued';
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          if (state !== 'queued') return;
          state = 'abandoned';
          wait.log.warn('gave up waiting for the lock behind commands of this process', {});
          reject(busy());
        },
        Math.max(0, wait.giveUpAt - Date.now()),
      );
      this.#enqueue(async () => {
        if (state === 'abandoned') return undefined;
        state = 'started';
        clearTimeout(timer);
        return this.#locked(task, wait);
      }).then(
        (value) => {
          if (state === 'started') resolve(value as T);
        },
        (error: unknown) => {
          if (state === 'started') reject(error);
        },
      );
    });
  }

  async #locked<T>(task: () => Promise<T>, wait: LockWait): Promise<T> {
    if (this.#pendingRelease) {
      clearTimeout(this.#pendingRelease);
      this.#pendingRelease = undefined;
    }
    if (this.#held && Date.now() - this.#held.since > HOLD_MS) {
      const held = this.#held;
      this.#held = undefined;
      const waiting = await this.#someoneWaits();
      await this.#release(held);
      if (waiting) await delay(HANDOFF_MS);
    }
    this.#held ??= await this.#acquire(wait);
    try {
      return await task();
    } finally {
      this.#scheduleRelease();
    }
  }

  /** Releases the lock now if this process holds it (the store is closing). */
  dispose(): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#pendingRelease) clearTimeout(this.#pendingRelease);
      this.#pendingRelease = undefined;
      const held = this.#held;
      this.#held = undefined;
      if (held) await this.#release(held).catch(() => {});
    });
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.#queued++;
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => {
        this.#queued--;
      },
      () => {
        this.#queued--;
      },
    );
    return result;
  }

  #scheduleRelease(): void {
    if (this.#pendingRelease || !this.#held) return;
    this.#pendingRelease = setTimeout(() => {
      this.#pendingRelease = undefined;
      void this.#enqueue(async () => {
        // A command that ran in between cancelled this release and scheduled its own.
        if (this.#pendingRelease || !this.#held) return;
        const held = this.#held;
        this.#held = undefined;
        await this.#release(held).catch(() => {});
      });
    }, LINGER_MS);
  }

  async #acquire(wait: LockWait): Promise<Held> {
    const file = this.#dir.at('lock');
    const marker = this.#dir.at('lock.waiting');
    const started = Date.now();
    let announced = false;
    for (let attempt = 1, delayMs = 1; ; attempt++, delayMs = Math.min(delayMs * 2, MAX_POLL_MS)) {
      try {
        await symlink(this.#target, file);
        if (announced) await unlink(marker).catch(() => {});
        // A process that exits while keeping the lock for a next command leaves no lock behind.
        removeWhenExiting(file);
        if (attempt > 1) {
          wait.log.debug('lock taken once another process let go', {
            waitedMs: Date.now() - started,
            attempts: attempt,
          });
        }
        return { target: this.#target, since: Date.now() };
      } catch (error) {
        if (errno(error) !== 'EEXIST') throw error;
      }
      if (await this.#breakIfStale(wait)) continue;
      if (!announced) {
        // Ask the holder to step aside at its next release (it may be keeping the lock across a
        // stream of commands). Another waiter's marker serves as well.
        await symlink(this.#target, marker).catch(() => {});
        announced = true;
      }
      const left = wait.giveUpAt - Date.now();
      if (left <= 0) {
        await unlink(marker).catch(() => {});
        wait.log.warn('gave up waiting for the lock held by another process', {
          waitedMs: Date.now() - started,
          attempts: attempt,
        });
        throw busy();
      }
      await delay(Math.min(left, delayMs * (0.5 + Math.random())));
    }
  }

  /** Whether the link at `name` was left by a holder that is gone; false when there is none. */
  async #isStale(name: string, trustRecent: boolean, wait: LockWait): Promise<boolean> {
    let target: string;
    let age: number;
    try {
      const path = this.#dir.at(name);
      [target, age] = await Promise.all([
        readlink(path),
        lstat(path).then((info) => Date.now() - info.mtimeMs),
      ]);
    } catch (error) {
      if (errno(error) === 'ENOENT') return false;
      throw error;
    }
    const recent = this.#lastAlive;
    if (trustRecent && recent?.target === target && Date.now() - recent.at < RECHECK_MS) return false;
    const owner = parseRecord(target);
    // A stalled holder may not answer at all: never ask past the time this change may wait.
    const patience = Math.max(1, wait.giveUpAt - Date.now());
    const verdict = owner ? await this.#liveness.check(owner, patience) : 'unknown';
    if (verdict === 'gone') return true;
    if (verdict === 'unknown') return age > this.#staleMs;
    this.#lastAlive = { target, at: Date.now() };
    return false;
  }

  /**
   * Removes the lock if its holder is gone. Only one process breaks a given lock: the breaker
   * marker (a link naming the breaker) is created exclusively, and staleness is checked again while
   * holding it, so a fresh lock taken in between is never removed. A breaker that died mid-break
   * is itself judged alive or gone the same way.
   */
  async #breakIfStale(wait: LockWait): Promise<boolean> {
    if (!(await this.#isStale('lock', true, wait))) return false;
    const breaker = this.#dir.at('lock.break');
    try {
      await symlink(this.#target, breaker);
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
      if (await this.#isStale('lock.break', false, wait)) await unlink(breaker).catch(() => {});
      return false;
    }
    try {
      if (!(await this.#isStale('lock', false, wait))) return false;
      await unlink(this.#dir.at('lock')).catch((error) => {
        if (errno(error) !== 'ENOENT') throw error;
      });
      wait.log.info('broke the lock of a dead process', {});
      return true;
    } finally {
      await unlink(breaker).catch(() => {});
    }
  }

  /** Whether a live process has announced that it waits for the lock. */
  async #someoneWaits(): Promise<boolean> {
    const marker = this.#dir.at('lock.waiting');
    const target = await readlink(marker).catch(() => undefined);
    if (target === undefined) return false;
    const owner = parseRecord(target);
    if (owner?.token === this.#liveness.owner.token) return false;
    if ((owner ? await this.#liveness.check(owner) : 'unknown') !== 'gone') return true;
    await unlink(marker).catch(() => {}); // left by a waiter that died
    return false;
  }

  async #release(held: Held): Promise<void> {
    const file = this.#dir.at('lock');
    keepAtExit(file);
    // Only a holder on another kernel can have its lock broken, and only after `staleMs`: a holder
    // that ran that long checks that the link is still its own before removing it.
    if (Date.now() - held.since > this.#staleMs / 2) {
      const current = await readlink(file).catch(() => '');
      if (current !== held.target) return;
    }
    await unlink(file).catch((error) => {
      if (errno(error) !== 'ENOENT') throw error;
    });
  }
}
