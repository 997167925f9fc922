// The history methods of the S3 driver (capabilities.history): reading one version, restoring,
// redacting and importing. Listings and the tree are read.ts; what a change records is
// write.ts; the version objects themselves record.ts.
import type {
  DriverRestoreOptions,
  DriverVersion,
  DriverVersionWithContent,
  DriverWriteOptions,
} from '@memdir/core';
import {
  checkImportedVersions,
  newFileId,
  refuseConflict,
  refuseNotFound,
  refuseTooLarge,
  sha256Hex,
  utf8Length,
  versionSequence,
} from '@memdir/core/driver';
import type { Call } from '../call.js';
import { decodeContent, isTombstone } from '../edits.js';
import { listObjects } from '../listing.js';
import type { Space } from '../space.js';
import { formatChain, parseChain } from './chain.js';
import type { VersionHeader } from './header.js';
import { allVisible, visibleSlot } from './read.js';
import {
  decodeSlot,
  encodeSlot,
  newestSequence,
  type StoredSlot,
  versionKey,
  versionOf,
  withContent,
} from './record.js';
import type { WriteShape } from './write.js';

const JSON_TYPE = 'application/x-ndjson';
const CONCURRENCY = 16;

/** The visible version `id` with its content, or null. */
async function slotWithContent(
  space: Space,
  id: string,
  call: Call,
): Promise<{ slot: StoredSlot; content: string | null } | null> {
  const seq = versionSequence(id);
  if (!Number.isSafeInteger(seq)) return null;
  const slot = await visibleSlot(space, seq, call);
  if (slot === null) return null;
  const object = await space.backend.bucket.get(slot.key, call);
  if (object === null) return null;
  const { header, content } = decodeSlot(object.bytes);
  return { slot: { ...slot, etag: object.etag, header }, content };
}

/** `readVersion`. */
export async function readVersion(
  space: Space,
  id: string,
  call: Call,
): Promise<DriverVersionWithContent | null> {
  const found = await slotWithContent(space, id, call);
  if (found === null) return null;
  return withContent(versionOf(found.slot.seq, found.slot.header), found.content);
}

/** `redactVersion`: the version object rewritten without content, paths, size and hash (`If-Match`). */
export async function redactVersion(space: Space, id: string, call: Call): Promise<DriverVersion | null> {
  const state = space.backend.namespace(space.keys).history;
  for (let attempt = 0; attempt < 5; attempt++) {
    const found = await slotWithContent(space, id, call);
    if (found === null) return null;
    const { slot } = found;
    if (slot.header.redactedAt !== null) return versionOf(slot.seq, slot.header);
    const header: VersionHeader = {
      ...slot.header,
      path: null,
      previousPath: null,
      sha256: null,
      size: null,
      redactedAt: Math.max(Date.now(), slot.header.at),
    };
    const written = await space.backend.bucket.put(
      slot.key,
      encodeSlot(header, null),
      { ifMatch: slot.etag, ops: header.operationId, contentType: JSON_TYPE },
      call,
    );
    if (typeof written === 'string') {
      state.remember(slot.key, written, header);
      return versionOf(slot.seq, header);
    }
    // Redacted by another store meanwhile (or this very write, sent twice): read it again.
    state.forget(slot.key);
  }
  throw refuseConflict('');
}

/** How `restoreVersion` writes: the driver's own `write`, with a shape for the version it records. */
export type RestoreWrite = (
  path: string,
  content: string,
  options: DriverWriteOptions,
  shape: WriteShape,
  recorded: DriverVersion[],
) => Promise<unknown>;

/** `restoreVersion`: the version's content written back through `write`, judged as the contract says. */
export async function restoreVersion(
  space: Space,
  id: string,
  options: DriverRestoreOptions,
  write: RestoreWrite,
  call: Call,
): Promise<DriverVersion> {
  const found = await slotWithContent(space, id, call);
  const content = found?.content ?? null;
  if (found === null || content === null || found.slot.header.redactedAt !== null) {
    throw refuseNotFound(options.to ?? '');
  }
  const { header } = found.slot;
  const to = options.to ?? header.path!;
  if (utf8Length(content) > options.maxFileBytes) throw refuseTooLarge(to);
  const object = await space.backend.bucket.get(space.keys.file(to), call);
  const current = object === null || isTombstone(object) ? null : object;
  const expected = options.expectSha256;
  const recorded: DriverVersion[] = [];
  const writeOptions = { op: options.op, quota: options.quota, record: options.record };
  if (current !== null) {
    if (
      expected === null ||
      (typeof expected === 'string' && sha256Hex(decodeContent(current)) !== expected)
    ) {
      throw refuseConflict(to);
    }
    // Over exactly the version whose hash was judged (a compare-and-swap): the file keeps its id.
    await write(
      to,
      content,
      { ...writeOptions, expect: { version: current.etag } },
      { restoredFrom: id },
      recorded,
    );
  } else {
    if (typeof expected === 'string') throw refuseConflict(to);
    const revived = await deletedHere(space, header.fileId, to, call);
    const shape: WriteShape = revived
      ? { restoredFrom: id, newFileId: header.fileId, revives: revived }
      : { restoredFrom: id, newFileId: newFileId() };
    await write(to, content, { ...writeOptions, expect: { absent: true } }, shape, recorded);
  }
  const version = recorded.at(-1);
  if (version === undefined) throw refuseConflict(to);
  return version;
}

/**
 * When the newest version of file `fileId` is its deletion at `path`, the chain the file had then
 * (with the deletion on top): a restore there brings that file back, id and chain.
 */
async function deletedHere(
  space: Space,
  fileId: string,
  path: string,
  call: Call,
): Promise<{ fileId: string; chain: string } | undefined> {
  const newest = (await allVisible(space, call)).find((slot) => slot.header.fileId === fileId);
  if (newest === undefined || newest.header.operation !== 'deleted' || newest.header.path !== path)
    return undefined;
  const chain = [{ seq: newest.seq, at: newest.header.at }, ...parseChain(newest.header.evidence)];
  return { fileId, chain: formatChain(chain) };
}

/** `importVersions`: version objects written as given, marked imported, above nothing newer. */
export async function importVersions(
  space: Space,
  versions: readonly DriverVersionWithContent[],
  call: Call,
): Promise<void> {
  checkImportedVersions(versions);
  if (versions.length === 0) return;
  if ((await newestSequence(space, call)) >= versionSequence(versions[0]!.id)) throw refuseConflict('');
  const { bucket } = space.backend;
  let next = 0;
  let conflict = false;
  const worker = async () => {
    while (next < versions.length) {
      const { id, content, ...fields } = versions[next++]!;
      const header: VersionHeader = { ...fields, memdir: 'version', evidence: '', imported: true };
      const written = await bucket.put(
        versionKey(space.keys, versionSequence(id)),
        encodeSlot(header, content),
        { ifNoneMatch: true, ops: fields.operationId, contentType: JSON_TYPE },
        call,
      );
      if (typeof written !== 'string' && !written.resent) conflict = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, versions.length) }, worker));
  // Later versions take ids above these.
  space.backend.namespace(space.keys).history.next = undefined;
  if (conflict) throw refuseConflict('');
}

/**
 * How many version objects the namespace holds (for admin's `usage`): one listing page per 1000.
 * Versions of changes that did not happen, not yet swept, are counted too.
 */
export async function countVersions(space: Space, call: Call): Promise<number> {
  let count = 0;
  for await (const _ of listObjects(space.backend.bucket, space.keys.history, { call })) count++;
  return count;
}
