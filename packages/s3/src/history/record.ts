// Version objects: one per version, at a readable key under the namespace's `.memdir/history/`:
//
//   {base}.memdir/history/9999999999999994-memver_0000000000000005
//
// The first part is 10^16 - 1 - n, so a listing (ascending keys) comes newest first and a page of
// history is one ListObjectsV2 page. Its body is a JSON line (the version's fields, and the chain
// of the file its change read: see chain.ts) and, after a newline, the content.
//
// A change writes its versions with `If-None-Match: *` before its commit (the file's PUT, copy or
// delete): that one request both takes the id (the namespace's counter is the keys themselves:
// exactly one writer gets each) and stores the version. Until the change commits, the version is
// there but not visible: readers show a version only once a file's chain names it (or, for a
// deletion, once the file is gone). A change that lost its race deletes its version objects; one
// that died leaves them, unseen, to the admin sweep.
import type { ChangeRecord, DriverVersion, DriverVersionWithContent } from '@memdir/core';
import {
  nextVersionSequence,
  sequenceVersionId,
  sha256Hex,
  utf8Length,
  versionSequence,
} from '@memdir/core/driver';
import { Call } from '../call.js';
import type { KeySpace } from '../keys.js';
import type { Space } from '../space.js';
import { parseChain } from './chain.js';
import type { VersionHeader } from './header.js';

const JSON_TYPE = 'application/x-ndjson';
/** Claims of one change before it gives up on a namespace whose counter keeps moving under it. */
const MAX_CLAIMS = 20;
const NEWLINE = 0x0a;

/** A version object as read. */
export interface StoredSlot {
  readonly seq: number;
  readonly key: string;
  readonly etag: string;
  readonly header: VersionHeader;
}

/** The key of version `seq` of a namespace. */
export function versionKey(keys: KeySpace, seq: number): string {
  const id = sequenceVersionId(seq);
  // 10^16 - 1 - seq, digit by digit (past 2^53, numbers would round).
  const inverted = id.slice('memver_'.length).replace(/\d/g, (digit) => String(9 - Number(digit)));
  return `${keys.history}${inverted}-${id}`;
}

/** The sequence number of a version object's key, or NaN for another key. */
export function seqOfKey(keys: KeySpace, key: string): number {
  if (!key.startsWith(keys.history)) return Number.NaN;
  return versionSequence(key.slice(keys.history.length + 17));
}

/** The version of a header. */
export function versionOf(seq: number, header: VersionHeader): DriverVersion {
  return {
    id: sequenceVersionId(seq),
    fileId: header.fileId,
    path: header.path,
    previousPath: header.previousPath,
    operation: header.operation,
    sha256: header.sha256,
    size: header.size,
    at: header.at,
    actor: header.actor,
    command: header.command,
    operationId: header.operationId,
    toolUseId: header.toolUseId,
    restoredFrom: header.restoredFrom,
    redactedAt: header.redactedAt,
  };
}

/** The body of a version object: its JSON line, and the content after a newline (none: no content). */
export function encodeSlot(header: VersionHeader, content: string | null): string {
  const line = JSON.stringify(header);
  return content === null ? line : `${line}\n${content}`;
}

/** The header of a body's first bytes, or undefined when its line goes on past them. */
export function decodeHeader(bytes: Uint8Array, complete: boolean): VersionHeader | undefined {
  const end = bytes.indexOf(NEWLINE);
  if (end === -1 && !complete) return undefined;
  const line = Buffer.from(end === -1 ? bytes : bytes.subarray(0, end)).toString('utf8');
  const header = JSON.parse(line) as VersionHeader;
  if (header?.memdir !== 'version') throw new Error('not a version object');
  return header;
}

/** A whole version object's header and content. */
export function decodeSlot(bytes: Uint8Array): { header: VersionHeader; content: string | null } {
  const header = decodeHeader(bytes, true)!;
  const end = bytes.indexOf(NEWLINE);
  const content =
    end === -1 ? null : new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(end + 1));
  return { header, content };
}

/** One version a change is about to make. */
export interface VersionDraft {
  readonly record: ChangeRecord;
  readonly op: string;
  readonly fileId: string;
  readonly path: string;
  readonly previousPath?: string | null | undefined;
  readonly operation: DriverVersion['operation'];
  /** The content after the change; null for a deletion. */
  readonly content: string | null;
  readonly restoredFrom?: string | null | undefined;
  /** The chain of the file as the change read it. */
  readonly evidence: string;
}

/** A version written, not yet committed. */
export interface Drafted {
  readonly seq: number;
  readonly key: string;
  readonly version: DriverVersion;
}

/** The newest sequence number a namespace has used (0 for none): one listing of one key. */
export async function newestSequence(space: Space, call: Call): Promise<number> {
  const { keys } = space;
  const page = await space.backend.bucket.list(keys.history, undefined, call, 1);
  for (const object of page.objects) {
    // Past the exact range too (a version an unchecked import left): a write then refuses to go on.
    const seq = seqOfKey(keys, object.key);
    if (!Number.isNaN(seq)) return seq;
  }
  return 0;
}

/**
 * Writes the version objects of `drafts` (one change call; several for a folder or a group of
 * edits), with consecutive ids in their order and one time for all. Each is a PUT `If-None-Match`
 * at its id's key: when another writer took one of the ids, those written are deleted and the
 * group goes again above the namespace's newest id.
 */
export async function writeVersions(
  space: Space,
  drafts: readonly VersionDraft[],
  call: Call,
): Promise<Drafted[]> {
  if (drafts.length === 0) return [];
  const { bucket } = space.backend;
  const state = space.backend.namespace(space.keys).history;
  const at = Math.max(Date.now(), state.lastAt);
  state.lastAt = at;
  const bodies = drafts.map((draft) => {
    const { content } = draft;
    const header: VersionHeader = {
      memdir: 'version',
      fileId: draft.fileId,
      path: draft.path as DriverVersion['path'],
      previousPath: (draft.previousPath ?? null) as DriverVersion['previousPath'],
      operation: draft.operation,
      sha256: content === null ? null : sha256Hex(content),
      size: content === null ? null : utf8Length(content),
      at,
      actor: draft.record.actor,
      command: draft.record.command,
      operationId: draft.op,
      toolUseId: draft.record.toolUseId,
      restoredFrom: draft.restoredFrom ?? null,
      redactedAt: null,
      evidence: draft.evidence,
    };
    return { header, body: encodeSlot(header, content) };
  });
  // The newest version the changed files name (their chains as the change read them): the ids
  // claimed go above it. This process's next id may be older (another store wrote since, and
  // retention may have removed the version at that id): then it lists the newest id again, rather
  // than record a change below versions its file already has.
  let floor = 0;
  for (const draft of drafts)
    for (const entry of parseChain(draft.evidence)) floor = Math.max(floor, entry.seq);
  for (let claim = 0; claim < MAX_CLAIMS; claim++) {
    if (state.next === undefined || state.next <= floor) {
      await state.refresh(() => newestSequence(space, call));
      state.next = Math.max(state.next!, floor + 1);
    }
    const first = state.next!;
    // A history past its exact range gets BACKEND, not ids that round and collide.
    nextVersionSequence(first - 1, drafts.length);
    state.next = first + drafts.length;
    const results = await Promise.all(
      bodies.map(({ body }, index) =>
        bucket.put(
          versionKey(space.keys, first + index),
          body,
          { ifNoneMatch: true, ops: drafts[index]!.op, contentType: JSON_TYPE },
          call,
        ),
      ),
    );
    const taken = await Promise.all(
      results.map(async (result, index) => {
        if (typeof result === 'string') return true;
        // A PUT sent twice may have landed the first time: then the object is this draft's.
        if (!result.resent) return false;
        const seen = await bucket.head(versionKey(space.keys, first + index), call);
        return seen?.ops.includes(drafts[index]!.op) === true;
      }),
    );
    const drafted = bodies.map(({ header }, index) => {
      const seq = first + index;
      const key = versionKey(space.keys, seq);
      const result = results[index];
      if (taken[index]) state.remember(key, typeof result === 'string' ? result : undefined, header);
      return { seq, key, version: versionOf(seq, header) };
    });
    if (taken.every(Boolean)) return drafted;
    discardVersions(
      space,
      drafted.filter((_, index) => taken[index]),
      call,
    );
    // Others claim ids here too: go on above the newest, a random stretch up, so that the stores
    // racing for the same ids spread out (ids need only grow: gaps are allowed).
    await state.refresh(
      async () => (await newestSequence(space, call)) + Math.floor(Math.random() * 4 * drafts.length),
    );
    call.retried();
  }
  throw new Error('the history of this memory kept changing under its writes');
}

/**
 * Deletes version objects of a change that did not commit, in the background (readers do not show
 * them anyway, so a change that lost its race goes on at once). Never throws: what a failure or a
 * crash leaves stays unseen until the admin sweep.
 */
export function discardVersions(space: Space, drafted: readonly Drafted[], call: Call): Promise<void> {
  if (drafted.length === 0) return Promise.resolve();
  // Upkeep: it may outlive the command's deadline a little, like a lease's release.
  const upkeep = new Call(
    call.log,
    undefined,
    Math.max(call.deadline, Date.now() + space.backend.leaseTtlMs / 2),
  );
  return space.backend.bucket
    .deleteMany(
      drafted.map((entry) => entry.key),
      upkeep,
    )
    .catch((error: unknown) =>
      call.log.warn('versions of a change that did not happen were left (they stay unseen)', {
        reason: (error as { reason?: unknown }).reason,
      }),
    );
}

/** Deletes the versions retention removed, once the change that dropped them from its chain committed. */
export async function pruneVersions(space: Space, seqs: readonly number[], call: Call): Promise<void> {
  if (seqs.length === 0) return;
  await space.backend.bucket
    .deleteMany(
      seqs.map((seq) => versionKey(space.keys, seq)),
      call,
    )
    .catch((error: unknown) =>
      call.log.warn('versions retention removes were left for the sweep', {
        reason: (error as { reason?: unknown }).reason,
      }),
    );
}

/** A version with its content, as `readVersion` returns it. */
export function withContent(version: DriverVersion, content: string | null): DriverVersionWithContent {
  return {
    ...version,
    content: version.redactedAt !== null || version.operation === 'deleted' ? null : content,
  };
}
