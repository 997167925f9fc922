// The memory endpoints (API.md section 4): create, retrieve, update, list, delete, on the store's
// records (core's identity methods): a listing with view=basic reads no content.
import { isMemoryToolError, type MemdirStore, type MemoryRecord, type RecordPage } from '@memdir/core';
import { type ApiContext, listFrom, reach, readFrom } from './context.js';
import { decodeCursor, encodeCursor } from './cursors.js';
import { ApiError, badRequest, notFound, toApiError } from './errors.js';
import {
  apiPath,
  integerOf,
  iso,
  limitOf,
  memoryPathOf,
  pathPrefixOf,
  sha256Of,
  timeOf,
  toolPath,
  viewOf,
} from './wire.js';

/** Rounds of record pages one listing request reads at most, to avoid an empty page with a cursor. */
const MAX_ROUNDS = 10;

/** The API's object of a memory. */
export function memoryObject(storeId: string, record: MemoryRecord, full: boolean) {
  return {
    id: record.id,
    type: 'memory' as const,
    memory_store_id: storeId,
    path: apiPath(record.path),
    content: full ? (record.content ?? null) : null,
    content_sha256: record.sha256,
    content_size_bytes: record.size,
    memory_version_id: record.versionId ?? '',
    created_at: iso(record.createdAt),
    updated_at: iso(record.changedAt),
  };
}

function archived(reached: { entry: { archived_at: string | null } }): void {
  if (reached.entry.archived_at !== null) {
    throw badRequest('The memory store is archived: its memories cannot be created or updated.', 'READ_ONLY');
  }
}

/** The memory in the way of `path` (there, above it or beneath it), for a 409. */
async function pathConflict(store: MemdirStore, path: string): Promise<ApiError> {
  let found: MemoryRecord | null = await store.records.get(toolPath(path));
  const segments = path.slice(1).split('/');
  for (let depth = 1; found === null && depth < segments.length; depth++) {
    found = await store.records.get(toolPath(`/${segments.slice(0, depth).join('/')}`));
  }
  if (found === null) {
    const below = await store.records.list({ path: toolPath(path), limit: 1 });
    const first = below.items.find((item) => item.kind === 'file');
    found = first === undefined ? null : (first as MemoryRecord);
  }
  const conflictingPath = found === null ? path : apiPath(found.path);
  return new ApiError(
    409,
    'memory_path_conflict_error',
    `The path ${conflictingPath} is in the way of ${path}.`,
    {
      fields: { conflicting_memory_id: found?.id ?? '', conflicting_path: conflictingPath },
    },
  );
}

async function refusePath(error: unknown, store: MemdirStore, path: string): Promise<never> {
  if (isMemoryToolError(error) && (error.code === 'ALREADY_EXISTS' || error.code === 'PATH_CONFLICT')) {
    throw await pathConflict(store, path);
  }
  throw toApiError(error);
}

export async function createMemory(
  context: ApiContext,
  storeId: string,
  body: Record<string, unknown>,
  query: URLSearchParams,
) {
  const view = viewOf(query, 'basic');
  const reached = await reach(context, storeId, true);
  archived(reached);
  const path = memoryPathOf(body['path']);
  const content = body['content'];
  if (typeof content !== 'string') throw badRequest('content must be a string ("" for an empty memory).');
  let record: MemoryRecord;
  try {
    record = await reached.store.records.create(toolPath(path), content, { actor: context.actor });
  } catch (error) {
    return refusePath(error, reached.store, path);
  }
  return memoryObject(storeId, { ...record, content }, view === 'full');
}

export async function retrieveMemory(
  context: ApiContext,
  storeId: string,
  id: string,
  query: URLSearchParams,
) {
  const full = viewOf(query, 'full') === 'full';
  const record = await readFrom(context, storeId, (store) => store.records.locate(id, { content: full }));
  if (record === null)
    throw notFound(`No memory has the id ${JSON.stringify(id.slice(0, 100))} in this store.`);
  return memoryObject(storeId, record, full);
}

export async function updateMemory(
  context: ApiContext,
  storeId: string,
  id: string,
  body: Record<string, unknown>,
  query: URLSearchParams,
) {
  const full = viewOf(query, 'basic') === 'full';
  const reached = await reach(context, storeId, true);
  archived(reached);
  const content = body['content'] ?? undefined;
  const path = body['path'] === undefined || body['path'] === null ? undefined : memoryPathOf(body['path']);
  if (content !== undefined && typeof content !== 'string') throw badRequest('content must be a string.');
  if (content === undefined && path === undefined) throw badRequest('Give content, path, or both.');
  let expectSha256: string | undefined;
  const precondition = body['precondition'];
  if (precondition !== undefined && precondition !== null) {
    const fields = precondition as Record<string, unknown>;
    if (typeof precondition !== 'object' || fields['type'] !== 'content_sha256') {
      throw badRequest('precondition must be {"type":"content_sha256","content_sha256":HASH}.');
    }
    for (const key of Object.keys(fields)) {
      if (key !== 'type' && key !== 'content_sha256')
        throw badRequest(`Unknown field precondition.${key.slice(0, 64)}.`);
    }
    expectSha256 = sha256Of(fields['content_sha256'], 'precondition.content_sha256');
  }
  let record: MemoryRecord;
  try {
    const update = await reached.store.records.update(
      id,
      { content, path: path === undefined ? undefined : toolPath(path) },
      { expectSha256, actor: context.actor },
    );
    record = update.record;
  } catch (error) {
    if (isMemoryToolError(error) && error.code === 'NOT_FOUND') {
      throw notFound(`No memory has the id ${JSON.stringify(id.slice(0, 100))} in this store.`);
    }
    return refusePath(error, reached.store, path ?? '/');
  }
  if (full) record = (await reached.store.records.locate(record.id, { content: true })) ?? record;
  return memoryObject(storeId, record, full);
}

export async function deleteMemory(context: ApiContext, storeId: string, id: string, query: URLSearchParams) {
  const expected = query.get('expected_content_sha256');
  const expectSha256 =
    expected === null || expected === '' ? undefined : sha256Of(expected, 'expected_content_sha256');
  const { store } = await reach(context, storeId, true);
  let removed: MemoryRecord | null;
  try {
    removed = await store.records.remove(id, { expectSha256, actor: context.actor });
  } catch (error) {
    throw toApiError(error);
  }
  if (removed === null)
    throw notFound(`No memory has the id ${JSON.stringify(id.slice(0, 100))} in this store.`);
  return { id, type: 'memory_deleted' as const };
}

/** The records a listing reads: the store's of the present, or those of a past point (`memdir_as_of`). */
type ListedRecords = Pick<MemdirStore['records'], 'get' | 'locate' | 'list'>;

/** A point of `memdir_as_of`: a time (ms) or a version id, as the cursor binds it. */
type AsOfPoint = { time: number } | { version: string };

const VERSION_ID = /^memver_[A-Za-z0-9_-]{1,128}$/;

/** The point `memdir_as_of` names, checked for its form (a version id or an RFC 3339 time). */
function asOfPointOf(query: URLSearchParams): AsOfPoint | undefined {
  const value = query.get('memdir_as_of');
  if (value === null || value === '') return undefined;
  if (VERSION_ID.test(value)) return { version: value };
  const malformed = () =>
    badRequest(
      'memdir_as_of must be an RFC 3339 time (such as 2026-01-31T12:00:00Z) or a version id (memver_...).',
    );
  if (value.length > 64) throw malformed();
  try {
    const time = timeOf(query, 'memdir_as_of');
    if (time !== undefined) return { time };
  } catch {}
  throw malformed();
}

/**
 * The records of store `storeId` as of `point`: refused (400) for a time in the future, a time before
 * the store was created, and a version the store does not hold (unknown, another store's, pruned).
 */
async function recordsAsOf(context: ApiContext, storeId: string, point: AsOfPoint): Promise<ListedRecords> {
  const { entry, store } = await reach(context, storeId, false);
  if ('time' in point) {
    if (point.time > Date.now()) {
      throw badRequest('memdir_as_of is in the future: list without it for the memories as they are now.');
    }
    if (point.time < Date.parse(entry.created_at)) {
      throw badRequest(
        `memdir_as_of is before the store was created (${entry.created_at}): give a later time.`,
      );
    }
  }
  try {
    const past = await store.asOf('time' in point ? point.time : point.version);
    return past.records;
  } catch (error) {
    if (isMemoryToolError(error) && error.code === 'NOT_FOUND' && 'version' in point) {
      throw badRequest(
        `memdir_as_of names no version of this store: ${point.version} is unknown here or was pruned.`,
      );
    }
    throw toApiError(error);
  }
}

export async function listMemories(context: ApiContext, storeId: string, query: URLSearchParams) {
  const view = viewOf(query, 'basic');
  const prefix = pathPrefixOf(query.get('path_prefix'));
  const depth = integerOf(query, 'depth', 0);
  if (depth > 1024) throw badRequest('depth must be at most 1024.');
  const limit = limitOf(query, view === 'full' ? 20 : 100);
  const asOf = asOfPointOf(query);
  // A cursor is bound to the point too; a listing of the present keeps the cursors it always had.
  const filters = asOf === undefined ? { prefix, depth } : { prefix, depth, asOf };
  let cursor = decodeCursor('memories', filters, query.get('page') ?? undefined);
  const under = toolPath(prefix === '/' ? '/' : prefix.slice(0, -1));
  // `first`: the first page, when the caller reads it another way (beside the registry entry).
  const list = async (records: ListedRecords, past: boolean, first?: RecordPage) => {
    const data: unknown[] = [];
    let next: string | null = null;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      let page: RecordPage;
      try {
        page =
          round === 0 && first !== undefined
            ? first
            : await records.list({ path: under, depth, cursor, limit: limit - data.length });
      } catch (error) {
        throw toApiError(error);
      }
      for (const item of page.items) {
        if (item.kind === 'folder') {
          data.push({ type: 'memory_prefix', path: `${apiPath(item.path)}/` });
        } else if (view === 'full') {
          // The past does not move: its file is read by path (one file of the tree), the present's by id.
          const record = past
            ? await records.get(item.path, { content: true })
            : await records.locate(item.id, { content: true });
          if (record !== null) data.push(memoryObject(storeId, record, true));
        } else {
          data.push(memoryObject(storeId, item, false));
        }
      }
      next = page.next;
      if (next === null || data.length > 0) break;
      cursor = next;
    }
    return { data, next_page: next === null ? null : encodeCursor('memories', filters, next) };
  };
  if (asOf !== undefined) return list(await recordsAsOf(context, storeId, asOf), true);
  // The first page is read beside the store's registry entry (one round trip where the driver
  // allows); once it is there the store exists, and the rest reads the store alone.
  const { page, store } = await listFrom(context, storeId, { path: under, depth, cursor, limit });
  return list(store.records, false, page);
}
