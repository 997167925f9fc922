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

// Holders inside this process queue here, so they never poll the lock file for each other; the
// file is contended only between processes. Keyed by the lock file's absolute path.
const queues = new Map<string, Promise<void>>();

const HOST = hostname();
// A stale-lock breaker that died mid-break leaves its marker behind; it is ignored after this.
const BREAKER_STALE_MS = 5_000;
const MAX_POLL_MS = 20;

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

/** Whether the lock at `file` was left by a holder that is gone. False when there is no lock. */
async function isStale(file: string, staleMs: number): Promise<boolean> {
  let owner: string;
  let age: number;
  try {
    [owner, age] = await Promise.all([
      readlink(file),
      lstat(file).then((info) => Date.now() - info.mtimeMs),
    ]);
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
  if (age > staleMs) return true;
  const [pid, host] = owner.split('\n');
  return host === HOST && !isAlive(Number(pid));
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

async function acquire(file: string, options: LockOptions): Promise<{ owner: string; since: number }> {
  const owner = `${process.pid}\n${HOST}\n${randomUUID()}`;
  const deadline = Date.now() + options.timeoutMs;
  for (let delay = 1; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
    try {
      // The lock is a symbolic link whose target names the owner: creating it is one atomic
      // system call that fails with EEXIST while someone holds it, and it carries the owner
      // without writing a data block (a lock file opened with O_EXCL needs open, write, close).
      await symlink(owner, file);
      return { owner, since: Date.now() };
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error;
    }
    if (await breakIfStale(file, options.staleMs)) continue;
    if (Date.now() >= deadline) {
      throw new MemoryToolError(
        'BACKEND',
        'The memory store is busy: another process is holding its lock. Try again.',
      );
    }
    await sleep(delay * (0.5 + Math.random()));
  }
}

async function release(file: string, held: { owner: string; since: number }, staleMs: number) {
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

/**
 * Runs `task` while holding the lock `file` (an absolute path), exclusive across every process on
 * this host and every caller in this process. The lock is a symbolic link whose target holds the
 * owner's pid, host and a random token; a lock whose owner died (SIGKILL, or a crash before a
 * restart) is detected by its pid and broken.
 */
export async function withLock<T>(file: string, options: LockOptions, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(file) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const turn = previous.then(() => mine);
  queues.set(file, turn);
  await previous;
  try {
    const held = await acquire(file, options);
    try {
      return await task();
    } finally {
      await release(file, held, options.staleMs);
    }
  } finally {
    done();
    if (queues.get(file) === turn) queues.delete(file);
  }
}
