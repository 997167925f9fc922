// The registry of memory stores: one JSON file per store in a namespace of its own on the same
// backend (`=memdir-stores`: memdir's tokens refuse every namespace that starts with "=", so no
// token reaches it through the memory tool or names it as a store). A file is named by the store's
// registry key (ids.ts), so the registry's listing in byte order is newest first. Every change is a
// compare-and-swap on the file's SHA-256, tried again when another writer got there first.
// Beside the stores, one small file per redaction (who redacted a version: the store's history keeps
// only when), under a folder per store that goes with the store.
import {
  type Actor,
  isMemoryToolError,
  type MemdirStore,
  type MemoryRecord,
  type RecordBeside,
} from '@memdir/core';
import { ApiError } from './errors.js';
import { registryKey, storeIdOf } from './ids.js';

/** The namespace the registry lives in. */
export const REGISTRY_NAMESPACE = '=memdir-stores';

const FOLDER = '/memories/stores';
const CAS_TRIES = 8;

/** A store as the registry keeps it (the API's object, and whether it is being erased). */
export interface StoreEntry {
  id: string;
  name: string;
  description: string;
  metadata: Record<string, string>;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  /** Set once a deletion started: the store is gone to clients, its namespace still being erased. */
  deleting?: true;
}

const REDACTIONS = '/memories/redactions';
const ACTOR_TYPES: readonly string[] = ['session', 'user', 'api', 'service'];

const pathOf = (id: string) => `${FOLDER}/${registryKey(id)}.json`;
const redactionsOf = (storeId: string) => `${REDACTIONS}/${registryKey(storeId)}`;
const redactionOf = (storeId: string, versionId: string) => `${redactionsOf(storeId)}/${versionId}.json`;

function parseActor(content: string | undefined): Actor | null {
  try {
    const actor = (JSON.parse(content ?? '') as { redacted_by?: Actor }).redacted_by;
    return typeof actor?.id === 'string' && ACTOR_TYPES.includes(actor.type)
      ? { type: actor.type, id: actor.id }
      : null;
  } catch {
    return null;
  }
}

function parse(content: string | undefined): StoreEntry | null {
  try {
    const entry = JSON.parse(content ?? '') as StoreEntry;
    return typeof entry?.id === 'string' ? entry : null;
  } catch {
    return null;
  }
}

/** The registry, on the store of its namespace. */
export class Registry {
  readonly #store: () => Promise<MemdirStore>;

  constructor(store: () => Promise<MemdirStore>) {
    this.#store = store;
  }

  async get(id: string): Promise<StoreEntry | null> {
    const store = await this.#store();
    const record = await store.records.get(pathOf(id), { content: true });
    return record && parse(record.content);
  }

  /**
   * Where the entry of `id` is, for a read beside another (`records.listBeside`): the registry's
   * store, the file's path, and how to read the entry from its record.
   */
  async beside(
    id: string,
  ): Promise<RecordBeside & { entry(record: MemoryRecord | null): StoreEntry | null }> {
    const store = await this.#store();
    return { store, path: pathOf(id), content: true, entry: (record) => record && parse(record.content) };
  }

  async create(entry: StoreEntry): Promise<void> {
    const store = await this.#store();
    await store.records.create(pathOf(entry.id), JSON.stringify(entry));
  }

  /**
   * Applies `change` to the entry of `id` (what it returns is written; `undefined` writes nothing),
   * again on the newer entry when another writer changed it meanwhile.
   * @returns the entry after the change, or null when there is no such store.
   */
  async update(
    id: string,
    change: (entry: StoreEntry) => StoreEntry | undefined,
  ): Promise<StoreEntry | null> {
    const store = await this.#store();
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const record = await store.records.get(pathOf(id), { content: true });
      const entry = record && parse(record.content);
      if (!record || !entry) return null;
      const next = change(entry);
      if (next === undefined) return entry;
      try {
        await store.records.update(
          record.id,
          { content: JSON.stringify(next) },
          { expectSha256: record.sha256 },
        );
        return next;
      } catch (error) {
        if (!(isMemoryToolError(error) && (error.code === 'CONFLICT' || error.code === 'NOT_FOUND')))
          throw error;
      }
    }
    throw new ApiError(409, 'conflict_error', 'The store was changed by others meanwhile; try again.', {
      retry: true,
    });
  }

  /**
   * Keeps who redacted version `versionId` of store `storeId`, unless someone is kept already (the
   * first redaction stays, as its time does).
   * @returns who is kept.
   */
  async recordRedaction(storeId: string, versionId: string, actor: Actor): Promise<Actor> {
    const store = await this.#store();
    const path = redactionOf(storeId, versionId);
    try {
      await store.records.create(path, JSON.stringify({ version: versionId, redacted_by: actor }));
      return actor;
    } catch (error) {
      if (!(isMemoryToolError(error) && error.code === 'ALREADY_EXISTS')) throw error;
    }
    return (await this.redactedBy(storeId, versionId)) ?? actor;
  }

  /** Who redacted version `versionId` of store `storeId`, or null when that is not kept. */
  async redactedBy(storeId: string, versionId: string): Promise<Actor | null> {
    const store = await this.#store();
    const record = await store.records.get(redactionOf(storeId, versionId), { content: true });
    return record && parseActor(record.content);
  }

  /** Forgets store `id`: its redactions first, then its entry (so a crash between is resumed). */
  async remove(id: string): Promise<void> {
    const store = await this.#store();
    try {
      await store.delete({ command: 'delete', path: redactionsOf(id) });
    } catch (error) {
      if (!(isMemoryToolError(error) && error.code === 'NOT_FOUND')) throw error;
    }
    const record = await store.records.get(pathOf(id));
    if (record) await store.records.remove(record.id);
  }

  /** A page of entries, newest first, after the position `cursor`. */
  async list(
    cursor: string | undefined,
    limit: number,
  ): Promise<{ entries: StoreEntry[]; next: string | null }> {
    const store = await this.#store();
    const page = await store.records.list({ path: FOLDER, cursor, limit });
    const entries: StoreEntry[] = [];
    for (const item of page.items) {
      if (item.kind !== 'file') continue;
      const record: MemoryRecord | null = await store.records.locate(item.id, { content: true });
      const entry = record && parse(record.content);
      if (entry && entry.id === storeIdOf(item.path.slice(FOLDER.length + 1, -'.json'.length))) {
        entries.push(entry);
      }
    }
    return { entries, next: page.next };
  }
}
