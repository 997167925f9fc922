import type { MemdirStore, MemoryAdmin, MemoryAdminOptions, MemoryStoreOptions } from '@memdir/core';
import { createOwningAdmin, createOwningStore, splitStoreOptions } from '@memdir/core/driver';
import { createFsDriver, type FsDriverOptions } from './driver.js';

export {
  createFsDriver,
  DEFAULT_STALE_LOCK_MS,
  type FsDriver,
  type FsDriverOptions,
} from './driver.js';

/** Options of {@link createFsStore}: where the folder is, plus the store options of SPEC section 3. */
export interface FsStoreOptions extends FsDriverOptions, MemoryStoreOptions {}

/**
 * A memory store in a local folder: `/memories/notes.md` is the plain file
 * `{root}/memories/notes.md`, readable with ordinary tools. `{root}/memories` is created when the
 * store opens. The store owns the driver it makes and closes it with itself.
 *
 * A change waits for another process's lock as long as the command's deadline (`timeoutMs`)
 * allows, less a margin to answer "busy" in time; `lockTimeoutMs` caps that wait.
 *
 * @example
 * const store = createFsStore({ root: './memory' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' });
 * @throws TypeError for invalid options.
 */
export function createFsStore(options: FsStoreOptions): MemdirStore {
  const { store, driver } = splitStoreOptions(options);
  return createOwningStore(createFsDriver(driver), store);
}

/** Options of {@link createFsAdmin}: where the folder is (as for the store), plus the admin's options. */
export interface FsAdminOptions extends FsDriverOptions, MemoryAdminOptions {}

/**
 * An admin over the namespaces of the folder at `options.root` (`listNamespaces`, `usage`,
 * `dropNamespace`, `sweep`; see `createMemoryAdmin` in `@memdir/core`). It owns the driver it makes
 * and closes it with itself.
 *
 * @example
 * const admin = createFsAdmin({ root: './memory', expire: { afterDays: 90 } });
 * await admin.sweep();
 * await admin.close();
 * @throws TypeError for invalid options.
 */
export function createFsAdmin(options: FsAdminOptions): MemoryAdmin {
  const { root, lockTimeoutMs, staleLockMs, logger, ...admin } = options ?? ({} as FsAdminOptions);
  return createOwningAdmin(createFsDriver({ root, lockTimeoutMs, staleLockMs, logger }), admin);
}
