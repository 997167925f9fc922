// The registry of memory stores: one JSON file per store in a namespace of its own on the same
// backend (`=memdir-stores`: memdir's tokens refuse every namespace that starts with "=", so no
// token reaches it through the memory tool or names it as a store). A file is named by the store's
// registry key (ids.ts), so the registry's listing in byte order is newest first. Every change is a
// compare-and-swap on the file's SHA-256, tried again when another writer got there first.
import { isMemoryToolError, type MemdirStore, type MemoryRecord } from '@memdir/core';
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

const pathOf = (id: string) => `${FOLDER}/${registryKey(id)}.json`;

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

  async remove(id: string): Promise<void> {
    const store = await this.#store();
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
