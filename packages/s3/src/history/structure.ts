// The history side of the changes of structure (../structure.ts, ../recovery.ts), under the lease: the
// deletion versions of the files a delete removes, and the `renamed` version of each file a move
// copies, written before the DeleteObjects or the copy that commits them. A listing tells no
// file's history headers, so a delete and a move with history read each file once (a HEAD, a GET
// for a move, whose version holds the content); a lone file's is also what tells it is a file.
import type { ChangeRecord } from '@memdir/core';
import { newFileId } from '@memdir/core/driver';
import type { Call } from '../call.js';
import { decodeContent, isTombstone } from '../edits.js';
import type { ListedObject, ObjectContent, ObjectInfo } from '../objects.js';
import type { Space } from '../space.js';
import { readSlots } from './read.js';
import type { Drafted } from './record.js';
import { type Parent, parentOf, type Versioned, versionContent, versionDeletions } from './write.js';

/** Reads of one change at once. */
const CONCURRENCY = 16;

/** `work` for each item, {@link CONCURRENCY} at a time, results in order. */
async function eachAtOnce<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return results;
}

/** The live file at `key` with its content and headers, or null (nothing, or a move's stand-in). */
export async function liveFile(space: Space, key: string, call: Call): Promise<ObjectContent | null> {
  const object = await space.backend.bucket.get(key, call);
  return object === null || isTombstone(object) ? null : object;
}

/**
 * Writes a deletion version for each memory file among `objects` (their headers from `parents`,
 * else a HEAD each). Returns the versions and the keys retention removes, to go in the same
 * DeleteObjects as the files.
 */
export async function recordRemoval(
  space: Space,
  files: readonly ListedObject[],
  parents: ReadonlyMap<string, Parent>,
  record: ChangeRecord,
  op: string,
  call: Call,
): Promise<{ drafted: readonly Drafted[]; pruned: string[] }> {
  const { keys, backend } = space;
  const read = await eachAtOnce(files, async (object) => {
    const path = keys.pathOf(object.key);
    if (path === undefined) return null;
    const known = parents.get(object.key);
    if (known) return { path, parent: known };
    const head = await backend.bucket.head(object.key, call);
    if (head === null || head.tombstone) return null;
    return { path, parent: { fileId: head.fileId, chain: head.chain } };
  });
  return versionDeletions(
    space,
    read.filter((entry) => entry !== null),
    record,
    op,
    call,
  );
}

/**
 * The deletion versions a recovered delete still owes: those of the files left among `files` that
 * no version object of the delete's operation (among the namespace's newest 1000) deletes already.
 */
export async function recordRecoveredRemoval(
  space: Space,
  files: readonly ListedObject[],
  record: ChangeRecord,
  op: string,
  call: Call,
): Promise<string[]> {
  const { bucket } = space.backend;
  const page = await bucket.list(space.keys.history, undefined, call);
  const done = new Set(
    (await readSlots(space, page.objects, call))
      .filter((slot) => slot.header.operationId === op && slot.header.operation === 'deleted')
      .map((slot) => slot.header.fileId),
  );
  const heads = await eachAtOnce(files, (object) => bucket.head(object.key, call));
  const owed = files.filter((_, index) => {
    const head = heads[index];
    return head != null && !head.tombstone && (head.fileId === undefined || !done.has(head.fileId));
  });
  const parents = new Map<string, Parent>();
  owed.forEach((object) => {
    const head = heads[files.indexOf(object)]!;
    parents.set(object.key, { fileId: head.fileId, chain: head.chain });
  });
  return (await recordRemoval(space, owed, parents, record, op, call)).pruned;
}

/** How a move records the copy of one file: the versions written, and the version of the source read. */
export interface MoveRecording {
  readonly versioned: Versioned;
  /** The source's version the content was read from: the copy copies that one. */
  readonly etag: string;
}

/**
 * The recorder of a move's copies: before each copy, it reads the source (unless `first` is it)
 * and writes its `renamed` version at the destination's path. Resolves to null when the source
 * is gone, and to no recording for keys that are no memory file (an S3 console's folder marker).
 */
export function moveRecorder(
  space: Space,
  record: ChangeRecord,
  op: string,
  call: Call,
  first?: ObjectContent | undefined,
): (from: string, to: string, etag: string) => Promise<MoveRecording | null | undefined> {
  const { keys } = space;
  let read = first;
  return async (from, to, etag) => {
    const fromPath = keys.pathOf(from);
    const toPath = keys.pathOf(to);
    if (fromPath === undefined || toPath === undefined) return undefined;
    const source = read !== undefined && read.etag === etag ? read : await liveFile(space, from, call);
    read = undefined;
    if (source === null) return null;
    const parent = parentOf(source);
    const content = decodeContent(source);
    const versioned = await versionContent(
      space,
      toPath,
      parent,
      [{ record, op, content }],
      { previousPath: fromPath },
      call,
    );
    return { versioned, etag: source.etag };
  };
}

/**
 * The recorder of a move without history: each copy carries its source's id and record (a REPLACE
 * copy keeps no metadata it is not given), read with a HEAD of the source (unless `first` is it).
 * A file of older versions without an id gets one here; one without a record is given its record
 * at its next read (records.ts).
 */
export function moveCarrier(
  space: Space,
  call: Call,
  first?: ObjectInfo | undefined,
): (from: string, to: string, etag: string) => Promise<MoveRecording | null | undefined> {
  const { keys } = space;
  let read = first;
  return async (from, to, etag) => {
    if (keys.pathOf(from) === undefined || keys.pathOf(to) === undefined) return undefined;
    const source =
      read !== undefined && read.etag === etag ? read : await space.backend.bucket.head(from, call);
    read = undefined;
    if (source === null || source.tombstone) return null;
    const record = source.record && { ...source.record, changedAt: Date.now() };
    const file = { fileId: source.fileId ?? newFileId(), chain: source.chain, record };
    return { versioned: { file, drafted: [], settle: async () => {} }, etag: source.etag };
  };
}
