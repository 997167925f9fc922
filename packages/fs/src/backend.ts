// What a filesystem driver shares with its namespaces: the resolved root, the lock's settings, the
// log, the identity telemetry sees, and how long a change waits for the lock before it says "busy".
import { createHash } from 'node:crypto';
import type { DriverLog } from '@memdir/core/driver';
import type { LockWait } from './lock.js';
import type { NamesKnown } from './namespace-names.js';

/**
 * What a lock wait leaves before the deadline, so the change can still be made and answered in
 * time, and a busy store says "busy" rather than running into the engine's timeout: a fifth of the
 * call's time, at most a second (a `timeoutMs` of 1,000 waits up to 800 ms, of 5,000 up to 4 s).
 */
const LOCK_RESERVE_SHARE = 0.2;
const LOCK_RESERVE_MAX_MS = 1_000;

/** What a driver shares with its namespaces: the root, the lock's settings, the log. */
export class Backend {
  readonly identity: { readonly kind: 'fs'; readonly id: string };
  /** How the filesystem under the root compares names, once probed (namespace-names.ts). */
  readonly names: NamesKnown = {};

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
