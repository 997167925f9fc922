// Changes of structure, made under the namespace's lease (sessions.ts): a new path, a delete, and
// (move.ts) a move. Each looks around its path first (inspect.ts): what it finds holds until it has
// written, since every other change of structure waits for the lease. With history, each writes its
// versions just before its commit (history/write.ts, history/structure.ts).
//
// A move copies before it deletes, file by file, so a crash leaves every file in at least one
// place. Between a file's copy and its delete, a concurrent edit (a conditional PUT, which takes no
// lease) would be lost with the old copy, so the source is first frozen with a conditional write of
// a stand-in (a "tombstone": bytes that are not UTF-8, never a file) over the version that was
// copied; if that write fails, the file changed, and it is copied again. Where the server honours a
// conditional DELETE (AWS), the delete itself does that. Tombstones read as "no file here".
import type { ChangeRecord, DriverQuota, DriverVersion } from '@memdir/core';
import {
  outcomeUnknown,
  refuseConflict,
  refusePathConflict,
  refuseQuota,
  utf8Length,
} from '@memdir/core/driver';
import { PAGE_SIZE } from './bucket.js';
import type { Call } from './call.js';
import { discardVersions } from './history/record.js';
import { recordRemoval } from './history/structure.js';
import { type Parent, parentOf, type WriteShape } from './history/write.js';
import { inspect, region } from './inspect.js';
import { xmlSafe } from './keys.js';
import type { Journal } from './lease.js';
import { isListedTombstone } from './listing.js';
import { type ListedObject, type ObjectInfo, opsHeader, TOMBSTONE } from './objects.js';
import type { Held } from './sessions.js';
import type { Space } from './space.js';
import { putVersioned } from './versioned-put.js';

/** Files a move copies at once (tus s3-store bounds its part uploads the same way). */
export const COPY_CONCURRENCY = 16;
/** Copies of one file before a move gives up on a file that keeps changing under it. */
export const MAX_COPIES = 10;
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
export async function deleteWithLease(
  space: Space,
  held: Held,
  keys: readonly string[],
  call: Call,
): Promise<void> {
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
  path: string,
  content: string,
  context: ChangeContext,
  mustBeAbsent: boolean,
  found: ListedObject | null,
  before: (replaced: Replaced) => Promise<void>,
): Promise<string | 'exists'> {
  const { op, call } = context;
  const { bucket, known } = space.backend;
  const key = space.keys.file(path);
  let over: { etag: string; ops: readonly string[]; replaced: Replaced; parent?: Parent } | null = found && {
    etag: found.etag,
    ops: known.opsOf(key, found.etag),
    replaced: isListedTombstone(found) ? { size: 0, file: false } : { size: found.size, file: true },
  };
  for (let attempt = 0; attempt < MAX_OVERWRITES; attempt++) {
    await before(over?.replaced ?? { size: 0, file: false });
    const ops = opsHeader(op, over?.ops);
    // The file replaced keeps its id, its creation time and its chain: a HEAD when only a listing
    // found it (a request more than before records, with history off).
    let parent: Parent | null = null;
    if (over?.replaced.file) {
      parent = over.parent ?? (await parentAt(space, key, over.etag, call));
    }
    const written = await putVersioned(
      space,
      path,
      content,
      parent,
      over === null ? { ifNoneMatch: true } : { ifMatch: over.etag },
      ops,
      context,
    );
    if (typeof written === 'string') return written;
    const seen = await bucket.head(key, call);
    // This call's own write landed (its reply was lost and it was sent again).
    const landed = isLiveFile(seen) && seen.ops.includes(op);
    await written.settle(landed);
    if (landed) return seen.etag;
    if (mustBeAbsent && isLiveFile(seen)) return 'exists';
    over = seen && {
      etag: seen.etag,
      ops: seen.tombstone ? [] : seen.ops,
      replaced: seen.tombstone ? { size: 0, file: false } : { size: seen.size, file: true },
      parent: seen.tombstone ? undefined : parentOf(seen),
    };
  }
  throw outcomeUnknown('a file kept changing while it was written', undefined, 'busy');
}

/**
 * A journal entry of the lease with the change's record (history on): a store that finishes the
 * change after a crash records its versions with it. The lease keeps the entry as it is given.
 */
export type RecordedJournal<Kind extends Journal['kind']> = Extract<Journal, { kind: Kind }> & {
  readonly record?: ChangeRecord | undefined;
};

/** What a change of structure needs to know of its command. */
export interface ChangeContext {
  readonly op: string;
  readonly call: Call;
  readonly quota: DriverQuota | undefined;
  /** History on: record a version of each file changed (DriverChangeOptions.record). */
  readonly record?: ChangeRecord | undefined;
  /** What a write makes (a new file's id, a restore). */
  readonly shape?: WriteShape | undefined;
  /** Filled with the versions the change recorded (a restore returns its own). */
  readonly recorded?: DriverVersion[] | undefined;
  /**
   * A removal only of the file at the path, and only while it is this version, listed with this
   * size (an expiry: a file changed since it was found stale is kept). No listing: the freeze over
   * that version (as with a quota) is what checks it.
   */
  readonly onlyVersion?: { readonly etag: string; readonly size: number } | undefined;
}

/**
 * The history headers of version `etag` of the file at `key`: as this process last saw it, or from
 * a HEAD (another version there now: its headers, and the conditional write will tell).
 */
export async function parentAt(space: Space, key: string, etag: string, call: Call): Promise<Parent> {
  const seen = space.backend.known.get(key);
  if (seen?.etag === etag && seen.chain !== undefined && seen.record !== undefined) return parentOf(seen);
  const head = await space.backend.bucket.head(key, call);
  return head === null ? { fileId: undefined, chain: '' } : parentOf(head);
}

/**
 * Writes a file at a path where no file is known to be (or over one, unless `mustBeAbsent`), under
 * the lease: the checks that the path is no directory and has no file above it hold until the
 * write lands.
 * @returns the new version.
 */
export async function createPath(
  space: Space,
  path: string,
  content: string,
  mustBeAbsent: boolean,
  context: ChangeContext,
): Promise<string> {
  const { op, call, quota } = context;
  const { backend, keys } = space;
  const { leases, totals } = backend.namespace(keys);
  const size = utf8Length(content);
  /**
   * A new file that cannot fit is refused before it queues for the lease, and again while it waits
   * (when the namespace fills, racing creates do not wait their turn only to be refused then). A
   * path that holds a file adds none, and one that is refused for its place answers that first
   * (QUOTA_EXCEEDED comes last): both are judged under the lease.
   */
  const refuseEarly = async (fresh: boolean) => {
    if (!quota) return;
    const breach = await totals.noRoom({ bytes: size, files: 1 }, quota, call, fresh);
    if (breach === null) return;
    const found = await inspect(space, path, call);
    if (found.fileAbove === undefined && !found.occupied && !found.file) throw refuseQuota(path, breach);
  };
  await refuseEarly(false);
  return leases.submit({
    journal: { kind: 'write', op, path },
    call,
    creates: path,
    recheck: quota ? () => refuseEarly(true) : undefined,
    run: async (held) => {
      const found = await inspect(space, path, call, {
        lookups: held.lookups,
        shareFolder: held.siblings > 1,
      });
      if (found.fileAbove !== undefined) throw refusePathConflict(found.fileAbove);
      if (found.occupied) throw refusePathConflict(path);
      if (found.file && mustBeAbsent) throw refuseConflict(path);
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
      let version: string | 'exists';
      try {
        held.lease.check();
        held.changing();
        version = await writeAt(
          space,
          path,
          content,
          context,
          mustBeAbsent,
          found.file ?? found.tombstone,
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
  { op, call, quota, record, onlyVersion }: ChangeContext,
): Promise<boolean> {
  const { backend, keys } = space;
  const { leases, totals } = backend.namespace(keys);
  const journal: RecordedJournal<'remove'> = { kind: 'remove', op, path, record };
  return leases.submit({
    journal,
    call,
    run: async (held) => {
      // The totals exist before the files go, so what they give back was counted.
      if (quota) await totals.current(call);
      // With history, a file's HEAD tells both that it is a file (no listing needed: a path is
      // never a file and a folder at once) and its history headers.
      const parents = new Map<string, Parent>();
      const head = record ? await backend.bucket.head(keys.file(path), call) : null;
      let objects: ListedObject[];
      if (onlyVersion !== undefined) {
        // An expiry: a file changed since it was found stale is kept.
        if (record && !(isLiveFile(head) && head.etag === onlyVersion.etag)) return false;
        objects = [{ key: keys.file(path), etag: onlyVersion.etag, size: onlyVersion.size }];
      } else if (isLiveFile(head)) {
        objects = [{ key: keys.file(path), size: head.size, etag: head.etag }];
      } else {
        objects = await region(space, path, call);
      }
      if (isLiveFile(head)) parents.set(keys.file(path), { fileId: head.fileId, chain: head.chain });
      let gone = filesAmong(space, objects);
      if (gone.files === 0) return false;
      held.lease.check();
      held.changing();
      // The versions first: a file frozen (below) already reads as gone.
      const files = objects.filter((object) => !isListedTombstone(object));
      const history = record
        ? await recordRemoval(space, files, parents, record, op, call)
        : { drafted: [], pruned: [] };
      if (onlyVersion !== undefined) {
        gone = await freezeAll(space, held, objects, op, call, true);
        if (gone.files === 0) {
          discardVersions(space, history.drafted, call);
          held.changing(false);
          return false;
        }
      }
      // An edit in place (it takes no lease) could change a file between the listing and the
      // delete, and the bytes given back would not be the bytes deleted: with a quota, each file is
      // first frozen at the version whose size is given back.
      if (quota && onlyVersion === undefined) gone = await freezeAll(space, held, objects, op, call);
      await deleteWithLease(space, held, [...objects.map((object) => object.key), ...history.pruned], call);
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
