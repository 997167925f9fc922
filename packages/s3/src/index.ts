import type { MemdirStore, MemoryAdmin, MemoryAdminOptions, MemoryStoreOptions } from '@memdir/core';
import { createOwningAdmin, createOwningStore, splitStoreOptions } from '@memdir/core/driver';
import { createS3Driver, type S3DriverOptions } from './driver.js';

export type { ClientOptions } from './client.js';
export { createS3Driver, type S3Driver, type S3DriverOptions } from './driver.js';

/** Options of {@link createS3Store}: the bucket and client options, plus the store options of SPEC section 3. */
export interface S3StoreOptions extends S3DriverOptions, MemoryStoreOptions {}

/**
 * A memory store in an S3 bucket (AWS S3, Cloudflare R2, or any S3-compatible server that enforces
 * conditional writes): `/memories/notes.md` is the object `{prefix}memories/notes.md`, readable
 * in the bucket like any file. `close()` destroys the client when the store built it.
 *
 * @example
 * const store = createS3Store({ bucket: 'my-agent-memory', prefix: 'agents/alice' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' });
 *
 * @throws TypeError for a missing bucket or an invalid option.
 */
export function createS3Store(options: S3StoreOptions): MemdirStore {
  const { store, driver } = splitStoreOptions(options);
  return createOwningStore(createS3Driver(driver), store);
}

/** Options of {@link createS3Admin}: the bucket and client options, plus the admin options (expiry, batches). */
export interface S3AdminOptions extends S3DriverOptions, MemoryAdminOptions {}

/**
 * The admin of the memory stores under a bucket and prefix (every namespace below it): list the
 * namespaces, read what one holds, drop one in batches of at most 1,000 keys, and sweep (expiry).
 * It destroys the client it built, never a `client` you passed.
 *
 * @example
 * const admin = createS3Admin({ bucket: 'my-agent-memory', expire: { afterDays: 90 } });
 * console.log(await admin.usage('user-42'));
 * await admin.sweep();
 * await admin.close();
 *
 * @throws TypeError for a missing bucket or an invalid option.
 */
export function createS3Admin(options: S3AdminOptions): MemoryAdmin {
  const { expire, history, batch, timeoutMs, ...driver } = options;
  return createOwningAdmin(createS3Driver(driver), { expire, history, batch, timeoutMs });
}
