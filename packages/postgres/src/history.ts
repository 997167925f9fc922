// The history methods of the driver (layout 3): each one statement or one function call, so one
// round trip. Versions are rows of the versions table; an id is the kit's sequenceVersionId of the
// row's seq.
import type {
  Actor,
  ChangeRecord,
  DriverCallOptions,
  DriverPointInTime,
  DriverRestoreOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
} from '@memdir/core';
import {
  asDriverPath,
  backendFailure,
  checkImportedVersions,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
  refuseTooLarge,
  sequenceVersionId,
  versionSequence,
} from '@memdir/core/driver';
import type { Row, Space } from './backend.js';
import { VERSION_SCAN_LIMIT } from './history-statements.js';
import { lockWait, subtree } from './sql.js';

/** A change's record as the change functions take it (p_record jsonb), or null with history off. */
export function recordParam(record: ChangeRecord | undefined): string | null {
  if (!record) return null;
  return JSON.stringify({
    actor: record.actor,
    command: record.command,
    toolUseId: record.toolUseId,
    keepVersions: record.keepVersions,
    keepDays: record.keepDays,
  });
}

function numberOrNull(value: string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A version from its columns (VERSION_COLUMNS of history-statements.ts), starting at `from`. */
function versionOf(row: Row, from = 0): DriverVersion {
  const at = (index: number) => row[from + index] ?? null;
  const actorType = at(8);
  const path = at(2);
  const previous = at(3);
  const restored = at(13);
  return {
    id: sequenceVersionId(Number(at(0))),
    fileId: at(1)!,
    path: path === null ? null : asDriverPath(path),
    previousPath: previous === null ? null : asDriverPath(previous),
    operation: at(4) as DriverVersion['operation'],
    sha256: at(5),
    size: numberOrNull(at(6)),
    at: Number(at(7)),
    actor: actorType === null ? null : ({ type: actorType, id: at(9) ?? '' } as Actor),
    command: at(10) as DriverVersion['command'],
    operationId: at(11)!,
    toolUseId: at(12),
    restoredFrom: restored === null ? null : sequenceVersionId(Number(restored)),
    redactedAt: numberOrNull(at(14)),
  };
}

/** The seq of a version id, or undefined for an id this store never made. */
function seqOf(id: string): number | undefined {
  const sequence = versionSequence(id);
  return Number.isSafeInteger(sequence) && sequence > 0 ? sequence : undefined;
}

export async function listVersions(
  { backend, ns }: Space,
  query: DriverVersionQuery,
  options?: DriverCallOptions,
): Promise<DriverVersionPage> {
  const sql = backend.sql.history;
  const [text, key] =
    query.fileId !== undefined
      ? [sql.listFileVersions, query.fileId]
      : query.actor !== undefined
        ? [sql.listActorVersions, query.actor]
        : [sql.listVersions, null];
  const cursor = query.cursor === undefined ? null : versionSequence(query.cursor);
  if (Number.isNaN(cursor)) return { versions: [], next: null };
  const path = query.path === undefined || query.path === '' ? null : query.path;
  const [lower, upper] = path === null ? [null, null] : subtree(path);
  const rows = await backend.run(
    {
      text,
      values: [
        ns,
        cursor,
        VERSION_SCAN_LIMIT,
        key,
        path,
        lower,
        upper,
        query.since ?? null,
        query.until ?? null,
        query.operations ? [...query.operations] : null,
        query.limit + 1,
      ],
    },
    false,
    options,
  );
  const versions = rows.filter((row) => row[0] === 'v').map((row) => versionOf(row, 1));
  versions.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const stats = rows.find((row) => row[0] === 's');
  if (versions.length > query.limit) {
    versions.length = query.limit;
    return { versions, next: versions[versions.length - 1]!.id };
  }
  // Every version below the cursor was looked at, or the scan stopped at its limit: then the
  // next page starts below the lowest one it looked at.
  const scanned = Number(stats?.[1] ?? 0);
  const lowest = stats?.[2];
  return {
    versions,
    next: scanned >= VERSION_SCAN_LIMIT && lowest ? sequenceVersionId(Number(lowest)) : null,
  };
}

export async function readVersion(
  { backend, ns }: Space,
  id: string,
  options?: DriverCallOptions,
): Promise<DriverVersionWithContent | null> {
  const seq = seqOf(id);
  if (seq === undefined) return null;
  const [row] = await backend.run(
    { text: backend.sql.history.readVersion, values: [ns, seq], binary: true },
    false,
    options,
  );
  if (!row) return null;
  return { ...versionOf(row), content: row[15] ?? null };
}

export async function redactVersion(
  { backend, ns }: Space,
  id: string,
  options?: DriverCallOptions,
): Promise<DriverVersion | null> {
  const seq = seqOf(id);
  if (seq === undefined) return null;
  const [row] = await backend.run({ text: backend.sql.history.redact, values: [ns, seq] }, true, options);
  return row ? versionOf(row) : null;
}

export async function treeAt(
  { backend, ns }: Space,
  at: DriverPointInTime,
  options?: DriverTreeOptions,
): Promise<readonly DriverTreeEntry[]> {
  const path = options?.path === undefined || options.path === '' ? null : options.path;
  const [lower, upper] = path === null ? [null, null] : subtree(path);
  let time: number | null = null;
  let seq: number | null = null;
  if ('time' in at) time = at.time;
  else {
    seq = versionSequence(at.version);
    // An id of another form: nothing at or before it is known.
    if (Number.isNaN(seq)) return [];
  }
  const rows = await backend.run(
    { text: backend.sql.history.treeAt, values: [ns, time, seq, path, lower, upper] },
    false,
    options,
  );
  return rows.map((row) => ({
    path: asDriverPath(row[0]!),
    version: sequenceVersionId(Number(row[1])),
    fileId: row[2]!,
    size: Number(row[3]),
    sha256: row[4]!,
  }));
}

/** `qb{total}/{max}` or `qf{count}/{max}` (write_v3's quota answers, without the `q`). */
function breachOf(answer: string) {
  const [value, max] = answer.slice(1).split('/').map(Number) as [number, number];
  return answer[0] === 'b'
    ? { kind: 'bytes' as const, total: value, max }
    : { kind: 'files' as const, count: value, max };
}

export async function restoreVersion(
  { backend, ns }: Space,
  id: string,
  options: DriverRestoreOptions,
): Promise<DriverVersion> {
  if (!options.record) throw new TypeError('restoreVersion: options.record is required (history on)');
  const seq = seqOf(id);
  const where = options.to ?? '';
  if (seq === undefined) throw refuseNotFound(where);
  const expected = options.expectSha256;
  const [row] = await backend.run(
    {
      text: backend.sql.history.restore,
      values: [
        ns,
        seq,
        options.to ?? null,
        expected !== undefined,
        expected ?? null,
        options.maxFileBytes,
        options.quota?.maxBytes ?? null,
        options.quota?.maxFiles ?? null,
        options.op,
        lockWait(options),
        recordParam(options.record),
      ],
    },
    true,
    options,
  );
  const outcome = row?.[0] ?? '';
  if (outcome.startsWith('v')) {
    const fields = outcome.slice(1).split('\t');
    const [newSeq, time, fileId, size, sha256] = fields;
    const path = fields.slice(5).join('\t');
    const { record } = options;
    return {
      id: sequenceVersionId(Number(newSeq)),
      fileId: fileId!,
      path: asDriverPath(path),
      previousPath: null,
      operation: 'restored',
      sha256: sha256!,
      size: Number(size),
      at: Number(time),
      actor: record.actor,
      command: record.command,
      operationId: options.op,
      toolUseId: record.toolUseId,
      restoredFrom: sequenceVersionId(seq),
      redactedAt: null,
    };
  }
  if (outcome === 'n') throw refuseNotFound(where);
  if (outcome.startsWith('p')) throw refusePathConflict(outcome.slice(1));
  // The other refusals name the path written to (the version's own when `to` is not given).
  if (outcome.startsWith('c')) throw refuseConflict(outcome.slice(1));
  if (outcome.startsWith('t')) throw refuseTooLarge(outcome.slice(1));
  if (outcome.startsWith('q')) {
    const tab = outcome.indexOf('\t');
    throw refuseQuota(outcome.slice(tab + 1), breachOf(outcome.slice(1, tab)));
  }
  throw backendFailure({ detail: 'PostgreSQL gave an answer memdir does not know', reason: 'unexpected' });
}

export async function importVersions(
  { backend, ns }: Space,
  versions: readonly DriverVersionWithContent[],
  options: DriverCallOptions,
): Promise<void> {
  checkImportedVersions(versions);
  if (versions.length === 0) return;
  const meta = versions.map((version, index) => ({
    seq: versionSequence(version.id),
    file_id: version.fileId,
    path: version.path,
    previous_path: version.previousPath,
    operation: version.operation,
    sha256: version.sha256,
    size: version.size,
    at: version.at,
    actor_type: version.actor?.type ?? null,
    actor_id: version.actor?.id ?? null,
    command: version.command,
    op: version.operationId,
    tool_use_id: version.toolUseId,
    restored_from: version.restoredFrom === null ? null : versionSequence(version.restoredFrom),
    redacted_at: version.redactedAt,
    i: index + 1,
  }));
  const contents = versions.map((version) =>
    version.content === null ? null : Buffer.from(version.content, 'utf8'),
  );
  const [row] = await backend.run(
    { text: backend.sql.history.importVersions, values: [ns, JSON.stringify(meta), contents] },
    true,
    options,
  );
  if (row?.[0] === 'c') throw refuseConflict('');
  if (row?.[0] !== 't') {
    throw backendFailure({ detail: 'PostgreSQL gave an answer memdir does not know', reason: 'unexpected' });
  }
}
