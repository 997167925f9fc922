import { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from '@memdir/core';
import { createFsDriver, type FsDriverOptions } from './driver.js';

export { createFsDriver, type FsDriverOptions } from './driver.js';

/** Options of {@link createFsStore}: where the folder is, plus the store options of SPEC section 3. */
export interface FsStoreOptions extends FsDriverOptions, MemoryStoreOptions {}

/**
 * A memory store in a local folder: `/memories/notes.md` is the plain file
 * `{root}/memories/notes.md`, readable with ordinary tools.
 *
 * @example
 * const store = createFsStore({ root: './memory' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' });
 */
export function createFsStore(options: FsStoreOptions): MemoryStore {
  const { root, lockTimeoutMs, staleLockMs, ...storeOptions } = options;
  const driver = createFsDriver({ root, lockTimeoutMs, staleLockMs });
  return createMemoryStore(driver, storeOptions);
}
