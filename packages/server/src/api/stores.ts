// The store endpoints (API.md section 3): create, retrieve, update, list, archive, delete.
import { createMemoryAdmin, storeDriver } from '@memdir/core';

import { type ApiContext, entryOf, mayAdminister, mayChange, maySee } from './context.js';
import { decodeCursor, encodeCursor } from './cursors.js';
import { badRequest } from './errors.js';
import { isStoreId, newStoreId } from './ids.js';
import type { StoreEntry } from './registry.js';
import { booleanOf, limitOf, timeOf } from './wire.js';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_METADATA = 16;
/** Rounds of registry pages one listing request reads at most, to fill a page past hidden stores. */
const MAX_ROUNDS = 10;

/** The API's object of a store. */
export function storeObject(entry: StoreEntry) {
  return {
    id: entry.id,
    type: 'memory_store' as const,
    name: entry.name,
    description: entry.description,
    metadata: entry.metadata,
    archived_at: entry.archived_at,
    created_at: entry.created_at,
    updated_at: entry.updated_at,
  };
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > 255) {
    throw badRequest('name must be a string of 1 to 255 characters.');
  }
  if (CONTROL.test(value)) throw badRequest('name must not hold control characters.');
  return value;
}

function descriptionOf(value: unknown): string {
  if (typeof value !== 'string' || value.length > 1024) {
    throw badRequest('description must be a string of at most 1,024 characters.');
  }
  return value;
}

/** `current` with the patch `value` applied (a string sets, null removes), checked whole. */
function metadataOf(value: unknown, current: Record<string, string>, patch: boolean): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('metadata must be an object of string values.');
  }
  const next: Record<string, string> = { ...current };
  for (const [key, item] of Object.entries(value)) {
    if (key.length < 1 || key.length > 64) throw badRequest('metadata keys must be 1 to 64 characters.');
    if (item === null && patch) {
      delete next[key];
    } else if (typeof item === 'string' && item.length <= 512) {
      next[key] = item;
    } else {
      throw badRequest(
        `metadata.${key.slice(0, 64)} must be a string of at most 512 characters${patch ? ', or null' : ''}.`,
      );
    }
  }
  if (Object.keys(next).length > MAX_METADATA)
    throw badRequest(`metadata may hold at most ${MAX_METADATA} pairs.`);
  return next;
}

export async function createStore(context: ApiContext, body: Record<string, unknown>) {
  mayAdminister(context, 'create memory stores');
  mayChange(context);
  const name = nameOf(body['name']);
  const description = body['description'] === undefined ? '' : descriptionOf(body['description']);
  const metadata = body['metadata'] === undefined ? {} : metadataOf(body['metadata'], {}, false);
  const now = new Date().toISOString();
  const entry: StoreEntry = {
    id: newStoreId(),
    name,
    description,
    metadata,
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
  await context.registry.create(entry);
  return storeObject(entry);
}

/**
 * Retrieve, with memdir's extension `memdir_usage` (files, bytes and versions the store's namespace
 * holds, from the backend's counters) where the driver keeps them.
 */
export async function retrieveStore(context: ApiContext, id: string) {
  const object = storeObject(await entryOf(context, id));
  const driver = storeDriver(await context.backend.open(id));
  if (driver?.usage === undefined) return object;
  const usage = await createMemoryAdmin(driver).usage();
  return { ...object, memdir_usage: { memories: usage.files, bytes: usage.bytes, versions: usage.versions } };
}

export async function updateStore(context: ApiContext, id: string, body: Record<string, unknown>) {
  const before = await entryOf(context, id);
  mayChange(context);
  if (before.archived_at !== null) throw badRequest('The memory store is archived: it cannot be updated.');
  const name = body['name'] === undefined || body['name'] === null ? undefined : nameOf(body['name']);
  const description =
    body['description'] === undefined || body['description'] === null
      ? undefined
      : descriptionOf(body['description']);
  const patch = body['metadata'] === undefined || body['metadata'] === null ? undefined : body['metadata'];
  metadataOf(patch ?? {}, before.metadata, true);
  const after = await context.registry.update(id, (entry) => {
    if (entry.deleting === true) return undefined;
    if (entry.archived_at !== null) throw badRequest('The memory store is archived: it cannot be updated.');
    const next: StoreEntry = {
      ...entry,
      name: name ?? entry.name,
      description: description ?? entry.description,
      metadata: patch === undefined ? entry.metadata : metadataOf(patch, entry.metadata, true),
    };
    if (JSON.stringify(next) === JSON.stringify(entry)) return undefined;
    return { ...next, updated_at: new Date().toISOString() };
  });
  if (after === null || after.deleting === true) return retrieveStore(context, id);
  return storeObject(after);
}

export async function archiveStore(context: ApiContext, id: string) {
  await entryOf(context, id);
  mayChange(context);
  const after = await context.registry.update(id, (entry) => {
    if (entry.archived_at !== null || entry.deleting === true) return undefined;
    const now = new Date().toISOString();
    return { ...entry, archived_at: now, updated_at: now };
  });
  if (after === null || after.deleting === true) return retrieveStore(context, id);
  return storeObject(after);
}

export async function deleteStore(context: ApiContext, id: string) {
  await entryOf(context, id);
  mayAdminister(context, 'delete memory stores');
  mayChange(context);
  await context.registry.update(id, (entry) =>
    entry.deleting === true ? undefined : { ...entry, deleting: true },
  );
  await finishDeletion(context, id);
  return { id, type: 'memory_store_deleted' as const };
}

/** Erases a store marked as deleting, then forgets it (what a restarted server resumes). */
export async function finishDeletion(
  context: Pick<ApiContext, 'registry' | 'backend'>,
  id: string,
): Promise<void> {
  await context.backend.erase(id);
  await context.registry.remove(id);
}

export async function listStores(context: ApiContext, query: URLSearchParams) {
  const includeArchived = booleanOf(query, 'include_archived', false);
  const from = timeOf(query, 'created_at[gte]');
  const to = timeOf(query, 'created_at[lte]');
  const limit = limitOf(query, 100);
  const filters = { includeArchived, from, to };
  const shown = (entry: StoreEntry) => {
    const created = Date.parse(entry.created_at);
    return (
      entry.deleting !== true &&
      (includeArchived || entry.archived_at === null) &&
      (from === undefined || created >= from) &&
      (to === undefined || created <= to) &&
      maySee(context, entry.id)
    );
  };
  if (context.grant.stores !== true) {
    // A namespace token sees its own store, if it is one.
    const own = isStoreId(context.grant.namespace)
      ? await context.registry.get(context.grant.namespace)
      : null;
    return { data: own !== null && shown(own) ? [storeObject(own)] : [], next_page: null };
  }
  let cursor = decodeCursor('stores', filters, query.get('page') ?? undefined);
  const data: ReturnType<typeof storeObject>[] = [];
  let next: string | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const page = await context.registry.list(cursor, limit - data.length);
    for (const entry of page.entries) if (shown(entry)) data.push(storeObject(entry));
    next = page.next;
    if (next === null || data.length >= limit) break;
    cursor = next;
  }
  return { data, next_page: next === null ? null : encodeCursor('stores', filters, next) };
}
