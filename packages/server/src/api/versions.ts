// The version endpoints (API.md section 5): list, retrieve, redact, on the store's history.
import type { Actor, MemoryVersion, VersionOperation } from '@memdir/core';
import { type ApiContext, reach } from './context.js';
import { decodeCursor, encodeCursor } from './cursors.js';
import { badRequest, notFound, toApiError } from './errors.js';
import { apiPath, limitOf, sha256Of, stringOf, timeOf, viewOf } from './wire.js';

const VERSION_ID = /^memver_\d{1,32}$/;
const MAX_ROUNDS = 10;

/** The hosted API's word for memdir's operations: renamed and restored are `modified`. */
const OPERATIONS: Record<string, readonly VersionOperation[]> = {
  created: ['created'],
  modified: ['modified', 'renamed', 'restored'],
  deleted: ['deleted'],
};

/** The API's actor of a memdir actor: a token's (or its memory tool's) is an api actor. */
export function actorObject(actor: Actor | null) {
  if (actor === null) return undefined;
  switch (actor.type) {
    case 'session':
      return { type: 'session_actor' as const, session_id: actor.id };
    case 'service':
      return { type: 'service_account_actor' as const, service_account_id: actor.id };
    default:
      return { type: 'api_actor' as const, api_key_id: actor.id };
  }
}

/** The API's object of a version (`content` only when given: view=full). */
export function versionObject(
  storeId: string,
  version: MemoryVersion,
  content: string | null,
  redactedBy?: Actor,
) {
  const operation =
    version.operation === 'created' || version.operation === 'deleted' ? version.operation : 'modified';
  const gone = version.operation === 'deleted' || version.redactedAt !== null;
  const createdBy = actorObject(version.actor);
  const redacted = redactedBy === undefined ? undefined : actorObject(redactedBy);
  return {
    id: version.id,
    type: 'memory_version' as const,
    memory_store_id: storeId,
    memory_id: version.fileId,
    operation,
    memdir_operation: version.operation,
    path: version.path === null ? null : apiPath(version.path),
    content: gone ? null : content,
    content_sha256: gone ? null : version.sha256,
    content_size_bytes: gone ? null : version.size,
    created_at: version.createdAt,
    ...(createdBy === undefined ? {} : { created_by: createdBy }),
    redacted_at: version.redactedAt,
    ...(redacted === undefined ? {} : { redacted_by: redacted }),
  };
}

/** Who redacted `version` (looked up only for a redacted one), when the registry keeps it. */
async function redactor(
  context: ApiContext,
  storeId: string,
  version: MemoryVersion,
): Promise<Actor | undefined> {
  if (version.redactedAt === null) return undefined;
  return (await context.registry.redactedBy(storeId, version.id)) ?? undefined;
}

function versionId(id: string): string {
  if (!VERSION_ID.test(id))
    throw notFound(`No memory version has the id ${JSON.stringify(id.slice(0, 100))}.`);
  return id;
}

export async function retrieveVersion(
  context: ApiContext,
  storeId: string,
  id: string,
  query: URLSearchParams,
) {
  const full = viewOf(query, 'full') === 'full';
  const { store } = await reach(context, storeId, false);
  try {
    const version = await store.version(versionId(id));
    return versionObject(
      storeId,
      version,
      full ? version.content : null,
      await redactor(context, storeId, version),
    );
  } catch (error) {
    throw toApiError(error);
  }
}

export async function redactVersion(context: ApiContext, storeId: string, id: string) {
  const { store } = await reach(context, storeId, true);
  try {
    const version = await store.redact(versionId(id));
    // Kept before the answer, so that whoever reads the version afterwards sees who redacted it.
    const by = await context.registry.recordRedaction(storeId, version.id, context.actor);
    return versionObject(storeId, version, null, by);
  } catch (error) {
    throw toApiError(error);
  }
}

/**
 * memdir's restore (`POST .../memory_versions/{ver}/memdir_restore`): the version's content written
 * back at its path as a new version, under an optional `precondition` on what is there now.
 */
export async function restoreVersion(
  context: ApiContext,
  storeId: string,
  id: string,
  body: Record<string, unknown>,
) {
  const reached = await reach(context, storeId, true);
  if (reached.entry.archived_at !== null) {
    throw badRequest('The memory store is archived: its memories cannot be created or updated.', 'READ_ONLY');
  }
  let expectSha256: string | undefined;
  const precondition = body['precondition'];
  if (precondition !== undefined && precondition !== null) {
    const fields = precondition as Record<string, unknown>;
    if (
      typeof precondition !== 'object' ||
      fields['type'] !== 'content_sha256' ||
      Object.keys(fields).length !== 2
    ) {
      throw badRequest('precondition must be {"type":"content_sha256","content_sha256":HASH}.');
    }
    expectSha256 = sha256Of(fields['content_sha256'], 'precondition.content_sha256');
  }
  try {
    const version = await reached.store.restore(versionId(id), { expectSha256, actor: context.actor });
    return versionObject(storeId, version, null);
  } catch (error) {
    throw toApiError(error);
  }
}

export async function listVersions(context: ApiContext, storeId: string, query: URLSearchParams) {
  const full = viewOf(query, 'basic') === 'full';
  const limit = limitOf(query, full ? 20 : 100);
  const memoryId = stringOf(query, 'memory_id');
  const operation = stringOf(query, 'operation');
  if (operation !== undefined && OPERATIONS[operation] === undefined) {
    throw badRequest('operation must be created, modified or deleted.');
  }
  const actors: [string, Actor['type'][]][] = [
    ['api_key_id', ['api', 'user']],
    ['session_id', ['session']],
    ['service_account_id', ['service']],
  ];
  const named = actors.filter(([name]) => stringOf(query, name) !== undefined);
  if (named.length > 1)
    throw badRequest('Give at most one of api_key_id, session_id and service_account_id.');
  const actorFilter = named[0] && { id: stringOf(query, named[0][0])!, types: named[0][1] };
  const since = timeOf(query, 'created_at[gte]');
  const until = timeOf(query, 'created_at[lte]');
  const filters = { memoryId, operation, actorFilter, since, until };
  let cursor = decodeCursor('versions', filters, query.get('page') ?? undefined);
  const { store } = await reach(context, storeId, false);
  if (memoryId !== undefined && !/^mem_[A-Za-z0-9_-]{1,200}$/.test(memoryId))
    return { data: [], next_page: null };
  const data: unknown[] = [];
  let next: string | null = null;
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const page = await store.history({
        fileId: memoryId,
        operations: operation === undefined ? undefined : OPERATIONS[operation],
        actor: actorFilter?.id,
        since,
        until,
        limit: limit - data.length,
        cursor,
      });
      for (const version of page.versions) {
        if (actorFilter !== undefined && !actorFilter.types.includes(version.actor?.type ?? 'api')) continue;
        const content = full && version.sha256 !== null ? (await store.version(version.id)).content : null;
        data.push(versionObject(storeId, version, content, await redactor(context, storeId, version)));
      }
      next = page.next;
      if (next === null || data.length > 0) break;
      cursor = next;
    }
  } catch (error) {
    throw toApiError(error);
  }
  return { data, next_page: next === null ? null : encodeCursor('versions', filters, next) };
}
