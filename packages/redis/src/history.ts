// The history methods of the Redis driver: each is one script on the namespace's keys (see
// history-scripts.ts), one round trip, but for the few replies that need a second look (a restore
// whose expected hash is not known on the server yet; a tree or a listing larger than one call may
// gather).
import { randomBytes } from 'node:crypto';
import {
  type DriverCallOptions,
  type DriverChangeOptions,
  type DriverPath,
  type DriverPointInTime,
  type DriverRestoreOptions,
  type DriverTreeEntry,
  type DriverTreeOptions,
  type DriverVersion,
  type DriverVersionPage,
  type DriverVersionQuery,
  type DriverVersionWithContent,
  MemoryToolError,
} from '@memdir/core';
import {
  checkImportedVersions,
  checkTime,
  refuseConflict,
  refuseNotFound,
  refuseTooLarge,
  sequenceVersionId,
  versionSequence,
} from '@memdir/core/driver';
import { unexpectedReply } from './errors.js';
import {
  CONTENT_BUDGET,
  HISTORY_SCAN_LIMIT,
  IMPORT,
  LIST_VERSIONS,
  READ_VERSION,
  REDACT,
  RESTORE,
  TREE_AT,
} from './history-scripts.js';
import { fromStored, toStored } from './layout.js';
import {
  actorCode,
  commandCode,
  contentHash,
  decodeVersion,
  historyBlock,
  operationCode,
  sequenceOf,
  storedHash,
  VERSION_FIELDS,
  withoutContent,
} from './records.js';
import type { Script } from './scripts.js';

/** What the history methods need of a namespace's driver. */
export interface NamespaceCalls {
  /** Runs a script on every key of the namespace (no fence). */
  read(
    script: Script,
    args: string[],
    call: DriverCallOptions | undefined,
    change: boolean,
  ): Promise<unknown>;
  /** Runs a change script with its fence (see `change` in calls.ts). */
  change(script: Script, args: (fence: string) => string[], call: DriverChangeOptions): Promise<unknown[]>;
  /** The namespace's registry members (registry.ts). */
  readonly registration: string;
  /** Turns a refusal reply into its error. */
  refusal(reply: unknown[], path: DriverPath): Error;
}

/** How many versions one import script writes, at most (and about how many bytes of contents). */
const IMPORT_BATCH = 200;
const IMPORT_BATCH_BYTES = 4 * 1024 * 1024;

/** The sequence number of a version id, or undefined when it is no id of this store. */
function knownSequence(id: string): number | undefined {
  const seq = versionSequence(id);
  return Number.isSafeInteger(seq) && seq >= 1 ? seq : undefined;
}

function decodeAll(fields: readonly unknown[], offset: number): DriverVersion[] {
  const versions: DriverVersion[] = [];
  for (let at = offset; at + VERSION_FIELDS <= fields.length; at += VERSION_FIELDS) {
    versions.push(withoutContent(decodeVersion(fields, at).version));
  }
  return versions;
}

export async function listVersions(
  calls: NamespaceCalls,
  query: DriverVersionQuery,
  options?: DriverCallOptions,
): Promise<DriverVersionPage> {
  const args = [
    query.path === undefined || query.path === '' ? '' : toStored(query.path),
    query.fileId ?? '',
    query.actor ?? '',
    query.since === undefined ? '' : String(Math.floor(query.since)),
    query.until === undefined ? '' : String(Math.floor(query.until)),
    query.operations === undefined ? '' : query.operations.map(operationCode).join(''),
    query.cursor === undefined ? '' : String(sequenceOf(query.cursor, 'cursor')),
    String(Math.max(1, Math.min(1_000, Math.floor(query.limit)))),
    String(HISTORY_SCAN_LIMIT),
    String(CONTENT_BUDGET),
  ];
  // No operation matches an empty list.
  if (query.operations !== undefined && query.operations.length === 0) return { versions: [], next: null };
  const reply = (await calls.read(LIST_VERSIONS, args, options, false)) as unknown[];
  const next = reply[0];
  return {
    versions: decodeAll(reply, 1),
    next: next === null || next === undefined ? null : sequenceVersionId(Number(next)),
  };
}

export async function readVersion(
  calls: NamespaceCalls,
  id: string,
  options?: DriverCallOptions,
): Promise<DriverVersionWithContent | null> {
  const seq = knownSequence(id);
  if (seq === undefined) return null;
  const reply = (await calls.read(READ_VERSION, [String(seq)], options, false)) as unknown[] | null;
  if (reply === null) return null;
  return decodeVersion(reply).version;
}

export async function restoreVersion(
  calls: NamespaceCalls,
  id: string,
  options: DriverRestoreOptions,
): Promise<DriverVersion> {
  const seq = knownSequence(id);
  const to = options.to === undefined ? '' : toStored(options.to);
  if (seq === undefined) throw refuseNotFound(options.to ?? '');
  const { expectSha256 } = options;
  let expect = expectSha256 === undefined ? '' : expectSha256 === null ? 'null' : 'sha';
  let expected = typeof expectSha256 === 'string' ? storedHash(expectSha256) : '';
  const quota = options.quota;
  const block = historyBlock(options.record, calls.registration);
  for (let attempt = 0; ; attempt++) {
    const reply = await calls.change(
      RESTORE,
      (fence) => [
        String(seq),
        to,
        expect,
        expected,
        String(options.maxFileBytes),
        options.op,
        fence,
        quota?.maxBytes === undefined ? '' : String(quota.maxBytes),
        quota?.maxFiles === undefined ? '' : String(quota.maxFiles),
        ...block,
      ],
      options,
    );
    if (reply[0] === 'ok') return withoutContent(decodeVersion(reply, 1).version);
    const [, code, subject, content] = reply;
    if (code === 'NEEDSHA') {
      // The file there was last changed by an edit on the server, whose hash only this side can
      // compute: compare here, then restore on the condition that the content is still that one.
      if (attempt > 0 || typeof content !== 'string') throw unexpectedReply('NEEDSHA twice');
      if (contentHash(content) !== expected) throw refuseConflict(options.to ?? '');
      expect = 'key';
      expected = String(subject);
      checkTime(options);
      continue;
    }
    if (code === 'TOO_LARGE') throw refuseTooLarge(fromStored(String(subject)));
    if (code === 'GONE') {
      throw new MemoryToolError(
        'BACKEND',
        'the restore was applied, but its version was pruned before its answer could be read again',
      );
    }
    throw calls.refusal(reply, options.to ?? ('' as DriverPath));
  }
}

export async function redactVersion(
  calls: NamespaceCalls,
  id: string,
  options: DriverChangeOptions,
): Promise<DriverVersion | null> {
  const seq = knownSequence(id);
  if (seq === undefined) return null;
  const reply = await calls.change(REDACT, (fence) => [String(seq), fence], options);
  if (reply === null) return null;
  if (reply[0] === 'E') throw calls.refusal(reply, '' as DriverPath);
  return withoutContent(decodeVersion(reply).version);
}

export async function treeAt(
  calls: NamespaceCalls,
  at: DriverPointInTime,
  options?: DriverTreeOptions,
): Promise<readonly DriverTreeEntry[]> {
  let mode: string;
  let value: string;
  if ('version' in at) {
    const seq = knownSequence(at.version);
    if (seq === undefined) return [];
    mode = 'v';
    value = String(seq);
  } else {
    mode = 't';
    value = String(Math.floor(at.time));
  }
  const path = options?.path === undefined || options.path === '' ? '' : toStored(options.path);
  const files = new Map<string, DriverTreeEntry>();
  let cursor = '';
  for (;;) {
    const args = [mode, value, path, cursor, String(HISTORY_SCAN_LIMIT), String(CONTENT_BUDGET)];
    const reply = (await calls.read(TREE_AT, args, options, false)) as unknown[];
    for (let index = 1; index + 6 <= reply.length; index += 6) {
      const fileId = String(reply[index + 1]);
      if (files.has(fileId)) continue;
      const stored = String(reply[index + 4]);
      const content = reply[index + 5];
      let sha256: string;
      if (stored === '') {
        if (typeof content !== 'string') throw unexpectedReply('a tree entry without its hash or content');
        sha256 = Buffer.from(contentHash(content), 'base64').toString('hex');
      } else {
        sha256 = Buffer.from(stored, 'base64').toString('hex');
      }
      files.set(fileId, {
        path: fromStored(String(reply[index + 2])) as DriverPath,
        version: sequenceVersionId(Number(reply[index])),
        fileId,
        size: Number(reply[index + 3]),
        sha256,
      });
    }
    const next = reply[0];
    if (next === null || next === undefined) break;
    cursor = String(next);
    if (options) checkTime(options);
  }
  return [...files.values()];
}

function nullable(value: string | number | null): string {
  return value === null ? '' : `=${value}`;
}

/** The 16 import fields of a version (see IMPORT). */
function importFields(version: DriverVersionWithContent, seq: number): string[] {
  return [
    String(seq),
    version.fileId,
    nullable(version.path === null ? null : toStored(version.path)),
    nullable(version.previousPath === null ? null : toStored(version.previousPath)),
    String(operationCode(version.operation)),
    String(Math.floor(version.at)),
    nullable(version.actor ? actorCode(version.actor.type) : null),
    nullable(version.actor ? version.actor.id : null),
    String(commandCode(version.command)),
    version.operationId,
    nullable(version.toolUseId),
    nullable(version.restoredFrom === null ? null : sequenceOf(version.restoredFrom, 'restoredFrom')),
    nullable(version.redactedAt),
    nullable(version.sha256 === null ? null : storedHash(version.sha256)),
    nullable(version.size),
    nullable(version.content),
  ];
}

export async function importVersions(
  calls: NamespaceCalls,
  versions: readonly DriverVersionWithContent[],
  options: DriverCallOptions,
): Promise<void> {
  const sequences = checkImportedVersions(versions);
  let start = 0;
  while (start < versions.length) {
    let end = start;
    let bytes = 0;
    while (
      end < versions.length &&
      end - start < IMPORT_BATCH &&
      (end === start || bytes < IMPORT_BATCH_BYTES)
    ) {
      bytes += versions[end]!.content?.length ?? 0;
      end++;
    }
    const fields: string[] = [];
    for (let index = start; index < end; index++)
      fields.push(...importFields(versions[index]!, sequences[index]!));
    // Each batch has an operation id of its own: a batch the client sends twice is applied once.
    const op = randomBytes(16).toString('base64url');
    const args = [op, String(end - start), calls.registration, ...fields];
    const reply = (await calls.read(IMPORT, args, options, true)) as unknown[];
    if (reply[0] !== 'ok') throw refuseConflict('');
    start = end;
  }
}
