// The memory stores API's names for namespaces: a namespace named like a store id (`memstore_...`)
// is an API memory store, and the registry (`=memdir-stores`, api/registry.ts) keeps its name and
// whether it is archived. The name was written by a user or a model: it is shown like any store
// text (escaped, direction controls as marks), never trusted.
import { isStoreId } from '../api/ids.js';
import { REGISTRY_NAMESPACE, Registry } from '../api/registry.js';
import type { InspectorOptions } from './context.js';

/** What the namespaces page shows of a memory store. */
export interface StoreLabel {
  readonly name: string;
  readonly state: 'active' | 'archived' | 'being deleted';
  /** When it was archived (ISO 8601), or null. */
  readonly archivedAt: string | null;
}

/**
 * The registry's label of each of `namespaces` that is a memory store, by namespace: one registry
 * read per store, none at all when no name on the page is a store id. A store the registry does
 * not know, or an entry that cannot be read, has no label (the page shows the namespace alone).
 */
export async function storeLabels(
  options: InspectorOptions,
  namespaces: readonly string[],
): Promise<Map<string, StoreLabel>> {
  const ids = namespaces.filter(isStoreId);
  const labels = new Map<string, StoreLabel>();
  if (ids.length === 0) return labels;
  const registry = new Registry(() => options.store(REGISTRY_NAMESPACE));
  const entries = await Promise.all(ids.map((id) => registry.get(id).catch(() => null)));
  for (const entry of entries) {
    if (entry === null || !ids.includes(entry.id) || typeof entry.name !== 'string') continue;
    const archivedAt = typeof entry.archived_at === 'string' ? entry.archived_at : null;
    const state = entry.deleting === true ? 'being deleted' : archivedAt === null ? 'active' : 'archived';
    labels.set(entry.id, { name: entry.name, state, archivedAt });
  }
  return labels;
}
