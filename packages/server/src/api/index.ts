// The memory stores API (API.md): door.ts (routes, mounting), context.ts (who asks, which store),
// stores.ts, memories.ts, versions.ts (the endpoints), registry.ts (the stores' registry), wire.ts
// (bodies, queries, paths), cursors.ts (pages), errors.ts (statuses and error shapes), ids.ts.
export type { MemoryStoresBackend } from './context.js';
export {
  MEMORY_STORES_PATH,
  type MountedMemoryStores,
  memoryStoresDoor,
  mountMemoryStores,
  SESSION_HEADER,
} from './door.js';
export { isStoreId } from './ids.js';
export { REGISTRY_NAMESPACE, type StoreEntry } from './registry.js';
