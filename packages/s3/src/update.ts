// `updateById`: the file is found by its id (records.ts), then changed the way the store's other
// changes change a file. New content at the same path is one PUT `If-Match` the version located
// (write.ts `overwrite`); a new path is a move of that version under the namespace's lease
// (move.ts), whose copy is, when the content changes too, a PUT of the new content naming the
// source's version (`memdir-source`, as a copy does), so that a store finishing the move after a
// crash (recovery.ts) keeps it rather than copying the old content again. When the file changed
// between the lookup and the write, the lookup and its checks run again.
import type {
  DriverPath,
  DriverRecord,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
} from '@memdir/core';
import {
  ancestors,
  outcomeUnknown,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseTooLarge,
  sha256Hex,
  utf8Length,
} from '@memdir/core/driver';
import type { Call } from './call.js';
import { decodeContent } from './edits.js';
import { liveFile } from './history/structure.js';
import { parentOf, versionContent } from './history/write.js';
import { inspect } from './inspect.js';
import { type ObjectContent, opsHeader, TOMBSTONE } from './objects.js';
import { locate, readRecord, writtenRecord } from './records.js';
import type { Held } from './sessions.js';
import type { Space } from './space.js';
import { deleteWithLease, isLiveFile, type RecordedJournal } from './structure.js';
import { overwrite } from './write.js';

/** Lookups of one call before it gives up on a file that keeps changing under it. */
const MAX_TRIES = 5;

export async function updateById(
  space: Space,
  fileId: string,
  change: DriverUpdateChange,
  options: DriverUpdateByIdOptions,
  call: Call,
): Promise<DriverUpdateResult> {
  const { receipts, known } = space.backend;
  if (receipts.has(options.op)) return receipts.get(options.op) as DriverUpdateResult;
  await space.backend.behaviour(call);
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const located = await locate(space, fileId, false, call);
    if (located === null) throw refuseNotFound('');
    const from = located.path;
    const to = change.path ?? from;
    const sha256 = change.content === undefined ? located.sha256 : sha256Hex(change.content);
    if (to === from && sha256 === located.sha256) return { record: located, changed: false };
    const seen = known.get(space.keys.file(from));
    // This very call, sent before (its reply lost): the file carries its id.
    if (seen?.ops.includes(options.op)) return { record: located, changed: true };
    if (options.expectSha256 !== undefined && options.expectSha256 !== located.sha256)
      throw refuseConflict(from);
    let version: string | null;
    if (to === from) {
      const content = change.content!;
      if (utf8Length(content) > options.maxFileBytes) throw refuseTooLarge(to);
      if (seen === undefined) continue;
      version = await overwrite(space, from, content, seen.etag, {
        op: options.op,
        call,
        quota: options.quota,
        record: options.record,
      });
    } else {
      version = await moveById(space, located, to, change.content, options, call);
    }
    if (version === null) continue;
    const record = writtenRecord(space, to, version) ?? (await readRecord(space, to, false, call));
    if (record === null)
      throw outcomeUnknown('the file changed again right after its update', undefined, 'busy');
    return receipts.record(options.op, { record, changed: true }) as DriverUpdateResult;
  }
  throw outcomeUnknown('a file kept changing while it was updated', undefined, 'busy');
}

/**
 * Moves the file `located` names to `to` (with new `content` when given), under the lease.
 * @returns the version at `to`, or null when the file is no longer the one located (look again).
 */
function moveById(
  space: Space,
  located: DriverRecord,
  to: DriverPath,
  content: string | undefined,
  options: DriverUpdateByIdOptions,
  call: Call,
): Promise<string | null> {
  const { backend, keys } = space;
  const { op, record, quota } = options;
  const from = located.path;
  const fromKey = keys.file(from);
  const journal: RecordedJournal<'move'> = { kind: 'move', op, from, to, phase: 'intent', record };
  const { leases, totals } = backend.namespace(keys);
  return leases.submit({
    journal,
    call,
    run: async (held) => {
      const [source, target] = await Promise.all([
        liveFile(space, fromKey, call),
        inspect(space, to, call, { skipAncestors: new Set(ancestors(from)) }),
      ]);
      if (source === null || source.fileId !== located.fileId) return null;
      if (source.record !== undefined && source.record.sha256 !== located.sha256) return null;
      if (target.fileAbove !== undefined) throw refusePathConflict(target.fileAbove);
      if (target.file || target.occupied) throw refuseAlreadyExists(to);
      const next = content ?? decodeContent(source);
      const size = utf8Length(next);
      if (size > options.maxFileBytes) throw refuseTooLarge(to);
      const grows = size - source.size;
      if (quota && grows > 0) await totals.reserve(to, { bytes: grows, files: 0 }, quota, call);
      held.lease.check();
      held.changing();
      const placed = await placeNew(
        space,
        held,
        from,
        to,
        next,
        source,
        target.tombstone?.etag,
        options,
        call,
      );
      const { left, version: landed } = placed;
      await deleteWithLease(space, held, left === undefined ? [] : [left], call);
      backend.known.forget(fromKey);
      if (quota && grows < 0) await totals.release({ bytes: -grows, files: 0 }, call);
      if (landed === null && quota && grows > 0) await totals.release({ bytes: grows, files: 0 }, call);
      return landed;
    },
  });
}

/**
 * Writes `content` at `to` in place of version `source` of the file at `from`, then freezes (or
 * deletes) that version. Null when the source changed first (what was written at `to` is deleted).
 */
async function placeNew(
  space: Space,
  held: Held,
  from: string,
  to: string,
  content: string,
  source: ObjectContent,
  tombstone: string | undefined,
  options: DriverUpdateByIdOptions,
  call: Call,
): Promise<{ version: string | null; left: string | undefined }> {
  const { bucket, known } = space.backend;
  const { conditionalDelete } = bucket.behaviour;
  const { op, record } = options;
  const fromKey = space.keys.file(from);
  const toKey = space.keys.file(to);
  const changes = [{ record, op, content }];
  const versioned = await versionContent(space, to, parentOf(source), changes, { previousPath: from }, call);
  held.lease.check();
  const written = await bucket.put(
    toKey,
    content,
    {
      ...(tombstone === undefined ? { ifNoneMatch: true } : { ifMatch: tombstone }),
      ops: opsHeader(op),
      file: versioned.file,
      source: source.etag,
    },
    call,
  );
  if (typeof written !== 'string') {
    const now = await bucket.head(toKey, call);
    if (!(isLiveFile(now) && now.ops.includes(op))) {
      await versioned.settle(false);
      throw outcomeUnknown('another change took the new path of an update meanwhile', undefined, 'busy');
    }
  }
  held.lease.check();
  let frozen: boolean;
  let left: string | undefined;
  if (conditionalDelete) {
    frozen = (await bucket.delete(fromKey, source.etag, call)) === 'deleted';
  } else {
    const put = await bucket.put(
      fromKey,
      TOMBSTONE,
      { ifMatch: source.etag, ops: opsHeader(op), moved: op, contentType: 'application/octet-stream' },
      call,
    );
    frozen = typeof put === 'string';
    if (!frozen) frozen = (await bucket.head(fromKey, call))?.tombstone === true;
    if (frozen) left = fromKey;
  }
  if (!frozen) {
    // The source changed after the new content was written: that content goes again.
    await bucket.deleteMany([toKey], call);
    await versioned.settle(false);
    return { version: null, left: undefined };
  }
  await versioned.settle(true);
  const version = typeof written === 'string' ? written : ((await bucket.head(toKey, call))?.etag ?? null);
  if (version !== null && typeof written === 'string') {
    known.remember(toKey, {
      etag: written,
      size: utf8Length(content),
      ops: [op],
      ...versioned.file,
    });
  }
  return { version, left };
}
