// The driver's changes: `write` (a create, or a compare-and-swap over a version), `update` (queued
// edits, edits.ts), `remove` and `move` (changes of structure under the lease, structure.ts and
// move.ts), and the write a restore makes. Each is replay-safe by its operation id: the outcome of
// a call this process already answered is given again from its receipts (backend.ts).
//
// A file written over (a `create` over a file this process has seen, an edit) needs no lease; a
// new path, a delete and a rename queue for the namespace's lease (sessions.ts).
import type {
  DriverChangeOptions,
  DriverRecord,
  DriverRemoveOptions,
  DriverRestoreOptions,
  DriverVersion,
  DriverWriteOptions,
} from '@memdir/core';
import { asDriverPath, outcomeUnknown, refuseConflict, utf8Length } from '@memdir/core/driver';
import type { Call } from './call.js';
import { queuedOptions } from './edits.js';
import * as history from './history/index.js';
import { parentOf, type WriteShape } from './history/write.js';
import { anythingBeneath } from './inspect.js';
import { movePath } from './move.js';
import { opsHeader } from './objects.js';
import { readRecord, writtenRecord } from './records.js';
import type { Space } from './space.js';
import { type ChangeContext, createPath, isLiveFile, removePath } from './structure.js';
import { touch } from './sweep.js';
import { putVersioned } from './versioned-put.js';

/** `MemoryDriver.write`, answered from the receipts when this process already made it. */
export async function write(
  space: Space,
  path: string,
  content: string,
  options: DriverWriteOptions,
  call: Call,
): Promise<{ version: string; record?: DriverRecord | undefined }> {
  const { receipts } = space.backend;
  type Written = { version: string; record?: DriverRecord | undefined };
  if (receipts.has(options.op)) return receipts.get(options.op) as Written;
  const { version } = await writeFile(space, path, content, options, call);
  const record = writtenRecord(space, path, version);
  return receipts.record(options.op, record ? { version, record } : { version }) as Written;
}

async function writeFile(
  space: Space,
  path: string,
  content: string,
  options: DriverWriteOptions,
  call: Call,
  restore?: { shape: WriteShape; recorded: DriverVersion[] },
): Promise<{ version: string }> {
  const { expect, op, quota } = options;
  const { backend } = space;
  const key = space.keys.file(path);
  const context: ChangeContext = {
    op,
    call,
    quota,
    record: options.record,
    shape: restore?.shape ?? { newFileId: options.fileId },
    recorded: restore?.recorded,
  };
  await backend.behaviour(call);
  if (expect && 'version' in expect) {
    // A compare-and-swap in place: a file that exists has no file above it and is no directory.
    const version = await overwrite(space, path, content, expect.version, context);
    if (version !== null) return { version };
    throw refuseConflict(path);
  }
  const known = backend.known.get(key);
  if (expect === undefined) {
    // Over a file this process has seen: no lease needed, for the same reason. If it changed or
    // went since, the path is looked at under the lease.
    if (known) {
      const version = await overwrite(space, path, content, known.etag, context);
      if (version !== null) return { version };
      backend.known.forget(key);
    }
    return { version: await createPath(space, path, content, false, context) };
  }
  if (known) {
    // A file that is still there refuses at once, without the lease: racing creators that lost
    // do not queue for it (the refusal holds at the moment of this HEAD).
    const now = await backend.bucket.head(key, call);
    if (isLiveFile(now)) {
      if (now.ops.includes(op)) return { version: now.etag };
      throw refuseConflict(path);
    }
  }
  return { version: await createPath(space, path, content, true, context) };
}

/**
 * Writes `content` over version `etag` of the file at `path` (`If-Match`), with the quota's reservation first.
 * @returns the new version, or null when the file is no longer that version (nothing written).
 */
export async function overwrite(
  space: Space,
  path: string,
  content: string,
  etag: string,
  context: ChangeContext,
) {
  const { op, call, quota } = context;
  const { bucket, known } = space.backend;
  const key = space.keys.file(path);
  const { totals } = space.backend.namespace(space.keys);
  let seen = known.get(key);
  if (seen?.etag !== etag || seen.chain === undefined) {
    // The version's size (a quota) and history headers (kept, or carried on) are not known here.
    const head = await bucket.head(key, call);
    if (!isLiveFile(head) || head.etag !== etag) return null;
    seen = { ...head, ops: known.opsOf(key, etag) };
  }
  let change = { bytes: 0, files: 0 };
  if (quota) {
    change = { bytes: utf8Length(content) - seen.size, files: 0 };
    if (change.bytes > 0) await totals.reserve(path, change, quota, call);
  }
  const ops = opsHeader(op, known.opsOf(key, etag));
  const parent = parentOf(seen);
  const written = await putVersioned(space, path, content, parent, { ifMatch: etag }, ops, context);
  if (typeof written === 'string') {
    if (change.bytes < 0) await totals.release({ bytes: -change.bytes, files: 0 }, call);
    return written;
  }
  // This call's own write landed and was sent again, or another writer got there first.
  const now = written.resent ? await bucket.head(key, call) : null;
  const landed = isLiveFile(now) && now.ops.includes(op);
  await written.settle(landed);
  if (landed) return now.etag;
  if (change.bytes > 0) await totals.release(change, call);
  return null;
}

/** `MemoryDriver.update`: the edit joins the file's group commit (edits.ts). */
export async function update(
  space: Space,
  path: string,
  edit: (content: string) => string,
  options: DriverChangeOptions,
  call: Call,
): Promise<'file' | 'directory' | null> {
  const { receipts } = space.backend;
  if (receipts.has(options.op)) return receipts.get(options.op) as 'file';
  const queued = queuedOptions(options, call);
  // An edit reads the file whether or not it changes it (a refused edit was still a read).
  const touched = options.touch ? touch(space, path, call) : undefined;
  const [kind] = await Promise.all([
    space.backend.namespace(space.keys).edits.submit(path, edit, queued),
    touched,
  ]);
  // Only a call that changed something is recorded: 'directory' and null change nothing.
  return kind === 'file' ? (receipts.record(options.op, kind) as 'file') : kind;
}

/** `MemoryDriver.remove`, under the lease (structure.ts). */
export async function remove(
  space: Space,
  path: string,
  options: DriverRemoveOptions,
  call: Call,
): Promise<boolean> {
  const { receipts } = space.backend;
  if (receipts.has(options.op)) return receipts.get(options.op) as boolean;
  if (options.expect) return removeExpected(space, path, options, options.expect, call);
  const removed = await removePath(space, path, {
    op: options.op,
    call,
    quota: options.quota,
    record: options.record,
  });
  return removed ? (receipts.record(options.op, removed) as boolean) : removed;
}

/**
 * A remove under an expectation: the file's record is read and checked, then only the version
 * checked is removed (frozen `If-Match` it, as an expiry removes a file); when it changed
 * meanwhile, the check runs again on what is there now.
 */
async function removeExpected(
  space: Space,
  path: string,
  options: DriverRemoveOptions,
  expect: NonNullable<DriverRemoveOptions['expect']>,
  call: Call,
): Promise<boolean> {
  const { receipts, known } = space.backend;
  await space.backend.behaviour(call);
  for (let attempt = 0; attempt < MAX_EXPECTED_TRIES; attempt++) {
    const record = await readRecord(space, path, false, call);
    if (record === null) {
      if (await anythingBeneath(space, path, call)) throw refuseConflict(path);
      return false;
    }
    if (
      (expect.fileId !== undefined && expect.fileId !== record.fileId) ||
      (expect.sha256 !== undefined && expect.sha256 !== record.sha256)
    )
      throw refuseConflict(path);
    const seen = known.get(space.keys.file(path));
    if (seen === undefined) continue;
    const removed = await removePath(space, path, {
      op: options.op,
      call,
      quota: options.quota,
      record: options.record,
      onlyVersion: { etag: seen.etag, size: seen.size },
    });
    if (removed) return receipts.record(options.op, removed) as boolean;
  }
  throw outcomeUnknown('a file kept changing while it was removed', undefined, 'busy');
}

/** Checks of a remove under an expectation before it gives up on a file that keeps changing. */
const MAX_EXPECTED_TRIES = 5;

/** `MemoryDriver.move`, under the lease (move.ts). */
export async function move(
  space: Space,
  from: string,
  to: string,
  options: DriverChangeOptions,
  call: Call,
): Promise<void> {
  const { receipts } = space.backend;
  if (receipts.has(options.op)) return;
  await movePath(space, from, to, { op: options.op, call, quota: undefined, record: options.record });
  receipts.record(options.op, undefined);
}

/** `MemoryDriver.restoreVersion`: the version's content written back the way `write` writes. */
export async function restoreVersion(
  space: Space,
  id: string,
  options: DriverRestoreOptions,
  call: Call,
): Promise<DriverVersion> {
  await space.backend.behaviour(call);
  return history.restoreVersion(
    space,
    id,
    options,
    (path, content, writeOptions, shape, recorded) =>
      writeFile(space, asDriverPath(path), content, writeOptions, call, { shape, recorded }),
    call,
  );
}
