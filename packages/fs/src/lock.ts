import { randomUUID } from 'node:crypto';
import { lstat, readlink, symlink, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { MemoryToolError } from '@memdir/core';
import { errno } from './errors.js';

/** How a lock waits and when it counts as abandoned. */
export interface LockOptions {
  /** How long to wait for another holder before giving up with `BACKEND` (busy). */
  timeoutMs: number;
  /** A lock older than this is taken as abandoned even if its process seems alive (pid reuse). */
  staleMs: number;
}

// The lock is a symbolic link, `{folder}/.memdir/lock`, whose target names the owner (pid, host,
// random token). Creating it is one atomic system call that fails with EEXIST while someone holds
// it, and writes no data block.
//
// Taking and dropping it costs two directory changes, which on a journalled filesystem cost about
// as much as writing a small file. So a process keeps the lock from one command to the next when
// they follow each other closely (a loop that awaits each command, with a read in between): the
// release waits LINGER_MS and is cancelled if another command of this process comes first. To stay fair to
// other processes, a holder that has kept the lock for HOLD_MS releases it, and if another process
// has announced that it waits (the `lock.waiting` link), steps aside for HANDOFF_MS before taking it
// again. Releasing also renews the link's age, which other processes use to detect abandoned locks.

/** How long an idle holder keeps the lock for a next command of its own. */
const LINGER_MS = 2;
/** Longest a process keeps the lock across commands before it releases it. */
const HOLD_MS = 50;
/** How long a holder steps aside when another process waits: longer than a waiter's poll. */
const HANDOFF_MS = 25;
/** Longest pause between two attempts of a waiting process. */
const MAX_POLL_MS = 16;
// A stale-lock breaker that died mid-break leaves its marker behind; it is ignored after this.
const BREAKER_STALE_MS = 5_000;

const HOST = hostname();

interface Held {
  owner: string;
  since: number;
}

/** What this process knows of one lock file. */
interface LockState {
  /** Tail of this process's queue for the lock: callers in this process never poll for each other. */
  tail: Promise<void>;
  /** The file lock, while this process holds it. */
  held: Held | undefined;
  /** The release scheduled LINGER_MS after the last command, cancelled by the next command. */
  pendingRelease: NodeJS.Timeout | undefined;
}

const states = new Map<string, LockState>();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True unless the process is known to be gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errno(error) !== 'ESRCH';
  }
}

/** True when `owner` (a link target) names a process on this host that is gone. */
function ownerIsGone(owner: string): boolean {
  const [pid, host] = owner.split('\n');
  return host === HOST && !isAlive(Number(pid));
}

/** Whether the lock at `file` was left by a holder that is gone. False when there is no lock. */
async function isStale(file: string, staleMs: number): Promise<boolean> {
  let owner: string;
  let age: number;
  try {
    [owner, age] = await Promise.all([readlink(file), lstat(file).then((info) => Date.now() - info.mtimeMs)]);
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
  return age > staleMs || ownerIsGone(owner);
}

/**
 * Removes the lock at `file` if it is stale. Only one process breaks a given lock: the breaker
 * marker is created exclusively, and staleness is checked again while holding it, so a fresh lock
 * taken in between is never removed.
 */
async function breakIfStale(file: string, staleMs: number): Promise<boolean> {
  if (!(await isStale(file, staleMs))) return false;
  const breaker = `${file}.break`;
  try {
    await writeFile(breaker, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (errno(error) !== 'EEXIST') throw error;
    const age = await lstat(breaker).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    if (age > BREAKER_STALE_MS) await unlink(breaker).catch(() => {});
    return false;
  }
  try {
    if (!(await isStale(file, staleMs))) return false;
    await unlink(file).catch((error) => {
      if (errno(error) !== 'ENOENT') throw error;
    });
    return true;
  } finally {
    await unlink(breaker).catch(() => {});
  }
}

/** Whether a live process has announced that it waits for the lock. */
async function someoneWaits(file: string): Promise<boolean> {
  const marker = `${file}.waiting`;
  const waiter = await readlink(marker).catch(() => undefined);
  if (waiter === undefined) return false;
  if (!ownerIsGone(waiter)) return true;
  await unlink(marker).catch(() => {}); // left by a waiter that died
  return false;
}

async function acquire(file: string, options: LockOptions): Promise<Held> {
  const owner = `${process.pid}\n${HOST}\n${randomUUID()}`;
  const marker = `${file}.waiting`;
  const deadline = Date.now() + options.timeoutMs;
  let announced = false;
  for (let delay = 1; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
    try {
      await symlink(owner, file);
      if (announced) await unlink(marker).catch(() => {});
      return { owner, since: Date.now() };
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
    if (await breakIfStale(file, options.staleMs)) continue;
    if (!announced) {
      // Ask the holder to step aside at its next release (it may be keeping the lock across a
      // stream of commands). Another waiter's marker serves as well.
      await symlink(`${process.pid}\n${HOST}`, marker).catch(() => {});
      announced = true;
    }
    if (Date.now() >= deadline) {
      await unlink(marker).catch(() => {});
      throw new MemoryToolError(
        'BACKEND',
        'The memory store is busy: another process is holding its lock. Try again.',
      );
    }
    await sleep(delay * (0.5 + Math.random()));
  }
}

async function release(file: string, held: Held, staleMs: number): Promise<void> {
  // A holder that ran past `staleMs` may have had its lock broken and taken by someone else:
  // only remove the link if it is still ours.
  if (Date.now() - held.since > staleMs / 2) {
    const current = await readlink(file).catch(() => '');
    if (current !== held.owner) return;
  }
  await unlink(file).catch((error) => {
    if (errno(error) !== 'ENOENT') throw error;
  });
}

/** Runs `task` after every task queued before it on `state`, one at a time. */
function enqueue<T>(state: LockState, task: () => Promise<T>): Promise<T> {
  const result = state.tail.then(task);
  state.tail = result.then(
    () => {},
    () => {},
  );
  return result;
}

function scheduleRelease(file: string, state: LockState, staleMs: number): void {
  if (state.pendingRelease || !state.held) return;
  state.pendingRelease = setTimeout(() => {
    state.pendingRelease = undefined;
    void enqueue(state, async () => {
      // A command that ran in between cancelled this release and scheduled its own.
      if (state.pendingRelease || !state.held) return;
      const held = state.held;
      state.held = undefined;
      await release(file, held, staleMs).catch(() => {});
    });
  }, LINGER_MS);
}

/**
 * Runs `task` while holding the lock `file` (an absolute path), exclusive across every process on
 * this host and every caller in this process. A lock whose owner died (SIGKILL, or a crash before a
 * restart) is detected by its pid and broken; see the comment at the top for how the lock is kept
 * across consecutive commands.
 */
export function withLock<T>(file: string, options: LockOptions, task: () => Promise<T>): Promise<T> {
  let state = states.get(file);
  if (!state) {
    state = { tail: Promise.resolve(), held: undefined, pendingRelease: undefined };
    states.set(file, state);
  }
  const current = state;
  return enqueue(current, async () => {
    if (current.pendingRelease) {
      clearTimeout(current.pendingRelease);
      current.pendingRelease = undefined;
    }
    if (current.held && Date.now() - current.held.since > HOLD_MS) {
      const held = current.held;
      current.held = undefined;
      const waiting = await someoneWaits(file);
      await release(file, held, options.staleMs);
      if (waiting) await sleep(HANDOFF_MS);
    }
    current.held ??= await acquire(file, options);
    try {
      return await task();
    } finally {
      scheduleRelease(file, current, options.staleMs);
    }
  });
}
