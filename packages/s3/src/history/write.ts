// The history side of a change to one file: before its commit (the PUT of the file, the copy of a
// move), the version objects are written (record.ts) and the file's new history headers
// worked out (its id, its chain with the new versions on top and without what retention removes);
// the commit carries those headers; after it, what retention removed is deleted, or, when the
// commit did not land, the versions are. A change without a record writes no version, and the file
// keeps its id and chain.
import type { ChangeRecord, DriverVersion } from '@memdir/core';
import { newFileId, sha256Hex } from '@memdir/core/driver';
import type { Call } from '../call.js';
import type { FileMeta, StoredRecord } from '../objects.js';
import type { Space } from '../space.js';
import { formatChain, parseChain, prunePlan } from './chain.js';
import {
  type Drafted,
  discardVersions,
  pruneVersions,
  type VersionDraft,
  versionKey,
  writeVersions,
} from './record.js';

/** What a change knows of the file it replaces: its history headers as it read them. */
export interface Parent {
  readonly fileId: string | undefined;
  readonly chain: string;
  /** When the file was made (its record's; a file of older versions: its Last-Modified). */
  readonly createdAt?: number | undefined;
}

/** The parent a change reads from a HEAD, a GET or what this process knows of a file. */
export function parentOf(info: {
  readonly fileId?: string | undefined;
  readonly chain?: string | undefined;
  readonly record?: StoredRecord | undefined;
  readonly lastModified?: Date | undefined;
}): Parent {
  return {
    fileId: info.fileId,
    chain: info.chain ?? '',
    createdAt: info.record?.createdAt ?? info.lastModified?.getTime(),
  };
}

/** The record a write of `content` leaves on a file made at `createdAt` (now when unknown). */
function recordFor(content: string, createdAt: number | undefined, versionSeq: number | null): StoredRecord {
  const now = Date.now();
  return { sha256: sha256Hex(content), createdAt: createdAt ?? now, changedAt: now, versionSeq };
}

/** The versions of one commit, written and waiting for it. */
export interface Versioned {
  /** The history headers the commit writes on the file. */
  readonly file: FileMeta;
  readonly drafted: readonly Drafted[];
  /** After the commit: prune when it landed, else delete the versions. Never throws. */
  settle(landed: boolean): Promise<void>;
}

/** One change of one file's content (several for a group of edits, applied in order). */
export interface ContentChange {
  readonly record: ChangeRecord | undefined;
  readonly op: string;
  /** The content after this change. */
  readonly content: string;
}

/** How a write names what it makes: a restore, or the file id a new file gets. */
export interface WriteShape {
  /** `write`'s `fileId` option, or a restore's: the id of a file this write creates. */
  readonly newFileId?: string | undefined;
  /** A restore: the version whose content is written back. */
  readonly restoredFrom?: string | undefined;
  /** Where a move takes the file (its version is `renamed`, the path before is `previousPath`). */
  readonly previousPath?: string | undefined;
  /** A restore that brings a deleted file back: its id and chain, as it had them then. */
  readonly revives?: Parent | undefined;
}

/** The history headers of a file written without a record: its id and chain as they were. */
function unrecorded(parent: Parent | null, shape: WriteShape): FileMeta {
  return {
    fileId: parent?.fileId ?? shape.newFileId ?? newFileId(),
    chain: parent?.chain ?? shape.revives?.chain ?? '',
  };
}

const NOTHING: Versioned['settle'] = async () => {};

/**
 * Writes the versions of `changes` to the file at `path` (replacing `parent`, or creating it when
 * null), ready for the commit.
 */
export async function versionContent(
  space: Space,
  path: string,
  parent: Parent | null,
  changes: readonly ContentChange[],
  shape: WriteShape,
  call: Call,
): Promise<Versioned> {
  const recorded = changes.filter((change) => change.record !== undefined);
  const last = changes.at(-1)!;
  const createdAt = parent?.createdAt ?? shape.revives?.createdAt;
  if (recorded.length === 0) {
    const file = { ...unrecorded(parent, shape), record: recordFor(last.content, createdAt, null) };
    return { file, drafted: [], settle: NOTHING };
  }
  const fileId = parent?.fileId ?? shape.newFileId ?? newFileId();
  // A file brought back by a restore goes on from the chain it had (its deletion on top).
  const before = parent ?? shape.revives ?? null;
  const operation = (index: number): DriverVersion['operation'] => {
    if (shape.restoredFrom !== undefined) return 'restored';
    if (shape.previousPath !== undefined) return 'renamed';
    return parent === null && index === 0 ? 'created' : 'modified';
  };
  const drafts: VersionDraft[] = recorded.map((change, index) => ({
    record: change.record!,
    op: change.op,
    fileId,
    path,
    previousPath: shape.previousPath ?? null,
    operation: operation(index),
    content: change.content,
    restoredFrom: shape.restoredFrom ?? null,
    evidence: before?.chain ?? '',
  }));
  const drafted = await writeVersions(space, drafts, call);
  const added = drafted.map((entry) => ({ seq: entry.seq, at: entry.version.at })).reverse();
  const retention = recorded.at(-1)!.record!;
  const plan = prunePlan(added, parseChain(before?.chain), retention, added[0]!.at);
  const versionSeq = last.record === undefined ? null : drafted.at(-1)!.seq;
  return {
    file: { fileId, chain: formatChain(plan.chain), record: recordFor(last.content, createdAt, versionSeq) },
    drafted,
    settle: async (landed) => {
      if (landed) await pruneVersions(space, plan.pruned, call);
      else discardVersions(space, drafted, call);
    },
  };
}

/** Writes the deletion versions of files about to be removed, ready for the delete. */
export async function versionDeletions(
  space: Space,
  files: readonly { readonly path: string; readonly parent: Parent }[],
  record: ChangeRecord | undefined,
  op: string,
  call: Call,
): Promise<{ drafted: readonly Drafted[]; pruned: string[] }> {
  if (record === undefined || files.length === 0) return { drafted: [], pruned: [] };
  const drafts: VersionDraft[] = files.map(({ path, parent }) => ({
    record,
    op,
    fileId: parent.fileId ?? newFileId(),
    path,
    operation: 'deleted',
    content: null,
    evidence: parent.chain,
  }));
  const drafted = await writeVersions(space, drafts, call);
  // What retention removes goes in the same DeleteObjects as the files.
  const pruned: string[] = [];
  drafted.forEach((entry, index) => {
    const plan = prunePlan(
      [{ seq: entry.seq, at: entry.version.at }],
      parseChain(files[index]!.parent.chain),
      record,
      entry.version.at,
    );
    for (const seq of plan.pruned) pruned.push(versionKey(space.keys, seq));
  });
  return { drafted, pruned };
}
