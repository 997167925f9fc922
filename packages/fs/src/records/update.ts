// An update by id that gives a file new content and a new path, under the lock: the new content
// is written to a temporary file, renamed to the new path, then the old path is unlinked, as one
// change (one `renamed` version, one records group marked to be rolled forward: a process that
// dies between the two steps leaves a group the next locked call finishes by removing the old
// path). Listings see a move running (the seq mark) while both paths hold the file.
import {
  judgeQuota,
  refuseAlreadyExists,
  refuseLink,
  refusePathConflict,
  refuseQuota,
  refuseTooLarge,
} from '@memdir/core/driver';
import { entryAt, openFolder } from '../dir.js';
import type { Generation } from '../generation.js';
import { closeHoldsFile, stopRefusal } from '../lookup.js';
import { errno, unlink } from '../sys.js';
import { closeWalk, pruneEmpty, removeEmptyFolders, walk } from '../tree.js';
import { type ChangeCall, type Made, makeFolders, unmake } from '../write.js';

export async function updateLocked(
  generation: Generation,
  from: string,
  to: string,
  content: string,
  call: ChangeCall,
  maxBytes: number,
): Promise<void> {
  const root = generation.memories!;
  const fromSegments = from.split('/');
  const segments = to.split('/');
  const name = segments.at(-1)!;
  const data = Buffer.from(content, 'utf8');
  const temp = generation.newTemp();
  const written = temp.write(data);
  written.catch(() => {});
  const made: Made[] = [];
  let failed = true;
  const walks = await Promise.allSettled([walk(root, fromSegments), walk(root, segments)]);
  let marked: Promise<void> | undefined;
  try {
    const [source, target] = walks.map((each) => {
      if (each.status === 'rejected') throw each.reason;
      return each.value;
    }) as [Awaited<ReturnType<typeof walk>>, Awaited<ReturnType<typeof walk>>];
    const refusal = stopRefusal(target, segments);
    if (refusal) throw refusal;
    let replaceEmptyFolder = false;
    if (target.parent) {
      const entry = await entryAt(target.parent, name);
      if (entry?.kind === 'link') throw refuseLink(to);
      if (entry?.kind === 'file' || entry?.kind === 'other') throw refuseAlreadyExists(to);
      if (entry?.kind === 'directory') {
        const inner = await openFolder(target.parent, name);
        if (typeof inner !== 'string' && (await closeHoldsFile(inner))) throw refuseAlreadyExists(to);
        replaceEmptyFolder = true;
      }
    }
    if (data.length > maxBytes) throw refuseTooLarge(to);
    const old = await entryAt(source.parent!, fromSegments.at(-1)!);
    const oldSize = old?.size ?? 0;
    const totals = await generation.totals!.current(root, call.log);
    const change = { bytes: data.length - oldSize, files: 0 };
    const breach = judgeQuota(call.quota, {
      bytes: totals.bytes,
      files: totals.files,
      addedBytes: change.bytes,
      newFile: false,
    });
    if (breach) throw refuseQuota(to, breach);
    marked = generation.beginMove();
    await marked;
    await generation.totals!.counted(
      totals,
      change,
      async () => {
        await written;
        const parent =
          target.parent ?? (await makeFolders(target.folders.at(-1)!, segments, target.stop!.depth, made));
        if (replaceEmptyFolder && !(await removeEmptyFolders(parent, name))) throw refuseAlreadyExists(to);
        call.history?.before([
          { path: to, previousPath: from, operation: 'renamed', content, file: temp.stat },
        ]);
        await temp.commit(parent.at(name)).catch((error) => {
          if (errno(error) === 'EISDIR' || errno(error) === 'ENOTEMPTY') throw refusePathConflict(to);
          throw error;
        });
        // The change is made: the old path goes next (a crash here is finished by the next call).
        failed = false;
        await unlink(source.parent!.at(fromSegments.at(-1)!)).catch((error) => {
          if (errno(error) !== 'ENOENT') throw error;
        });
        call.history?.happened();
      },
      call.log,
    );
    await pruneEmpty(source, fromSegments);
  } finally {
    if (failed) await temp.discard();
    if (marked) {
      await marked.then(
        () => generation.endMove().catch(() => {}),
        () => {},
      );
    }
    await unmake(made, failed);
    for (const each of walks) if (each.status === 'fulfilled') closeWalk(each.value);
  }
}
