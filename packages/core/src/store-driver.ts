import type { MemoryDriver, MemoryStore } from './types.js';

// Which driver each store made by `createMemoryStore` works on, for tools that work below the
// protocol on any store (copying a store, exporting it): weakly, so a dropped store takes it along.
const drivers = new WeakMap<MemoryStore, MemoryDriver>();

/** Called by `createMemoryStore`: remembers the (namespaced) driver a store works on. */
export function registerStoreDriver(store: MemoryStore, driver: MemoryDriver): void {
  drivers.set(store, driver);
}

/**
 * The driver a store made by `createMemoryStore` works on (already inside the store's namespace),
 * or undefined for a store written by hand. What `copyStore` and the CLI's export work on.
 */
export function storeDriver(store: MemoryStore): MemoryDriver | undefined {
  return drivers.get(store);
}
