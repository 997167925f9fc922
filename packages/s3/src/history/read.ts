// Reading history: pages of version objects (one listing page, newest first, and the JSON line of
// each, remembered by ETag), and which of them are visible. A version object is written before its
// change commits (record.ts), so a reader shows one only once something proves the change
// happened:
//
//   - a file chain names it: the chain of a live file (a HEAD), or the chain a later version's
//     change read (its `evidence`): file objects are only written by changes that committed;
//   - a deletion: once its file is gone from its path (the delete is journalled in the lease, so a
//     delete that began is finished by the next store if its own dies);
//   - imported and redacted versions are shown as they are.
//
// A version no chain names although a later chain of its file reaches back past it did not happen
// (its change lost its race or died); so is a version whose file is still at its path without it.
// Past the versions a reader can look at above its page (LOOKBACK), a version no chain speaks of
// is shown.
import type {
  DriverPointInTime,
  DriverTreeEntry,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
} from '@memdir/core';
import { sequenceVersionId, treeOfVersions, versionMatches } from '@memdir/core/driver';
import type { Call } from '../call.js';
import { listObjects } from '../listing.js';
import type { ListedObject, ObjectInfo } from '../objects.js';
import type { Space } from '../space.js';
import { chainIsFull, parseChain } from './chain.js';
import type { VersionHeader } from './header.js';
import { decodeHeader, newestSequence, type StoredSlot, seqOfKey, versionKey, versionOf } from './record.js';

/** Bytes of a version object read for its header: its JSON line fits but for very long paths. */
const HEADER_BYTES = 4096;
/** Version objects one page looks at, at most: one listing page. */
const SCAN = 1000;
/** Version objects above a page's cursor read for what they prove about those below it. */
const LOOKBACK = 1000;
const CONCURRENCY = 16;

/** The header of the version object listed as `object` (remembered by key and ETag), or null once gone. */
async function headerOf(space: Space, object: ListedObject, call: Call): Promise<VersionHeader | null> {
  const { bucket } = space.backend;
  const state = space.backend.namespace(space.keys).history;
  const known = state.header(object.key, object.etag);
  if (known) return known;
  const start = await bucket.getStart(object.key, HEADER_BYTES, call);
  if (start === null) return null;
  let header = decodeHeader(start.bytes, start.bytes.length >= start.size);
  if (header === undefined) {
    const whole = await bucket.get(object.key, call);
    if (whole === null) return null;
    header = decodeHeader(whole.bytes, true)!;
  }
  state.remember(object.key, start.etag, header);
  return header;
}

/** The version objects among `objects` with their headers, in order; unreadable ones left out. */
export async function readSlots(
  space: Space,
  objects: readonly ListedObject[],
  call: Call,
): Promise<StoredSlot[]> {
  const slots: (StoredSlot | null)[] = new Array(objects.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const index = next++;
      const object = objects[index]!;
      const seq = seqOfKey(space.keys, object.key);
      if (!Number.isSafeInteger(seq)) continue;
      try {
        const header = await headerOf(space, object, call);
        if (header) slots[index] = { seq, key: object.key, etag: object.etag, header };
      } catch (error) {
        // A foreign object in the history folder, or a body that is no version: not history.
        if ((error as { code?: unknown }).code !== undefined) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, objects.length) }, worker));
  return slots.filter((slot) => slot !== null);
}

/** What a chain says about one file: the versions it names and how far back it reaches. */
interface Evidence {
  readonly head: number;
  readonly oldest: number;
  /** The chain was cut at CHAIN_LIMIT: versions older than `oldest` may have happened. */
  readonly full: boolean;
  readonly seqs: ReadonlySet<number>;
}

/**
 * The visible versions among `slots` (newest first, each older than every other slot given, or
 * with `complete` the whole history above the oldest).
 */
export async function visibleAmong(
  space: Space,
  slots: readonly StoredSlot[],
  complete: boolean,
  call: Call,
): Promise<Set<number>> {
  const byFile = new Map<string, Evidence[]>();
  const add = (fileId: string | undefined, chain: string) => {
    if (!fileId) return;
    const entries = parseChain(chain);
    if (entries.length === 0) return;
    const list = byFile.get(fileId) ?? [];
    list.push({
      head: entries[0]!.seq,
      oldest: entries.at(-1)!.seq,
      full: chainIsFull(chain),
      seqs: new Set(entries.map((entry) => entry.seq)),
    });
    byFile.set(fileId, list);
  };
  for (const slot of slots) add(slot.header.fileId, slot.header.evidence);
  const proven = (slot: StoredSlot) =>
    byFile.get(slot.header.fileId)?.some((evidence) => evidence.seqs.has(slot.seq)) === true;
  const settled = (slot: StoredSlot) =>
    slot.header.imported === true || slot.header.redactedAt !== null || proven(slot);
  // The files at the paths of the versions not yet proven: their chains, and whether they are there.
  const paths = [...new Set(slots.filter((slot) => !settled(slot)).map((slot) => slot.header.path!))];
  const live = new Map<string, ObjectInfo | null>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const head = await space.backend.bucket.head(space.keys.file(path), call);
      const file = head === null || head.tombstone ? null : head;
      live.set(path, file);
      if (file) add(file.fileId, file.chain);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, paths.length) }, worker));
  const visible = new Set<number>();
  for (const slot of slots) {
    const { header } = slot;
    if (settled(slot)) {
      visible.add(slot.seq);
      continue;
    }
    const here = live.get(header.path!);
    const fileStillHere = here != null && here.fileId === header.fileId;
    if (header.operation === 'deleted') {
      if (!fileStillHere) visible.add(slot.seq);
      continue;
    }
    const disproved = byFile
      .get(header.fileId)
      ?.some((evidence) => evidence.head > slot.seq && (evidence.oldest <= slot.seq || !evidence.full));
    if (disproved || fileStillHere) continue;
    if (!complete) visible.add(slot.seq);
  }
  return visible;
}

/**
 * The version objects below `below` (all when undefined), newest first, at most `limit` of them, with
 * those above it that a reader looks at for proof, and whether that reaches the newest.
 */
async function scan(
  space: Space,
  below: number | undefined,
  limit: number,
  call: Call,
): Promise<{ above: StoredSlot[]; page: StoredSlot[]; more: boolean; complete: boolean }> {
  const { keys } = space;
  let startAfter: string | undefined;
  let complete = true;
  if (below !== undefined) {
    const top = await newestSequence(space, call);
    const from = below + LOOKBACK;
    if (from <= top) {
      complete = false;
      startAfter = versionKey(keys, from + 1);
    }
  }
  const above: ListedObject[] = [];
  const page: ListedObject[] = [];
  let more = false;
  for await (const object of listObjects(space.backend.bucket, keys.history, { call, startAfter })) {
    const seq = seqOfKey(keys, object.key);
    if (!Number.isSafeInteger(seq)) continue;
    if (below !== undefined && seq >= below) {
      above.push(object);
      continue;
    }
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(object);
  }
  const slots = await readSlots(space, [...above, ...page], call);
  const split = slots.findIndex((slot) => below === undefined || slot.seq < below);
  return {
    above: split === -1 ? slots : slots.slice(0, split),
    page: split === -1 ? [] : slots.slice(split),
    more,
    complete,
  };
}

/** `listVersions`: one page of at most {@link SCAN} version objects looked at. */
export async function listVersions(
  space: Space,
  query: DriverVersionQuery,
  call: Call,
): Promise<DriverVersionPage> {
  const below = query.cursor === undefined ? undefined : Number(query.cursor.slice('memver_'.length));
  if (below !== undefined && !Number.isSafeInteger(below)) return { versions: [], next: null };
  const { above, page, more, complete } = await scan(space, below, SCAN, call);
  const visible = await visibleAmong(space, [...above, ...page], complete, call);
  const versions: DriverVersion[] = [];
  for (const [index, slot] of page.entries()) {
    if (!visible.has(slot.seq)) continue;
    const version = versionOf(slot.seq, slot.header);
    if (query.fileId !== undefined && version.fileId !== query.fileId) continue;
    if (!versionMatches(version, query)) continue;
    versions.push(version);
    if (versions.length === query.limit) {
      const rest = index < page.length - 1 || more;
      return { versions, next: rest ? version.id : null };
    }
  }
  return { versions, next: more && page.length > 0 ? sequenceVersionId(page.at(-1)!.seq) : null };
}

/** The header of version `seq` and whether it is visible, or null when there is no such object. */
export async function visibleSlot(space: Space, seq: number, call: Call): Promise<StoredSlot | null> {
  const { above, page, complete } = await scan(space, seq + 1, 1, call);
  const slot = page[0];
  if (slot === undefined || slot.seq !== seq) return null;
  return (await visibleAmong(space, [...above, slot], complete, call)).has(seq) ? slot : null;
}

/** Every visible version of the namespace, newest first (treeAt, restore's look at a file's newest). */
export async function allVisible(space: Space, call: Call): Promise<StoredSlot[]> {
  const objects: ListedObject[] = [];
  for await (const object of listObjects(space.backend.bucket, space.keys.history, { call }))
    objects.push(object);
  const slots = await readSlots(space, objects, call);
  const visible = await visibleAmong(space, slots, true, call);
  return slots.filter((slot) => visible.has(slot.seq));
}

/** `treeAt`: every file's newest visible version at or before `at`. */
export async function treeAt(
  space: Space,
  at: DriverPointInTime,
  under: string,
  call: Call,
): Promise<DriverTreeEntry[]> {
  const slots = await allVisible(space, call);
  const byFile = new Map<string, string[]>();
  const byId = new Map<string, DriverVersion>();
  for (const slot of [...slots].reverse()) {
    const version = versionOf(slot.seq, slot.header);
    byId.set(version.id, version);
    const ids = byFile.get(version.fileId) ?? [];
    ids.push(version.id);
    byFile.set(version.fileId, ids);
  }
  return treeOfVersions(byFile, (id) => byId.get(id)!, at, under);
}
