// Changes of structure, made under the namespace's lease (lease.ts): a new path, a delete, a move,
// and the recovery of those a crashed store left half done.
//
// A move copies before it deletes, file by file, so a crash leaves every file in at least one
// place. Between a file's copy and its delete, a concurrent edit (a conditional PUT, which takes no
// lease) would be lost with the old copy, so the source is first frozen with a conditional write of
// a stand-in (a "tombstone": bytes that are not UTF-8, never a file) over the version that was
// copied; if that write fails, the file changed, and it is copied again. Where the server honours a
// conditional DELETE (AWS), the delete itself does that. Tombstones read as "no file here".
import {
  ancestors,
  isRefusal,
  outcomeUnknown,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
} from '@memdir/core/driver';
import { type ObjectInfo, opsHeader, PAGE_SIZE, TOMBSTONE } from './bucket.js';
import type { S3Context } from './context.js';
import type { KeySpace } from './keys.js';
import { xmlSafe } from './keys.js';
import { acquireLease, type Journal, type Lease } from './lease.js';
import { isListedTombstone, listAll, listObjects } from './listing.js';

/** One namespace of one bucket. */
export interface Space {
  readonly context: S3Context;
  readonly keys: KeySpace;
}

/** Files a move copies at once (tus s3-store bounds its part uploads the same way). */
const COPY_CONCURRENCY = 16;
/** Copies of one file before a move gives up on a file that keeps changing under it. */
const MAX_COPIES = 10;
/** Rewrites of one file (over a version that keeps changing) before giving up. */
const MAX_OVERWRITES = 10;

/** A file, as opposed to nothing or a move's stand-in. */
export function isLiveFile(info: ObjectInfo | null): info is ObjectInfo & { readonly tombstone: false } {
  return info !== null && !info.tombstone;
}

/** True when at least one file (hidden or not) lies beneath directory `path`. */
export async function anythingBeneath(space: Space, path: string, signal: AbortSignal | undefined) {
  const { bucket } = space.context;
  for await (const object of listObjects(bucket, space.keys.beneath(path), { signal, pageSize: 100 })) {
    if (!isListedTombstone(object) && space.keys.pathOf(object.key) !== undefined) return true;
  }
  return false;
}

/**
 * Runs `work` under the namespace's lease, first finishing whatever a crashed holder left in its
 * journal. `work` calls `changing()` before its first change: a failure after that leaves the lease
 * as the journal of an unfinished change; one before it (or after `changing(false)`) releases the
 * lease. `work` releases the lease itself when it succeeds.
 */
async function underLease<T>(
  space: Space,
  journal: Journal,
  signal: AbortSignal | undefined,
  work: (lease: Lease, changing: (sent?: boolean) => void) => Promise<T>,
): Promise<T> {
  const { context, keys } = space;
  await context.behaviour(signal);
  const { lease, unfinished } = await acquireLease(context, keys.lease, journal, signal);
  let changed = false;
  // `changing(false)` when the change turned out refused, nothing written after all.
  const changing = (sent = true) => {
    changed = sent;
  };
  try {
    if (unfinished.length > 0) {
      changed = true;
      await recover(space, lease, unfinished, signal);
      await lease.record([journal], signal);
      changed = false;
    }
    return await work(lease, changing);
  } catch (error) {
    if (changed) {
      lease.abandon();
      throw error;
    }
    const released = await lease.release();
    // The journal stays in a lease we could not delete, and whoever takes the lease over finishes
    // the change it names: a delete that failed here may still happen.
    if (!released && journal.kind === 'remove' && !isRefusal(error, 'NOT_FOUND')) {
      throw outcomeUnknown('the memory store did not answer', error);
    }
    throw error;
  }
}

/** Deletes `keys` and, in the same request when there is room, the lease: one round trip fewer. */
async function deleteWithLease(
  space: Space,
  lease: Lease,
  keys: readonly string[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const { bucket } = space.context;
  const batched = keys.filter(xmlSafe).length;
  if (batched > 0 && batched < PAGE_SIZE && keys.length === batched && (await lease.settle())) {
    await bucket.deleteMany([...keys, lease.key], signal);
    return;
  }
  await bucket.deleteMany(keys, signal);
  await lease.release();
}

/**
 * Writes `content` at `key` under the lease, where no file is expected (`If-None-Match: *`), or
 * over the file or stand-in that turns out to be there (`If-Match`; an edit in place can replace a
 * file meanwhile, as it takes no lease). A refusal caused by the SDK resending a write that had
 * landed is recognised by the operation id.
 * @returns the new version, or `'exists'` when a file is there and `mustBeAbsent` (nothing written).
 */
async function writeAt(
  space: Space,
  key: string,
  content: string,
  op: string,
  mustBeAbsent: boolean,
  signal: AbortSignal | undefined,
): Promise<string | 'exists'> {
  const { bucket, carried } = space.context;
  let seen: ObjectInfo | null = null;
  for (let attempt = 0; attempt < MAX_OVERWRITES; attempt++) {
    const ops = opsHeader(op, seen && !seen.tombstone ? seen.ops : []);
    const written = await bucket.put(
      key,
      content,
      seen === null ? { ifNoneMatch: true, ops } : { ifMatch: seen.etag, ops },
      signal,
    );
    if (typeof written === 'string') {
      carried.remember(key, written, ops.split(' '));
      return written;
    }
    seen = await bucket.head(key, signal);
    // This call's own write landed (its reply was lost and the SDK sent it again, or the call
    // itself came again).
    if (isLiveFile(seen) && seen.ops.includes(op)) return seen.etag;
    if (mustBeAbsent && isLiveFile(seen)) return 'exists';
  }
  throw outcomeUnknown('a file kept changing while it was written');
}

/**
 * Writes a file where none is (or over one, unless `mustBeAbsent`), under the lease: the checks
 * that the path is no directory and has no file above it hold until the write lands.
 * @returns the new version.
 */
export function createPath(
  space: Space,
  path: string,
  content: string,
  mustBeAbsent: boolean,
  op: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const { context, keys } = space;
  const { bucket } = context;
  return underLease(space, { kind: 'write', op, path }, signal, async (lease, changing) => {
    const above = ancestors(path);
    const [heads, occupied] = await Promise.all([
      Promise.all(above.map((ancestor) => bucket.head(keys.file(ancestor), signal))),
      anythingBeneath(space, path, signal),
    ]);
    const fileAbove = above.find((_, index) => isLiveFile(heads[index]!));
    if (fileAbove !== undefined) throw refusePathConflict(fileAbove);
    if (occupied) throw refusePathConflict(path);
    lease.check();
    changing(true);
    const version = await writeAt(space, keys.file(path), content, op, mustBeAbsent, signal);
    if (version === 'exists') {
      changing(false);
      throw refuseConflict(path);
    }
    await lease.release();
    return version;
  });
}

/**
 * Deletes the file at `path` or everything beneath directory `path`, under the lease.
 * @returns false when nothing was there.
 */
export function removePath(
  space: Space,
  path: string,
  op: string,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const { context, keys } = space;
  const { bucket } = context;
  return underLease(space, { kind: 'remove', op, path }, signal, async (lease, changing) => {
    const key = keys.file(path);
    const [current, tree] = await Promise.all([
      bucket.head(key, signal),
      listAll(bucket, keys.beneath(path), signal),
    ]);
    const existed =
      isLiveFile(current) ||
      tree.some((object) => !isListedTombstone(object) && keys.pathOf(object.key) !== undefined);
    if (!existed) {
      await lease.release();
      return false;
    }
    lease.check();
    changing();
    await deleteWithLease(
      space,
      lease,
      [...(current ? [key] : []), ...tree.map((object) => object.key)],
      signal,
    );
    return true;
  });
}

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
 * `beforeFreeze` is awaited between the copy and the freeze (a file's move records its journal
 * meanwhile).
 * @returns the key left to delete (a tombstone), if any.
 */
async function relocate(
  space: Space,
  lease: Lease,
  move: Relocation,
  op: string,
  recovering: boolean,
  signal: AbortSignal | undefined,
  beforeFreeze?: Promise<void>,
): Promise<string | undefined> {
  const { bucket } = space.context;
  const { md5Etags, conditionalDelete } = bucket.behaviour;
  let etag = move.etag;
  let copyNeeded = true;
  if (recovering) {
    const copy = await bucket.head(move.to, signal);
    if (isLiveFile(copy)) {
      if (copy.source === etag || (md5Etags && copy.etag === etag) || !copy.ops.includes(op))
        copyNeeded = false;
    }
  }
  for (let attempt = 0; attempt < MAX_COPIES; attempt++) {
    if (copyNeeded) {
      lease.check();
      const copied = await bucket.copy(move.from, move.to, etag, opsHeader(op), signal);
      if (copied === null) return undefined;
      // radosgw ignores CopySourceIfMatch: with MD5 ETags, the copy's own ETag tells what it copied.
      if (copied === 'precondition' || (md5Etags && copied !== etag)) {
        const now = await bucket.head(move.from, signal);
        if (now === null) return undefined;
        if (now.tombstone) return move.from;
        etag = now.etag;
        continue;
      }
    }
    if (beforeFreeze) {
      await beforeFreeze;
      beforeFreeze = undefined;
    }
    lease.check();
    if (conditionalDelete) {
      if ((await bucket.delete(move.from, etag, signal)) === 'deleted') return undefined;
    } else {
      const frozen = await bucket.put(
        move.from,
        TOMBSTONE,
        { ifMatch: etag, ops: opsHeader(op), moved: op, contentType: 'application/octet-stream' },
        signal,
      );
      if (typeof frozen === 'string') return move.from;
    }
    // The source changed after it was copied (or our own freeze landed on an SDK resend).
    const now = await bucket.head(move.from, signal);
    if (now === null) return undefined;
    if (now.tombstone) return move.from;
    etag = now.etag;
    copyNeeded = true;
  }
  throw outcomeUnknown('a file kept changing while it was moved');
}

/** {@link relocate} for many files, {@link COPY_CONCURRENCY} at a time. */
async function relocateAll(
  space: Space,
  lease: Lease,
  moves: readonly Relocation[],
  op: string,
  recovering: boolean,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const leftovers: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < moves.length) {
      const move = moves[next++]!;
      const left = await relocate(space, lease, move, op, recovering, signal);
      if (left !== undefined) leftovers.push(left);
    }
  };
  await Promise.all(Array.from({ length: Math.min(COPY_CONCURRENCY, moves.length) }, worker));
  return leftovers;
}

/** What a move takes along: the file at `from`, or every object beneath it; and old tombstones. */
async function movingSet(
  space: Space,
  from: string,
  to: string,
  signal: AbortSignal | undefined,
): Promise<{ source: ObjectInfo | null; moves: Relocation[]; litter: string[]; live: number }> {
  const { context, keys } = space;
  const { bucket } = context;
  const fromKey = keys.file(from);
  const toKey = keys.file(to);
  const [source, tree] = await Promise.all([
    bucket.head(fromKey, signal),
    listAll(bucket, keys.beneath(from), signal),
  ]);
  if (isLiveFile(source)) {
    return { source, moves: [{ from: fromKey, to: toKey, etag: source.etag }], litter: [], live: 1 };
  }
  const moves: Relocation[] = [];
  const litter: string[] = source?.tombstone ? [fromKey] : [];
  let live = 0;
  for (const object of tree) {
    if (isListedTombstone(object)) {
      litter.push(object.key);
      continue;
    }
    if (keys.pathOf(object.key) !== undefined) live++;
    // Objects other tools put there (an S3 console's folder marker) go along with the folder.
    moves.push({ from: object.key, to: toKey + object.key.slice(fromKey.length), etag: object.etag });
  }
  return { source, moves, litter, live };
}

/** Moves file or directory `from` to `to`, under the lease (see the top of this file). */
export function movePath(
  space: Space,
  from: string,
  to: string,
  op: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { context, keys } = space;
  const { bucket } = context;
  const journal: Journal = { kind: 'move', op, from, to, phase: 'intent' };
  return underLease(space, journal, signal, async (lease, changing) => {
    // Ancestors `to` shares with `from` are directories, as `from` lies beneath them (when it exists).
    const shared = new Set(ancestors(from));
    const above = ancestors(to).filter((ancestor) => !shared.has(ancestor));
    const [moving, heads, target, occupied] = await Promise.all([
      movingSet(space, from, to, signal),
      Promise.all(above.map((ancestor) => bucket.head(keys.file(ancestor), signal))),
      bucket.head(keys.file(to), signal),
      anythingBeneath(space, to, signal),
    ]);
    if (moving.live === 0) throw refuseNotFound(from);
    const fileAbove = above.find((_, index) => isLiveFile(heads[index]!));
    if (fileAbove !== undefined) throw refusePathConflict(fileAbove);
    if (isLiveFile(target) || occupied) throw refuseAlreadyExists(to);
    lease.check();
    changing();
    const folder = !isLiveFile(moving.source);
    const copying: Journal = { ...journal, phase: 'copying', folder };
    let leftovers: string[];
    if (folder) {
      await lease.record([copying], signal);
      leftovers = await relocateAll(space, lease, moving.moves, op, false, signal);
    } else {
      // A file's copy goes out with the journal; recovery of an `intent` move looks for the copy.
      const recorded = lease.record([copying], signal);
      recorded.catch(() => {});
      const left = await relocate(space, lease, moving.moves[0]!, op, false, signal, recorded);
      leftovers = left === undefined ? [] : [left];
    }
    await deleteWithLease(space, lease, [...leftovers, ...moving.litter], signal);
  });
}

/**
 * Finishes the changes a crashed holder recorded, oldest first. Each step can run again: a crash
 * during recovery leaves the same journal to the next taker.
 */
async function recover(
  space: Space,
  lease: Lease,
  journal: readonly Journal[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const { context, keys } = space;
  const { bucket } = context;
  for (const entry of journal) {
    if (entry?.kind === 'remove' && typeof entry.path === 'string') {
      const key = keys.file(entry.path);
      const [current, tree] = await Promise.all([
        bucket.head(key, signal),
        listAll(bucket, keys.beneath(entry.path), signal),
      ]);
      lease.check();
      await bucket.deleteMany([...(current ? [key] : []), ...tree.map((object) => object.key)], signal);
    } else if (entry?.kind === 'move' && typeof entry.from === 'string' && typeof entry.to === 'string') {
      let copying = entry.phase === 'copying';
      if (!copying) {
        // A file's move sends its copy beside the journal's `copying`: a copy made by this move
        // (it carries the move's operation id) means the checks had passed.
        const copy = await bucket.head(keys.file(entry.to), signal);
        copying = isLiveFile(copy) && copy.ops.includes(entry.op);
      }
      if (!copying) continue;
      const moving = await movingSet(space, entry.from, entry.to, signal);
      const leftovers = await relocateAll(space, lease, moving.moves, entry.op, true, signal);
      lease.check();
      await bucket.deleteMany([...leftovers, ...moving.litter], signal);
    }
  }
}
