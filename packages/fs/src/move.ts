// `move` under the lock: both paths are checked through handles, then one rename moves the file or
// the whole folder. A move changes neither the namespace's bytes nor its files: the totals stay.
import { MemoryToolError } from '@memdir/core';
import { refuseAlreadyExists, refuseLink, refuseNotFound } from '@memdir/core/driver';
import { kindAt, openFolder } from './dir.js';
import type { Generation } from './generation.js';
import { readTree } from './history/recorder.js';
import { closeHoldsFile, stopRefusal } from './lookup.js';
import { ensureRecords, pathsAt } from './records/files.js';
import { errno, rename, settleAll } from './sys.js';
import { closeWalk, pruneEmpty, removeEmptyFolders, type Walk, walk } from './tree.js';
import { type ChangeCall, type Made, makeFolders, unmake } from './write.js';

/** What is at the source: something to move, nothing, or the refusal a link calls for. */
async function sourceState(source: Walk, segments: readonly string[], from: string) {
  const refusal = stopRefusal(source, segments);
  if (source.stop) return refusal?.code === 'INVALID_PATH' ? refusal : 'missing';
  const name = segments.at(-1)!;
  const kind = await kindAt(source.parent!, name);
  if (kind === 'link') return refuseLink(from);
  if (kind === 'file') return 'ok';
  if (kind !== 'directory') return 'missing';
  const inner = await openFolder(source.parent!, name);
  if (typeof inner === 'string') return inner === 'link' ? refuseLink(from) : 'missing';
  return (await closeHoldsFile(inner)) ? 'ok' : 'missing';
}

/** What is at the target: free, free once its folders are made, an empty folder to take, or a refusal. */
async function targetState(target: Walk, segments: readonly string[], to: string) {
  const refusal = stopRefusal(target, segments);
  if (refusal) return refusal;
  if (target.stop) return 'missing parents';
  const name = segments.at(-1)!;
  const kind = await kindAt(target.parent!, name);
  if (kind === 'link') return refuseLink(to);
  if (kind === null) return 'free';
  if (kind !== 'directory') return refuseAlreadyExists(to);
  const inner = await openFolder(target.parent!, name);
  if (typeof inner === 'string') return inner === 'link' ? refuseLink(to) : refuseAlreadyExists(to);
  return (await closeHoldsFile(inner)) ? refuseAlreadyExists(to) : 'empty folder';
}

function unwrap<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/**
 * Moves `from` to `to` (neither `''`, `to` never beneath `from`), with the refusals SPEC section 1
 * ranks: INVALID_PATH (old path, then new), NOT_FOUND, PATH_CONFLICT, ALREADY_EXISTS.
 */
export async function moveLocked(
  generation: Generation,
  from: string,
  to: string,
  call: ChangeCall,
): Promise<void> {
  const root = generation.memories!;
  const fromSegments = from.split('/');
  const toSegments = to.split('/');
  const toName = toSegments.at(-1)!;
  // Marked at once, so the mark overlaps the checks; a mark for nothing only makes a listing look again.
  const moving = generation.beginMove();
  moving.catch(() => {});
  const made: Made[] = [];
  let failed = true;
  let moved = false;
  const walks = Promise.allSettled([walk(root, fromSegments), walk(root, toSegments)]);
  try {
    const [walkedFrom, walkedTo] = await walks;
    const source = unwrap(walkedFrom);
    const target = unwrap(walkedTo);
    // Everything about both paths first, then the refusal that ranks first.
    const states = await settleAll([
      sourceState(source, fromSegments, from),
      targetState(target, toSegments, to),
    ]);
    const refusals = states.filter((state) => state instanceof MemoryToolError);
    const invalid = refusals.find((refusal) => refusal.code === 'INVALID_PATH');
    if (invalid) throw invalid;
    if (states[0] === 'missing') throw refuseNotFound(from);
    if (states[1] instanceof MemoryToolError) throw states[1];
    const parent =
      target.parent ?? (await makeFolders(target.folders.at(-1)!, toSegments, target.stop!.depth, made));
    if (states[1] === 'empty folder' && !(await removeEmptyFolders(parent, toName))) {
      throw refuseAlreadyExists(to);
    }
    if (call.history) {
      // History reads the moved files (their versions hold the content); the records need only
      // their own, checked against the files.
      const files: { path: string; content: string | null }[] = call.history.wantsContent
        ? await readTree(root, from)
        : (await pathsAt(root, from)).map((path) => ({ path, content: null }));
      await ensureRecords(
        generation,
        files.map((file) => file.path),
      );
      call.history.before(
        files.map((file) => ({
          path: to + file.path.slice(from.length),
          previousPath: file.path,
          operation: 'renamed' as const,
          content: file.content,
        })),
      );
    }
    await moving;
    await rename(source.parent!.at(fromSegments.at(-1)!), parent.at(toName)).catch((error) => {
      const code = errno(error);
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR') throw refuseAlreadyExists(to);
      if (code === 'ENOENT') throw refuseNotFound(from);
      throw error;
    });
    call.history?.happened();
    generation.totals!.markChanged();
    failed = false;
    moved = true;
    // Clearing the mark and removing the folders the move emptied overlap. The move is done: a mark
    // that cannot be cleared is taken as stuck by listings after a second, and is no failure.
    await settleAll([generation.endMove(), pruneEmpty(source, fromSegments)]).catch((error: unknown) => {
      call.log.warn('the move mark could not be cleared', { code: errno(error) });
    });
  } finally {
    if (!moved) {
      await moving.then(
        () => generation.endMove().catch(() => {}),
        () => {},
      );
    }
    await unmake(made, failed);
    for (const each of await walks) if (each.status === 'fulfilled') closeWalk(each.value);
  }
}
