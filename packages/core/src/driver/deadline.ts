// One deadline per command (DriverCallOptions.deadline): what every adapter derives its request
// timeouts, retries, lock waits and group-commit limits from, so a `timeoutMs` of 1 s or 12 s holds
// the same way on every store.
import { storeUnavailable } from './refusals.js';

/** The time a driver called on its own (no engine, no deadline) allows one call: 5 s (SPEC section 7). */
export const STANDALONE_DEADLINE_MS = 5_000;

/** What carries a deadline: any driver call's options. */
export interface Deadlined {
  readonly deadline?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The call's deadline in `Date.now()` ms: its own, or {@link STANDALONE_DEADLINE_MS} from `now`. */
export function deadlineOf(options: Deadlined | undefined, now = Date.now()): number {
  return options?.deadline ?? now + STANDALONE_DEADLINE_MS;
}

/**
 * Milliseconds left before the call's deadline (0 once it passed). A driver gives a request at
 * most this long, and keeps a margin for its own bookkeeping where it needs one.
 */
export function timeLeft(options: Deadlined | undefined, now = Date.now()): number {
  return Math.max(0, deadlineOf(options, now) - now);
}

/**
 * Throws the "out of time" failure when the call's deadline passed or the engine stopped waiting:
 * a driver checks this before it sends anything, so nothing goes out that nobody waits for.
 */
export function checkTime(options: Deadlined | undefined): void {
  if (options?.signal?.aborted || (options?.deadline !== undefined && Date.now() >= options.deadline)) {
    throw storeUnavailable('the command ran out of time', undefined, 'timeout');
  }
}

/**
 * Waits `ms` milliseconds, or less when `signal` aborts first (then it resolves early: the caller
 * checks the time after waking). The timer keeps the process alive: every wait is a command's
 * (a backoff, a lease wait) that someone awaits, and a process whose only work left is such a wait
 * must finish the command, not exit with the command half done.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
