// The history file rewritten without its dead lines, once pruning left it mostly dead: run under
// the lock by every change that pruned, and by the sweep and a restore.
import type { DriverLog } from '@memdir/core/driver';
import type { Generation } from '../generation.js';

/** Rewrites the history file when pruning left it mostly dead (under the lock). */
export async function compact(generation: Generation, log: DriverLog): Promise<void> {
  if (!generation.history.wasteful) return;
  await generation.history.rewrite(generation.newTemp()).catch((error: unknown) => {
    log.warn('history could not be compacted', {
      code: (error as NodeJS.ErrnoException).code,
    });
  });
}
