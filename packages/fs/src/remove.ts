// `remove` under the lock: a file is one unlink; a folder is one rename into the trash (so the whole
// subtree leaves every listing at once), removed afterwards outside the lock. Both are counted in
// the namespace's totals in the same locked step.
import { refuseLink } from '@memdir/core/driver';
import { entryAt, openFolder } from './dir.js';
import type { Generation } from './generation.js';
import { listFiles } from './list-files.js';
import { stopRefusal } from './lookup.js';
import { errno, rename, unlink } from './sys.js';
import { closeWalk, pruneEmpty, walk } from './tree.js';
import type { ChangeCall } from './write.js';

/** What a locked removal did: whether something was there, and the trash left to remove. */
export interface Removal {
  readonly removed: boolean;
  /** The name in `tmp` the folder was moved to, to remove once the lock is released. */
  readonly trash?: string | undefined;
}

/** Removes the file or folder at `path` (never `''`); `removed: false` when nothing was there. */
export async function removeLocked(generation: Generation, path: string, call: ChangeCall): Promise<Removal> {
  const segments = path.split('/');
  const name = segments.at(-1)!;
  const walked = await walk(generation.memories!, segments);
  try {
    const refusal = stopRefusal(walked, segments);
    if (walked.stop) {
      if (refusal?.code === 'INVALID_PATH') throw refusal;
      return { removed: false };
    }
    const parent = walked.parent!;
    const entry = await entryAt(parent, name);
    if (entry?.kind === 'link') throw refuseLink(path);
    let trash: string | undefined;
    if (entry?.kind === 'file') {
      const totals = await generation.totals!.current(generation.memories!, call.log);
      try {
        await generation.totals!.counted(
          totals,
          { bytes: -entry.size, files: -1 },
          async () => {
            call.history?.before([{ path, operation: 'deleted', content: null }]);
            await unlink(parent.at(name));
            call.history?.happened();
          },
          call.log,
        );
      } catch (error) {
        // Removed by another program meanwhile: nothing was there to remove.
        if (errno(error) === 'ENOENT') return { removed: false };
        throw error;
      }
    } else if (entry?.kind === 'directory') {
      // Marked at once: the mark and the checks below overlap, and a mark for nothing only makes a
      // listing look again.
      const moving = generation.beginMove();
      try {
        const inner = await openFolder(parent, name);
        if (inner === 'link') throw refuseLink(path);
        if (typeof inner === 'string') return { removed: false };
        // Every file beneath, for the totals (and whether there is any: a folder with none is no
        // directory, SPEC section 3).
        let files: Awaited<ReturnType<typeof listFiles>>;
        try {
          files = await listFiles(inner, path, false);
        } finally {
          inner.close();
        }
        if (files.length === 0) return { removed: false };
        let bytes = 0;
        for (const file of files) bytes += file.size;
        const totals = await generation.totals!.current(generation.memories!, call.log);
        const into = generation.trashName();
        await moving;
        await generation.totals!.counted(
          totals,
          { bytes: -bytes, files: -files.length },
          async () => {
            call.history?.before(
              files.map((file) => ({ path: file.path, operation: 'deleted' as const, content: null })),
            );
            await rename(parent.at(name), generation.tmp!.at(into));
            call.history?.happened();
          },
          call.log,
        );
        trash = into;
      } finally {
        await moving
          .then(
            () => generation.endMove(),
            () => {},
          )
          .catch((error: unknown) => {
            // The folder is gone either way; listings take a stuck mark as such after a second.
            call.log.warn('the move mark could not be cleared', { code: errno(error) });
          });
      }
    } else {
      return { removed: false };
    }
    await pruneEmpty(walked, segments);
    return { removed: true, trash };
  } finally {
    closeWalk(walked);
  }
}
