// @memdir/fs: the memory store in a local folder. This file has the factories (the driver, the
// store and the admin made from it) and the package's public exports. The driver's methods are in
// driver.ts, which says where the rest is; the options and their defaults are in options.ts.
import { resolve } from 'node:path';
import type { MemdirStore, MemoryAdmin, MemoryAdminOptions, MemoryStoreOptions } from '@memdir/core';
import { createOwningAdmin, createOwningStore, driverLog, splitStoreOptions } from '@memdir/core/driver';
import { Backend } from './backend.js';
import { type FsDriver, FsMemoryDriver } from './driver.js';
import { checkOptions, type FsDriverOptions } from './options.js';

export type { FsDriver } from './driver.js';
export { DEFAULT_STALE_LOCK_MS, type FsDriverOptions } from './options.js';

/**
 * A driver that keeps each memory file as a plain file under `options.root` (see
 * {@link FsDriverOptions.root} for the layout). It follows no symbolic link below the root: every
 * name is opened through the handle of the folder above it (SPEC section 8). Every change is written
 * to a temporary file, fsynced and renamed into place, under a lock shared by every process on the
 * folder, so no update is lost and a crash leaves each file whole; the namespace's totals (bytes,
 * files) are kept beside it for quotas. Reads take no lock. Files are created 0600 and folders 0700.
 * @throws TypeError for invalid options.
 */
export function createFsDriver(options: FsDriverOptions): FsDriver {
  const { root, staleMs, lockCapMs, logger } = checkOptions(options);
  const backend = new Backend(resolve(root), staleMs, lockCapMs, driverLog('fs', logger));
  return new FsMemoryDriver(backend, []);
}

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
