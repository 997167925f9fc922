// The history side of the admin sweep: what changes cannot prune themselves. A change prunes its
// own file from its file's chain (chain.ts), which names the newest 24 runs of kept versions; the
// sweep prunes the rest (versions beyond the chain, those of deleted files) by the kit's
// `prunable`, and removes the version objects of changes that never committed (a writer that died
// between its version and its commit), once they are old enough that no change can still be
// committing them.
import { prunable } from '@memdir/core/driver';
import type { Call } from '../call.js';
import { listObjects } from '../listing.js';
import type { Space } from '../space.js';
import { readSlots, visibleAmong } from './read.js';
import type { StoredSlot } from './record.js';

/** A version object that no change committed is removed once it is this old (no change takes that long). */
const ABANDONED_AFTER_MS = 10 * 60_000;

/**
 * One bounded batch of the namespace's history upkeep: at most `budget` version objects removed,
 * those retention no longer keeps (judged at `now`) and those of changes that never happened.
 * Reads the whole history (a listing page per 1000 versions).
 * @returns how many were removed, and whether more may be left.
 */
export async function sweepVersions(
  space: Space,
  retention: { readonly keepVersions: number; readonly keepDays: number } | undefined,
  now: number,
  budget: number,
  call: Call,
): Promise<{ pruned: number; done: boolean }> {
  const objects = [];
  for await (const object of listObjects(space.backend.bucket, space.keys.history, { call }))
    objects.push(object);
  const slots = await readSlots(space, objects, call);
  const visible = await visibleAmong(space, slots, true, call);
  const doomed: string[] = [];
  for (const slot of slots) {
    if (!visible.has(slot.seq) && now - slot.header.at >= ABANDONED_AFTER_MS) doomed.push(slot.key);
  }
  if (retention) {
    const byFile = new Map<string, StoredSlot[]>();
    for (const slot of slots) {
      if (!visible.has(slot.seq)) continue;
      const list = byFile.get(slot.header.fileId) ?? [];
      list.push(slot);
      byFile.set(slot.header.fileId, list);
    }
    for (const list of byFile.values()) {
      const newestFirst = list.map((slot) => ({ at: slot.header.at, key: slot.key }));
      // One more than the budget: then the caller knows more are left.
      for (const index of prunable(newestFirst, retention, now, budget + 1))
        doomed.push(newestFirst[index]!.key);
    }
  }
  const batch = doomed.slice(0, budget);
  if (batch.length > 0) await space.backend.bucket.deleteMany(batch, call);
  for (const key of batch) space.backend.namespace(space.keys).history.forget(key);
  return { pruned: batch.length, done: doomed.length <= budget };
}
