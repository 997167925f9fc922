// The S3 side of the group commit of edits (`str_replace`, `insert`): the kit's EditQueue keeps one
// write per file in flight and hands over the edits that arrived meanwhile; here they are applied
// to one GET's content and written with one PUT If-Match. When another writer (another process)
// got there first, the group starts over on the new content.
import type { DriverChangeOptions, DriverQuota } from '@memdir/core';
import { type EditBatch, judgeQuota, refuseQuota, sleep, utf8Length } from '@memdir/core/driver';
import { Call } from './call.js';
import { type ContentChange, parentOf, versionContent } from './history/write.js';
import { anythingBeneath } from './inspect.js';
import { type ObjectContent, opsHeader } from './objects.js';
import type { Space } from './space.js';

const MAX_BACKOFF_MS = 25;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A file's content: UTF-8, a byte-order mark kept as the character it is (SPEC section 3). */
export function decodeContent(object: ObjectContent): string {
  return decoder.decode(object.bytes);
}

/** True for a move's stand-in, whether its metadata or its bytes say so (0xFF is never UTF-8). */
export function isTombstone(object: ObjectContent): boolean {
  return object.tombstone || object.bytes[0] === 0xff;
}

/** What the driver queues with each edit: the engine's options, and the call its requests count on. */
export interface QueuedOptions extends DriverChangeOptions {
  readonly call: Call;
}

/**
 * An edit's options as it waits in the file's queue. Not a copy of the engine's (`{ ...options }`
 * would keep the deadline as it was when the edit queued): the deadline is the call's, which
 * follows the engine's as progress of the writers ahead moves it, and progress goes to the call.
 */
export function queuedOptions(options: DriverChangeOptions, call: Call): QueuedOptions {
  return {
    op: options.op,
    quota: options.quota,
    record: options.record,
    call,
    get deadline() {
      return call.deadline;
    },
    progressed: () => call.progressed(),
  };
}

/** How long after a group of edits of a file lost a race its next groups take the lease (history on). */
const CONTENDED_MS = 2_000;
/** A group of this many edits or more takes the lease (history on): a lost round would cost as many versions. */
const LEASED_GROUP = 8;

/** How a round of a group ended: all settled, judged again at once, or lost to another writer. */
type RoundEnd = 'done' | 'again' | 'lost';

/** What the rounds of one group carry from one to the next. */
interface GroupState {
  /** Bytes this group has added to the totals so far, for a quota. */
  reserved: number;
  /** Set once a quota refused an edit on the totals this process last saw: read them again. */
  freshTotals: boolean;
}

/**
 * Runs one group of edits of the file at `path` to its end: read, apply each edit in turn (each
 * judged against the quota with those before it), write with `If-Match`, and on a lost race start
 * over on what is there now. Settles every member or throws (the queue then fails the rest).
 *
 * With history, a round writes one version object per edit before its `If-Match`, and a round
 * that loses wrote them for nothing. So a round of {@link LEASED_GROUP} edits or more, and every
 * round of a file whose group lost a race in the last {@link CONTENDED_MS}, runs under the
 * namespace's lease: the processes editing the file then take turns instead of each writing its
 * versions again on every lost round. A lone edit still goes at once (a lost round costs one
 * version).
 */
export async function commitEdits(space: Space, path: string, batch: EditBatch): Promise<void> {
  const { backend, keys } = space;
  const { totals, leases, editRaces } = backend.namespace(keys);
  const key = keys.file(path);
  const group: GroupState = { reserved: 0, freshTotals: false };
  let call: Call | undefined;
  for (let round = 0; ; round++) {
    if (round > 0) {
      batch.refill();
      if (batch.settled) break;
    }
    const roundCall = Call.shared(batch.members.map((member) => (member.options as QueuedOptions).call));
    call = roundCall;
    const recorded = batch.members.some((member) => member.options.record !== undefined);
    const lostAt = editRaces.get(key);
    const raced = lostAt !== undefined && Date.now() - lostAt < CONTENDED_MS;
    if (lostAt !== undefined && !raced) editRaces.delete(key);
    const leased = recorded && (raced || batch.members.length >= LEASED_GROUP);
    const end = leased
      ? await leases.submit({
          journal: { kind: 'write', op: batch.members[0]!.options.op, path },
          call: roundCall,
          creates: path,
          run: () => editRound(space, path, batch, group, roundCall),
          // Every edit waiting for this file waits for this round's lease, queued ones included.
          progressed: () => batch.progressed(),
        })
      : await editRound(space, path, batch, group, roundCall);
    if (end === 'done') break;
    if (end === 'lost') {
      // The file changed under the round: another writer's group committed.
      batch.progressed();
      editRaces.set(key, Date.now());
      roundCall.retried();
      await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
    }
  }
  // A group whose members all gave up before its write gives back what it reserved.
  if (group.reserved > 0 && call) await totals.release({ bytes: group.reserved, files: 0 }, call);
}

/** One round of a group: read the file, apply the edits, write their versions and the file. */
async function editRound(
  space: Space,
  path: string,
  batch: EditBatch,
  group: GroupState,
  call: Call,
): Promise<RoundEnd> {
  const { backend, keys } = space;
  const { bucket, known } = backend;
  const { totals } = backend.namespace(keys);
  const key = keys.file(path);
  // Members of stores with different quotas are each judged by their own; the totals are kept
  // while any of them has one.
  const quota: DriverQuota | undefined = batch.members.find((member) => member.options.quota)?.options.quota;
  await backend.behaviour(call);
  const file = await bucket.get(key, call);
  if (file === null || isTombstone(file)) {
    batch.missing((await anythingBeneath(space, path, call)) ? 'directory' : null);
    return 'done';
  }
  known.remember(key, {
    etag: file.etag,
    size: file.size,
    ops: file.ops,
    fileId: file.fileId,
    chain: file.chain,
    record: file.record,
    lastModified: file.lastModified,
  });
  // An edit whose id the file carries was written already (its reply was lost, and it came again).
  batch.resolveReplayed(file.ops);
  if (batch.settled) return 'done';
  let room: { bytes: number; files: number } | undefined;
  if (quota) {
    const now = await totals.current(call, group.freshTotals);
    // The totals count what this group reserved before; the file does not hold it yet.
    room = { bytes: now.bytes - group.reserved, files: now.files };
  }
  let added = 0;
  let refusedByQuota = false;
  /** The edits applied, each with the content after it: one version each (history). */
  const changes: ContentChange[] = [];
  const { content, applied } = batch.apply(decodeContent(file), (before, after, member) => {
    const grows = utf8Length(after) - utf8Length(before);
    if (room) {
      const breach = judgeQuota(member.options.quota, {
        bytes: room.bytes + added,
        files: room.files,
        addedBytes: grows,
        newFile: false,
      });
      if (breach) {
        refusedByQuota = true;
        return refuseQuota(path, breach);
      }
    }
    added += grows;
    changes.push({ record: member.options.record, op: member.options.op, content: after });
    return null;
  });
  if (refusedByQuota && !group.freshTotals) {
    group.freshTotals = true;
    return 'again';
  }
  if (applied.length === 0) {
    batch.settle();
    return 'done';
  }
  if (quota && added > group.reserved) {
    try {
      await totals.reserve(path, { bytes: added - group.reserved, files: 0 }, quota, call);
      group.reserved = added;
    } catch (error) {
      // Other writers filled the namespace since the totals were read: judge the edits again.
      if ((error as { code?: unknown }).code === 'QUOTA_EXCEEDED') return 'again';
      throw error;
    }
  }
  const ops = opsHeader(applied, file.ops);
  const parent = parentOf(file);
  const versioned = await versionContent(space, path, parent, changes, {}, call);
  const written = await bucket.put(key, content, { ifMatch: file.etag, ops, file: versioned.file }, call);
  let landed = typeof written === 'string';
  if (typeof written !== 'string' && written.resent) {
    const now = await bucket.head(key, call);
    landed = now !== null && !now.tombstone && now.ops.includes(applied[0]!);
  }
  await versioned.settle(landed);
  if (!landed) return 'lost';
  if (typeof written === 'string')
    known.remember(key, {
      etag: written,
      size: utf8Length(content),
      ops: ops.split(' '),
      ...versioned.file,
    });
  else known.forget(key);
  // A shorter file, or a group that reserved more in an earlier round: the rest goes back.
  if (quota && added < group.reserved)
    await totals.release({ bytes: group.reserved - added, files: 0 }, call);
  group.reserved = 0;
  batch.settle();
  return 'done';
}
