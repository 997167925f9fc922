// Changes of structure, made under the namespace's lease (sessions.ts): a new path, a delete, a
// move. Each looks around its path first (inspect.ts): what it finds holds until it has written,
// since every other change of structure waits for the lease.
//
// A move copies before it deletes, file by file, so a crash leaves every file in at least one
// place. Between a file's copy and its delete, a concurrent edit (a conditional PUT, which takes no
// lease) would be lost with the old copy, so the source is first frozen with a conditional write of
// a stand-in (a "tombstone": bytes that are not UTF-8, never a file) over the version that was
// copied; if that write fails, the file changed, and it is copied again. Where the server honours a
// conditional DELETE (AWS), the delete itself does that. Tombstones read as "no file here".
import type { DriverQuota } from '@memdir/core';
import {
  ancestors,
  outcomeUnknown,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  utf8Length,
} from '@memdir/core/driver';
import type { Space } from './backend.js';
import { PAGE_SIZE } from './bucket.js';
import type { Call } from './call.js';
import { inspect, region } from './inspect.js';
import { xmlSafe } from './keys.js';
import type { Journal } from './lease.js';
import { isListedTombstone } from './listing.js';
import { type ListedObject, type ObjectInfo, opsHeader, TOMBSTONE } from './objects.js';
import type { Held } from './sessions.js';

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

/** The memory files among listed objects, with their bytes. */
function filesAmong(space: Space, objects: readonly ListedObject[]): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const object of objects) {
    if (isListedTombstone(object) || space.keys.pathOf(object.key) === undefined) continue;
    bytes += object.size;
    files++;
  }
  return { bytes, files };
}

/**
 * Deletes `keys` and, in the same request when nothing else will run under the lease, the lease
 * itself: one request fewer.
 */
async function deleteWithLease(space: Space, held: Held, keys: readonly string[], call: Call): Promise<void> {
  const { bucket } = space.backend;
  const { lease } = held;
  const batchable = keys.length > 0 && keys.length < PAGE_SIZE && keys.every(xmlSafe);
  if (batchable && held.last() && (await lease.settle())) {
    await bucket.deleteMany([...keys, lease.key], call);
    held.released();
    return;
  }
  await bucket.deleteMany(keys, call);
}

/** What a PUT at a key would replace: a file of that size, or nothing (or a move's stand-in). */
interface Replaced {
  readonly size: number;
  readonly file: boolean;
}

/**
 * Writes `content` at `key` under the lease: where nothing is (`If-None-Match: *`), or over the
 * file or stand-in found there (`If-Match`; an edit in place can replace a file meanwhile, as it
 * takes no lease). A refusal caused by this write's own earlier sending is recognised by its id.
 * `before` learns what each PUT would replace, before it is sent (a quota reserves the difference).
 * @returns the new version, or `'exists'` when a file is there and `mustBeAbsent` (nothing written).
 */
async function writeAt(
  space: Space,
  key: string,
  content: string,
  op: string,
  mustBeAbsent: boolean,
  found: ListedObject | null,
  call: Call,
  before: (replaced: Replaced) => Promise<void>,
): Promise<string | 'exists'> {
  const { bucket, known } = space.backend;
  let over: { etag: string; ops: readonly string[]; replaced: Replaced } | null = found && {
    etag: found.etag,
    ops: known.opsOf(key, found.etag),
    replaced: isListedTombstone(found) ? { size: 0, file: false } : { size: found.size, file: true },
  };
  for (let attempt = 0; attempt < MAX_OVERWRITES; attempt++) {
    await before(over?.replaced ?? { size: 0, file: false });
    const ops = opsHeader(op, over?.ops);
    const written = await bucket.put(
      key,
      content,
      over === null ? { ifNoneMatch: true, ops } : { ifMatch: over.etag, ops },
      call,
    );
    if (typeof written === 'string') {
      known.remember(key, { etag: written, size: utf8Length(content), ops: ops.split(' ') });
      return written;
    }
    const seen = await bucket.head(key, call);
    // This call's own write landed (its reply was lost and it was sent again).
    if (isLiveFile(seen) && seen.ops.includes(op)) return seen.etag;
    if (mustBeAbsent && isLiveFile(seen)) return 'exists';
    over = seen && {
      etag: seen.etag,
      ops: seen.tombstone ? [] : seen.ops,
      replaced: seen.tombstone ? { size: 0, file: false } : { size: seen.size, file: true },
    };
  }
  throw outcomeUnknown('a file kept changing while it was written', undefined, 'busy');
}

/** What a change of structure needs to know of its command. */
export interface ChangeContext {
  readonly op: string;
  readonly call: Call;
  readonly quota: DriverQuota | undefined;
  /**
   * A removal only of the file at the path, and only while it is this version, listed with this
   * size (an expiry: a file changed since it was found stale is kept). No listing: the freeze over
   * that version (as with a quota) is what checks it.
   */
  readonly onlyVersion?: { readonly etag: string; readonly size: number } | undefined;
}

/**
 * Writes a file at a path where no file is known to be (or over one, unless `mustBeAbsent`), under
 * the lease: the checks that the path is no directory and has no file above it hold until the
 * write lands.
 * @returns the new version.
 */
export function createPath(
  space: Space,
  path: string,
  content: string,
  mustBeAbsent: boolean,
  { op, call, quota }: ChangeContext,
): Promise<string> {
  const { backend, keys } = space;
  const { leases, totals } = backend.namespace(keys);
  return leases.submit({
    journal: { kind: 'write', op, path },
    call,
    creates: path,
    run: async (held) => {
      const found = await inspect(space, path, call, {
        lookups: held.lookups,
        shareFolder: held.siblings > 1,
      });
      if (found.fileAbove !== undefined) throw refusePathConflict(found.fileAbove);
      if (found.occupied) throw refusePathConflict(path);
      if (found.file && mustBeAbsent) throw refuseConflict(path);
      const size = utf8Length(content);
      // With a quota, what the totals hold for this write before each PUT, and what it did.
      let reserved = { bytes: 0, files: 0 };
      let made = { bytes: 0, files: 0 };
      const before = async (replaced: Replaced) => {
        made = { bytes: size - replaced.size, files: replaced.file ? 0 : 1 };
        const more = {
          bytes: Math.max(0, made.bytes - reserved.bytes),
          files: Math.max(0, made.files - reserved.files),
        };
        if (!quota || (more.bytes === 0 && more.files === 0)) return;
        await totals.reserve(path, more, quota, call);
        reserved = { bytes: reserved.bytes + more.bytes, files: reserved.files + more.files };
      };
      const key = keys.file(path);
      let version: string | 'exists';
      try {
        held.lease.check();
        held.changing();
        version = await writeAt(
          space,
          key,
          content,
          op,
          mustBeAbsent,
          found.file ?? found.tombstone,
          call,
          before,
        );
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'QUOTA_EXCEEDED') throw error;
        // Refused before its PUT: nothing was written.
        held.changing(false);
        if (quota) await totals.release(reserved, call);
        throw error;
      }
      if (version === 'exists') {
        held.changing(false);
        if (quota) await totals.release(reserved, call);
        throw refuseConflict(path);
      }
      // A shorter file, or a version replaced that was larger than first seen: the rest goes back.
      if (quota) {
        await totals.release(
          { bytes: reserved.bytes - made.bytes, files: reserved.files - made.files },
          call,
        );
      }
      return version;
    },
  });
}

/**
 * Deletes the file at `path` or everything beneath directory `path`, under the lease.
 * @returns false when nothing was there.
 */
export function removePath(
  space: Space,
  path: string,
  { op, call, quota, onlyVersion }: ChangeContext,
): Promise<boolean> {
  const { backend, keys } = space;
  const { leases, totals } = backend.namespace(keys);
  return leases.submit({
    journal: { kind: 'remove', op, path },
    call,
    run: async (held) => {
      // The totals exist before the files go, so what they give back was counted.
      if (quota) await totals.current(call);
      const objects =
        onlyVersion === undefined
          ? await region(space, path, call)
          : [{ key: keys.file(path), etag: onlyVersion.etag, size: onlyVersion.size }];
      let gone = filesAmong(space, objects);
      if (gone.files === 0) return false;
      held.lease.check();
      held.changing();
      if (onlyVersion !== undefined) {
        gone = await freezeAll(space, held, objects, op, call, true);
        if (gone.files === 0) {
          held.changing(false);
          return false;
        }
      }
      // An edit in place (it takes no lease) could change a file between the listing and the
      // delete, and the bytes given back would not be the bytes deleted: with a quota, each file is
      // first frozen at the version whose size is given back.
      if (quota && onlyVersion === undefined) gone = await freezeAll(space, held, objects, op, call);
      await deleteWithLease(
        space,
        held,
        objects.map((object) => object.key),
        call,
      );
      backend.known.forget(keys.file(path));
      backend.known.forgetBeneath(keys.beneath(path));
      if (quota) await totals.release(gone, call);
      return true;
    },
  });
}

/**
 * Freezes every memory file among `objects` with a stand-in written over the version last seen
 * (`If-Match`; seen again after a refusal, or with `onlySeen` left alone), {@link COPY_CONCURRENCY}
 * at a time.
 * @returns the files frozen and the bytes their frozen versions held.
 */
async function freezeAll(
  space: Space,
  held: Held,
  objects: readonly ListedObject[],
  op: string,
  call: Call,
  onlySeen = false,
): Promise<{ bytes: number; files: number }> {
  const { bucket } = space.backend;
  const files = objects.filter(
    (object) => !isListedTombstone(object) && space.keys.pathOf(object.key) !== undefined,
  );
  let bytes = 0;
  let count = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      let seen: { etag: string; size: number } | null = file;
      for (let attempt = 0; seen !== null; attempt++) {
        if (attempt >= MAX_COPIES)
          throw outcomeUnknown('a file kept changing while it was deleted', undefined, 'busy');
        held.lease.check();
        const frozen = await bucket.put(
          file.key,
          TOMBSTONE,
          { ifMatch: seen.etag, ops: opsHeader(op), moved: op, contentType: 'application/octet-stream' },
          call,
        );
        if (typeof frozen === 'string') break;
        const now = await bucket.head(file.key, call);
        // Gone, or frozen by this very request sent twice (the size it froze is then unknown to
        // the reply: the version last seen is what it replaced).
        if (now === null) seen = null;
        else if (now.tombstone) break;
        // `onlySeen`: a file changed since it was listed is left as it is.
        else seen = onlySeen ? null : now;
      }
      if (seen !== null) {
        bytes += seen.size;
        count++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(COPY_CONCURRENCY, files.length) }, worker));
  return { bytes, files: count };
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
 * @returns the key left to delete (a tombstone), if any.
 */
export async function relocate(
  space: Space,
  held: Held,
  move: Relocation,
  op: string,
  recovering: boolean,
  call: Call,
): Promise<string | undefined> {
  const { bucket } = space.backend;
  const { md5Etags, conditionalDelete } = bucket.behaviour;
  const { lease } = held;
  let etag = move.etag;
  let copyNeeded = true;
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
      const copied = await bucket.copy(move.from, move.to, etag, opsHeader(op), call);
      if (copied === null) return undefined;
      // radosgw ignores CopySourceIfMatch: with MD5 ETags, the copy's own ETag tells what it copied.
      if (copied === 'precondition' || (md5Etags && copied !== etag)) {
        const now = await bucket.head(move.from, call);
        if (now === null) return undefined;
        if (now.tombstone) return move.from;
        etag = now.etag;
        continue;
      }
    }
    lease.check();
    if (conditionalDelete) {
      if ((await bucket.delete(move.from, etag, call)) === 'deleted') return undefined;
    } else {
      const frozen = await bucket.put(
        move.from,
        TOMBSTONE,
        { ifMatch: etag, ops: opsHeader(op), moved: op, contentType: 'application/octet-stream' },
        call,
      );
      if (typeof frozen === 'string') return move.from;
    }
    // The source changed after it was copied (or our own freeze landed and was sent again).
    const now = await bucket.head(move.from, call);
    if (now === null) return undefined;
    if (now.tombstone) return move.from;
    etag = now.etag;
    copyNeeded = true;
  }
  throw outcomeUnknown('a file kept changing while it was moved', undefined, 'busy');
}

/** {@link relocate} for many files, {@link COPY_CONCURRENCY} at a time. */
export async function relocateAll(
  space: Space,
  held: Held,
  moves: readonly Relocation[],
  op: string,
  recovering: boolean,
  call: Call,
): Promise<string[]> {
  const leftovers: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < moves.length) {
      const move = moves[next++]!;
      const left = await relocate(space, held, move, op, recovering, call);
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

/** Moves file or directory `from` to `to`, under the lease (see the top of this file). */
export function movePath(space: Space, from: string, to: string, { op, call }: ChangeContext): Promise<void> {
  const { backend, keys } = space;
  const journal: Journal = { kind: 'move', op, from, to, phase: 'intent' };
  return backend.namespace(keys).leases.submit({
    journal,
    call,
    run: async (held) => {
      // Ancestors `to` shares with `from` are directories, as `from` lies beneath them (when it exists).
      const [moving, target] = await Promise.all([
        movingSet(space, from, to, call),
        inspect(space, to, call, { skipAncestors: new Set(ancestors(from)) }),
      ]);
      if (moving.live === 0) throw refuseNotFound(from);
      if (target.fileAbove !== undefined) throw refusePathConflict(target.fileAbove);
      if (target.file || target.occupied) throw refuseAlreadyExists(to);
      held.lease.check();
      held.changing();
      let leftovers: string[];
      if (moving.file) {
        // No journal write: recovery of an `intent` move looks for a copy carrying the move's id.
        const left = await relocate(space, held, moving.moves[0]!, op, false, call);
        leftovers = left === undefined ? [] : [left];
      } else {
        await held.lease.record([{ ...journal, phase: 'copying', folder: true }], call);
        leftovers = await relocateAll(space, held, moving.moves, op, false, call);
      }
      await deleteWithLease(space, held, [...leftovers, ...moving.litter], call);
      backend.known.forget(keys.file(from));
      backend.known.forgetBeneath(keys.beneath(from));
    },
  });
}
