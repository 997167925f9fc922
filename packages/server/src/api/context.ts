// What every handler of the API works with: the caller (its grant and the actor its changes are
// recorded under), the registry, and the stores; and the one way a handler reaches a store, which
// says 404 for a store the caller may not see (existence does not leak) and 403 for a change a
// read-only token asks for.
import type { Actor, MemdirStore } from '@memdir/core';
import type { TokenGrant } from '../auth.js';
import { forbidden, notFound } from './errors.js';
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
  const missing = () => notFound(`No memory store has the id ${JSON.stringify(id.slice(0, 100))}.`);
  if (!isStoreId(id) || !maySee(context, id)) throw missing();
  const entry = await context.registry.get(id);
  if (entry === null || entry.deleting === true) throw missing();
  return entry;
}

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

/** Store `id` with its entry; `write` checks the token may change it. */
export async function reach(context: ApiContext, id: string, write: boolean): Promise<Reached> {
  const entry = await entryOf(context, id);
  if (write) mayChange(context);
  return { entry, store: await context.backend.open(id) };
}
