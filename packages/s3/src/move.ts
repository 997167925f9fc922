// Moves, under the namespace's lease (sessions.ts): a move copies before it deletes, file by file,
// so a crash leaves every file in at least one place. Between a file's copy and its delete, a
// concurrent edit (a conditional PUT, which takes no lease) would be lost with the old copy, so the
// source is first frozen with a conditional write of a stand-in over the version that was copied;
// if that write fails, the file changed, and it is copied again (see structure.ts). With history,
// each copy carries its `renamed` version (history/structure.ts).
import {
  ancestors,
  outcomeUnknown,
  refuseAlreadyExists,
  refuseNotFound,
  refusePathConflict,
} from '@memdir/core/driver';
import type { Call } from './call.js';
import { liveFile, type MoveRecording, moveCarrier, moveRecorder } from './history/structure.js';
import { inspect, region } from './inspect.js';
import { isListedTombstone } from './listing.js';
import { type ObjectContent, type ObjectInfo, opsHeader, TOMBSTONE } from './objects.js';
import type { Held } from './sessions.js';
import type { Space } from './space.js';
import {
  type ChangeContext,
  COPY_CONCURRENCY,
  deleteWithLease,
  isLiveFile,
  MAX_COPIES,
  type RecordedJournal,
} from './structure.js';

/** One file of a move: its key, where it goes, and the version the listing saw. */
interface Relocation {
  readonly from: string;
  readonly to: string;
  readonly etag: string;
}

/**
 * Copies one file and freezes (or conditionally deletes) its source, copying again while the
 * source changes under it. With `recovering`, the copy may already exist: it is kept when it holds
 * the source's content, or when it was edited since (the newer content wins over the source).
 * @returns the key left to delete (a tombstone), if any.
 */
export async function relocate(
  space: Space,
  held: Held,
  move: Relocation,
  op: string,
  recovering: boolean,
  call: Call,
  recorder?: Recorder | undefined,
): Promise<string | undefined> {
  const { bucket } = space.backend;
  const { md5Etags, conditionalDelete } = bucket.behaviour;
  const { lease } = held;
  let etag = move.etag;
  let copyNeeded = true;
  /** The version of the copy that landed, committed once the source is frozen or deleted. */
  let recording: MoveRecording | undefined;
  if (recovering) {
    const copy = await bucket.head(move.to, call);
    if (isLiveFile(copy)) {
      if (copy.source === etag || (md5Etags && copy.etag === etag) || !copy.ops.includes(op))
        copyNeeded = false;
    }
  }
  for (let attempt = 0; attempt < MAX_COPIES; attempt++) {
    if (copyNeeded) {
      lease.check();
      const recorded = recorder ? await recorder(move.from, move.to, etag) : undefined;
      if (recorded === null) return undefined;
      if (recorded) etag = recorded.etag;
      const copied = await bucket.copy(
        move.from,
        move.to,
        etag,
        opsHeader(op),
        call,
        recorded?.versioned.file,
      );
      if (copied === null) {
        await recorded?.versioned.settle(false);
        return undefined;
      }
      // radosgw ignores CopySourceIfMatch: with MD5 ETags, the copy's own ETag tells what it copied.
      if (copied === 'precondition' || (md5Etags && copied !== etag)) {
        await recorded?.versioned.settle(false);
        const now = await bucket.head(move.from, call);
        if (now === null) return undefined;
        if (now.tombstone) return move.from;
        etag = now.etag;
        continue;
      }
      recording = recorded;
    }
    lease.check();
    if (conditionalDelete) {
      if ((await bucket.delete(move.from, etag, call)) === 'deleted') {
        await recording?.versioned.settle(true);
        return undefined;
      }
    } else {
      const frozen = await bucket.put(
        move.from,
        TOMBSTONE,
        { ifMatch: etag, ops: opsHeader(op), moved: op, contentType: 'application/octet-stream' },
        call,
      );
      if (typeof frozen === 'string') {
        await recording?.versioned.settle(true);
        return move.from;
      }
    }
    // The source changed after it was copied (or our own freeze landed and was sent again).
    const now = await bucket.head(move.from, call);
    if (now === null || now.tombstone) {
      await recording?.versioned.settle(true);
      return now === null ? undefined : move.from;
    }
    await recording?.versioned.settle(false);
    recording = undefined;
    etag = now.etag;
    copyNeeded = true;
  }
  throw outcomeUnknown('a file kept changing while it was moved', undefined, 'busy');
}

/** Writes the version of one file's copy in a move (history/structure.ts). */
export type Recorder = (from: string, to: string, etag: string) => Promise<MoveRecording | null | undefined>;

/** {@link relocate} for many files, {@link COPY_CONCURRENCY} at a time. */
export async function relocateAll(
  space: Space,
  held: Held,
  moves: readonly Relocation[],
  op: string,
  recovering: boolean,
  call: Call,
  recorder?: Recorder | undefined,
): Promise<string[]> {
  const leftovers: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < moves.length) {
      const move = moves[next++]!;
      const left = await relocate(space, held, move, op, recovering, call, recorder);
      if (left !== undefined) leftovers.push(left);
    }
  };
  await Promise.all(Array.from({ length: Math.min(COPY_CONCURRENCY, moves.length) }, worker));
  return leftovers;
}

/** What a move takes along: the file at `from`, or every object beneath it; and old tombstones. */
export async function movingSet(
  space: Space,
  from: string,
  to: string,
  call: Call,
): Promise<{ file: boolean; moves: Relocation[]; litter: string[]; live: number }> {
  const { keys } = space;
  const fromKey = keys.file(from);
  const toKey = keys.file(to);
  const objects = await region(space, from, call);
  const source = objects.find((object) => object.key === fromKey);
  if (source && !isListedTombstone(source)) {
    return { file: true, moves: [{ from: fromKey, to: toKey, etag: source.etag }], litter: [], live: 1 };
  }
  const moves: Relocation[] = [];
  const litter: string[] = [];
  let live = 0;
  for (const object of objects) {
    if (isListedTombstone(object)) {
      litter.push(object.key);
      continue;
    }
    if (keys.pathOf(object.key) !== undefined) live++;
    // Objects other tools put there (an S3 console's folder marker) go along with the folder.
    moves.push({ from: object.key, to: toKey + object.key.slice(fromKey.length), etag: object.etag });
  }
  return { file: false, moves, litter, live };
}

/** The file at `key` as a HEAD tells (null: nothing, or a move's stand-in). */
async function liveHead(space: Space, key: string, call: Call): Promise<ObjectInfo | null> {
  const head = await space.backend.bucket.head(key, call);
  return isLiveFile(head) ? head : null;
}

/** Moves file or directory `from` to `to`, under the lease (see the top of this file). */
export function movePath(
  space: Space,
  from: string,
  to: string,
  { op, call, record }: ChangeContext,
): Promise<void> {
  const { backend, keys } = space;
  const journal: RecordedJournal<'move'> = { kind: 'move', op, from, to, phase: 'intent', record };
  return backend.namespace(keys).leases.submit({
    journal,
    call,
    run: async (held) => {
      // Ancestors `to` shares with `from` are directories, as `from` lies beneath them (when it exists).
      // A GET of a file (history: its version's content) or a HEAD (its id and record, which its
      // copy carries) tells that it is one.
      const [source, target] = await Promise.all([
        record ? liveFile(space, keys.file(from), call) : liveHead(space, keys.file(from), call),
        inspect(space, to, call, { skipAncestors: new Set(ancestors(from)) }),
      ]);
      const moving =
        source === null
          ? await movingSet(space, from, to, call)
          : {
              file: true,
              moves: [{ from: keys.file(from), to: keys.file(to), etag: source.etag }],
              litter: [],
              live: 1,
            };
      const recorder = record
        ? moveRecorder(space, record, op, call, (source as ObjectContent | null) ?? undefined)
        : moveCarrier(space, call, source ?? undefined);
      if (moving.live === 0) throw refuseNotFound(from);
      if (target.fileAbove !== undefined) throw refusePathConflict(target.fileAbove);
      if (target.file || target.occupied) throw refuseAlreadyExists(to);
      held.lease.check();
      held.changing();
      let leftovers: string[];
      if (moving.file) {
        // No journal write: recovery of an `intent` move looks for a copy carrying the move's id.
        const left = await relocate(space, held, moving.moves[0]!, op, false, call, recorder);
        leftovers = left === undefined ? [] : [left];
      } else {
        await held.lease.record([{ ...journal, phase: 'copying', folder: true }], call);
        leftovers = await relocateAll(space, held, moving.moves, op, false, call, recorder);
      }
      await deleteWithLease(space, held, [...leftovers, ...moving.litter], call);
      backend.known.forget(keys.file(from));
      backend.known.forgetBeneath(keys.beneath(from));
    },
  });
}
