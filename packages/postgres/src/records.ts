// Identity (layout 4, identity-sql.ts): a file's record by path or by id, a page of records, and a
// change by id, each one function call (one round trip, one transaction).
import type {
  DriverCallOptions,
  DriverFolderMarker,
  DriverPath,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverRecordsBeside,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
} from '@memdir/core';
import {
  ancestors,
  backendFailure,
  isFileId,
  recordQueryParts,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
  refuseTooLarge,
  sequenceVersionId,
} from '@memdir/core/driver';
import type { Row, Space } from './backend.js';
import { recordParam } from './history.js';
import { lockWait } from './sql.js';

/**
 * A record from its text (identity-sql.ts `recordText`): file id, hex SHA-256, size, created,
 * changed, version seq ('' for none), the path last.
 */
export function recordOf(text: string): DriverRecord {
  const fields = text.split('\t');
  const [fileId, sha256, size, created, changed, seq] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    kind: 'file',
    path: fields.slice(6).join('\t') as DriverPath,
    fileId,
    sha256,
    size: Number(size),
    createdAt: Number(created),
    changedAt: Number(changed),
    versionId: seq === '' ? null : sequenceVersionId(Number(seq)),
  };
}

async function recordBy(
  { backend, ns }: Space,
  path: DriverPath | null,
  fileId: string | null,
  options: DriverRecordOptions | undefined,
): Promise<DriverRecord | null> {
  const content = options?.content === true;
  const [row] = await backend.run(
    { text: backend.sql.record, values: [ns, path, fileId, content], ...(content ? { binary: true } : {}) },
    false,
    options,
  );
  if (!row?.[0]) return null;
  const record = recordOf(row[0]);
  return content ? { ...record, content: row[1] ?? '' } : record;
}

/** `MemoryDriver.readRecord`. */
export function readRecord(
  space: Space,
  path: DriverPath,
  options: DriverRecordOptions | undefined,
): Promise<DriverRecord | null> {
  if (path === '') return Promise.resolve(null);
  return recordBy(space, path, null, options);
}

/** `MemoryDriver.locate`: null without a round trip for an id that cannot be one. */
export function locate(
  space: Space,
  fileId: string,
  options: DriverRecordOptions | undefined,
): Promise<DriverRecord | null> {
  if (!isFileId(fileId)) return Promise.resolve(null);
  return recordBy(space, null, fileId, options);
}

/** The arguments of `list_records_v4` for `query`, and the page's limit. */
function listValues(ns: string, query: DriverRecordQuery): { values: unknown[]; limit: number } {
  const { under, depth, after, limit } = recordQueryParts(query);
  const prefix = under === '' ? '' : `${under}/`;
  // A cursor ending in '/' (a folder's key) skips the folder: paths from its end on.
  const folder = after?.endsWith('/') === true;
  const values = [
    ns,
    prefix,
    under === '' ? null : `${under}0`,
    prefix,
    // The prefix in characters, as the server counts them.
    [...prefix].length,
    depth,
    after !== null && !folder ? after : '',
    after !== null && folder ? `${after.slice(0, -1)}0` : '',
    after,
    limit,
  ];
  return { values, limit };
}

/** The page of `list_records_v4`'s rows (at most `limit` + 1: the last says more follow). */
function pageOf(rows: readonly Row[], limit: number): DriverRecordPage {
  const items: (DriverRecord | DriverFolderMarker)[] = rows.map((row) =>
    row[0] === 'd' ? { kind: 'folder', path: row[1] as DriverPath } : recordOf(row[1] ?? ''),
  );
  if (items.length <= limit) return { items, next: null };
  const page = items.slice(0, limit);
  const last = page[page.length - 1]!;
  return { items: page, next: last.kind === 'folder' ? `${last.path}/` : last.path };
}

/** `MemoryDriver.listRecords`: one call of `list_records_v4` (keyset on the primary key). */
export async function listRecords(
  { backend, ns }: Space,
  query: DriverRecordQuery,
  options: DriverCallOptions | undefined,
): Promise<DriverRecordPage> {
  const { values, limit } = listValues(ns, query);
  const rows = await backend.run({ text: backend.sql.listRecords, values }, false, options);
  return pageOf(rows, limit);
}

/**
 * `MemoryDriver.listRecordsBeside` where the other driver's namespace `besideNs` is in the same
 * schema of the same database: `listRecords` and `record_v4` in one statement, one round trip.
 */
export async function listRecordsBeside(
  { backend, ns }: Space,
  query: DriverRecordQuery,
  beside: { ns: string; path: DriverPath; content: boolean },
  options: DriverCallOptions | undefined,
): Promise<DriverRecordsBeside> {
  const { values, limit } = listValues(ns, query);
  // Binary results: the content's bytea arrives as its UTF-8 bytes (backend.ts), text as itself.
  const rows = await backend.run(
    {
      text: backend.sql.listRecordsBeside,
      values: [...values, beside.ns, beside.path, beside.content],
      binary: true,
    },
    false,
    options,
  );
  const first = rows[0];
  if (first?.[0] !== 'r') return { page: pageOf(rows, limit), record: null };
  const record = recordOf(first[1] ?? '');
  return {
    page: pageOf(rows.slice(1), limit),
    record: beside.content ? { ...record, content: first[2] ?? '' } : record,
  };
}

/** `MemoryDriver.updateById`: one call of `update_by_id_v4`. */
export async function updateById(
  { backend, ns }: Space,
  fileId: string,
  change: DriverUpdateChange,
  options: DriverUpdateByIdOptions,
): Promise<DriverUpdateResult> {
  if (!isFileId(fileId)) throw refuseNotFound('');
  const { quota } = options;
  const [row] = await backend.run(
    {
      text: backend.sql.updateById,
      values: [
        ns,
        fileId,
        change.content === undefined ? null : Buffer.from(change.content, 'utf8'),
        change.path ?? null,
        change.path === undefined ? [] : ancestors(change.path),
        options.expectSha256 ?? null,
        options.maxFileBytes,
        quota?.maxBytes ?? null,
        quota?.maxFiles ?? null,
        options.op,
        lockWait(options),
        recordParam(options.record),
      ],
    },
    true,
    options,
  );
  const outcome = row?.[0] ?? '';
  if (outcome.startsWith('r')) return { record: recordOf(outcome.slice(2)), changed: outcome[1] === '1' };
  if (outcome === 'n') throw refuseNotFound('');
  if (outcome.startsWith('c')) throw refuseConflict(outcome.slice(1));
  if (outcome.startsWith('p')) throw refusePathConflict(outcome.slice(1));
  if (outcome === 'e') throw refuseAlreadyExists(change.path ?? '');
  if (outcome.startsWith('t')) throw refuseTooLarge(outcome.slice(1));
  if (outcome.startsWith('q')) {
    const tab = outcome.indexOf('\t');
    const [value, max] = outcome.slice(2, tab).split('/').map(Number) as [number, number];
    const path = outcome.slice(tab + 1);
    throw refuseQuota(
      path,
      outcome[1] === 'b' ? { kind: 'bytes', total: value, max } : { kind: 'files', count: value, max },
    );
  }
  throw backendFailure({ detail: 'PostgreSQL gave an answer memdir does not know', reason: 'unexpected' });
}
