// Finishing what a crashed store left half done, from the journal in the lease it held (lease.ts):
// the store that takes the expired lease over runs this before its own changes. Each step can run
// again: a crash during recovery leaves the same journal to the next taker.

import type { Call } from './call.js';
import { moveCarrier, moveRecorder, recordRecoveredRemoval } from './history/structure.js';
import { Lookups, region } from './inspect.js';
import type { Journal, Lease } from './lease.js';
import { movingSet, relocateAll } from './move.js';
import type { Held } from './sessions.js';
import type { Space } from './space.js';
import { isLiveFile, type RecordedJournal } from './structure.js';

/** Finishes the changes `journal` records, oldest first. */
export async function recover(
  space: Space,
  lease: Lease,
  journal: readonly Journal[],
  call: Call,
): Promise<void> {
  const { bucket } = space.backend;
  const { keys } = space;
  const held: Held = {
    lease,
    lookups: new Lookups(),
    siblings: 1,
    changing: () => {},
    last: () => false,
    released: () => {},
  };
  for (const entry of journal) {
    // The record of a change made with history on: the versions it still owes are recorded with it.
    const record = (entry as RecordedJournal<typeof entry.kind>).record;
    if (entry?.kind === 'remove' && typeof entry.path === 'string') {
      const objects = await region(space, entry.path, call);
      const pruned = record ? await recordRecoveredRemoval(space, objects, record, entry.op, call) : [];
      lease.check();
      await bucket.deleteMany([...objects.map((object) => object.key), ...pruned], call);
    } else if (entry?.kind === 'move' && typeof entry.from === 'string' && typeof entry.to === 'string') {
      let copying = entry.phase === 'copying';
      if (!copying) {
        // A file's move copies while its journal says `intent`: a copy made by this move (it
        // carries the move's operation id) means the checks had passed.
        const copy = await bucket.head(keys.file(entry.to), call);
        copying = isLiveFile(copy) && copy.ops.includes(entry.op);
      }
      if (!copying) continue;
      const moving = await movingSet(space, entry.from, entry.to, call);
      const recorder = record ? moveRecorder(space, record, entry.op, call) : moveCarrier(space, call);
      const leftovers = await relocateAll(space, held, moving.moves, entry.op, true, call, recorder);
      lease.check();
      await bucket.deleteMany([...leftovers, ...moving.litter], call);
    }
  }
  space.backend.known.forgetBeneath(keys.files);
}
