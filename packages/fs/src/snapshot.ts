// A consistent view of a file or a folder without taking the lock. A move (a rename, or a folder's
// delete, which moves it to the trash first) marks the seq before and after (see generation.ts),
// and a walk that saw the seq change, or a move still running, looks again. So a listing never
// shows a moved folder in both places or in neither, nor half of a folder being deleted.
import { setTimeout as delay } from 'node:timers/promises';
import type { DriverCallStats, DriverEntry, DriverFile } from '@memdir/core';
import { checkTime, type Deadlined, type DriverLog } from '@memdir/core/driver';
import { type Generation, seqSettled } from './generation.js';
import { listFiles } from './list-files.js';
import { closeHoldsFile, find } from './lookup.js';
import { closeWalk } from './tree.js';
import { versioned } from './version.js';

/** Walks in a row that may meet a move before a listing walks under the lock instead. */
const LISTING_ATTEMPTS = 8;
/** How long one odd mark may stay before it is taken as a move whose writer died half-way. */
const STUCK_SEQ_MS = 1_000;

/** What a snapshot needs of the call beside the folder. */
export interface SnapshotCall extends Deadlined {
  readonly stats?: DriverCallStats | undefined;
  readonly log: DriverLog;
  /**
   * Runs a walk under the lock, for a listing that keeps meeting moves; undefined when this
   * folder cannot be written (then the listing keeps looking until the deadline).
   */
  readonly underLock?: (<T>(task: () => Promise<T>) => Promise<T>) | undefined;
  /** Record a read of the file found, for expiry (`touch`). */
  readonly touch?: boolean | undefined;
}

/** The file at `path`, or whether the folder there holds a file; null for nothing. One walk, no listing. */
export async function readAt(
  generation: Generation,
  path: string,
  touch = false,
): Promise<DriverFile | { kind: 'directory' } | null> {
  if (path === '') return { kind: 'directory' };
  const root = generation.memories;
  const found = root ? await find(root, path, touch) : null;
  if (found === null) return null;
  closeWalk(found.walked);
  if (found.kind === 'file') return versioned(found.text.content);
  return (await closeHoldsFile(found.folder)) ? { kind: 'directory' } : null;
}

/**
 * The file at `path`, or every file beneath the folder at `path` (hidden subtrees reported once
 * with `skipHidden`), as one snapshot; null when nothing is there.
 */
export async function snapshot(
  generation: Generation,
  path: string,
  skipHidden: boolean,
  call: SnapshotCall,
): Promise<DriverFile | DriverEntry[] | null> {
  const once = async (): Promise<DriverFile | DriverEntry[] | null> => {
    const root = generation.memories;
    if (!root) return path === '' ? [] : null;
    if (path === '') return listFiles(root, path, skipHidden);
    const found = await find(root, path, call.touch);
    if (found === null) return null;
    closeWalk(found.walked);
    // One file is read in one call: no move can split it.
    if (found.kind === 'file') return versioned(found.text.content);
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
    if (call.stats) call.stats.retries++;
    // Nobody waits for an answer past the deadline: stop walking.
    checkTime(call);
    // Moves keep meeting the walk (another process streams them): walk once under the lock,
    // where none can run. A folder that cannot be written cannot take the lock: keep looking.
    if (attempt >= LISTING_ATTEMPTS && call.underLock) {
      call.log.debug('a listing kept meeting moves: walking under the lock', { walks: attempt });
      return call.underLock(once);
    }
    if (attempt > 2) await delay(Math.min(attempt, 10));
  }
}
