// What every handler of the API works with: the caller (its grant and the actor its changes are
// recorded under), the registry, and the stores; and the one way a handler reaches a store, which
// says 404 for a store the caller may not see (existence does not leak) and 403 for a change a
// read-only token asks for.
import type { Actor, MemdirStore, RecordPage, RecordQuery, RecordsBeside } from '@memdir/core';
import type { TokenGrant } from '../auth.js';
import { forbidden, notFound, toApiError } from './errors.js';
import { isStoreId } from './ids.js';
import type { Registry, StoreEntry } from './registry.js';

/** How the API reaches the backend: the stores of namespaces, and their erasure. */
export interface MemoryStoresBackend {
  /**
   * The store of `namespace` (a store id, or the registry's namespace), with history on: the same
   * one the memory tool's door uses, so both doors see one set of files and one history.
   */
  open(namespace: string): Promise<MemdirStore>;
  /** Erases `namespace` (files, versions), resumably: called again after a crash, it finishes. */
  erase(namespace: string): Promise<void>;
}

export interface ApiContext {
  readonly grant: TokenGrant;
  readonly requestId: string;
  /** Who the request's changes are recorded as: its session (`memdir-session-id`), else its token. */
  readonly actor: Actor;
  readonly registry: Registry;
  readonly backend: MemoryStoresBackend;
}

/** A store the caller reached. */
export interface Reached {
  readonly entry: StoreEntry;
  readonly store: MemdirStore;
}

/** Refuses a change by a read-only token. */
export function mayChange(context: ApiContext): void {
  if (context.grant.mode !== 'read-write') throw forbidden('This token may only read.');
}

/** Refuses what only a `--stores` token may do. */
export function mayAdminister(context: ApiContext, what: string): void {
  if (context.grant.stores !== true) throw forbidden(`Only a token made with --stores may ${what}.`);
}

/** Whether the caller may see store `id` at all. */
export function maySee(context: ApiContext, id: string): boolean {
  return context.grant.stores === true || context.grant.namespace === id;
}

/** The entry of store `id`, or 404 when there is none the caller may see. */
export async function entryOf(context: ApiContext, id: string): Promise<StoreEntry> {
  if (!isStoreId(id) || !maySee(context, id)) throw missingStore(id);
  const entry = await context.registry.get(id);
  if (entry === null || entry.deleting === true) throw missingStore(id);
  return entry;
}

const missingStore = (id: string) =>
  notFound(`No memory store has the id ${JSON.stringify(id.slice(0, 100))}.`);

/**
 * `read` on store `id`, run while its registry entry is read (one round trip less on the way): the
 * result is given only once the entry says the store exists, else the 404 is.
 */
export async function readFrom<T>(
  context: ApiContext,
  id: string,
  read: (store: MemdirStore) => Promise<T>,
): Promise<T> {
  if (!isStoreId(id) || !maySee(context, id)) await entryOf(context, id);
  const store = await context.backend.open(id);
  const [entry, result] = await Promise.allSettled([entryOf(context, id), read(store)]);
  if (entry.status === 'rejected') throw entry.reason;
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/**
 * A page of store `id`'s records, read beside its registry entry: one round trip where the driver
 * reads both at once (`records.listBeside`), else two at once. The page (with the store, for the
 * pages after it) is given only once the entry says the store exists, else the 404 is. A refusal
 * is decided as `readFrom` decides it (the 404 of a store that is not there before the listing's
 * own), by reading both again apart.
 */
export async function listFrom(
  context: ApiContext,
  id: string,
  query: RecordQuery,
): Promise<{ page: RecordPage; store: MemdirStore }> {
  if (!isStoreId(id) || !maySee(context, id)) throw missingStore(id);
  const store = await context.backend.open(id);
  const beside = await context.registry.beside(id);
  let read: RecordsBeside;
  try {
    read = await store.records.listBeside(query, beside);
  } catch {
    return readFrom(context, id, async (again) => ({
      page: await again.records.list(query).catch((error: unknown) => {
        throw toApiError(error);
      }),
      store: again,
    }));
  }
  const entry = beside.entry(read.record);
  if (entry === null || entry.deleting === true) throw missingStore(id);
  return { page: read.page, store };
}

/** Store `id` with its entry; `write` checks the token may change it. */
export async function reach(context: ApiContext, id: string, write: boolean): Promise<Reached> {
  const entry = await entryOf(context, id);
  if (write) mayChange(context);
  return { entry, store: await context.backend.open(id) };
}
