import type { MemdirStore, MemoryStoreOptions } from '@memdir/core';
import { createOwningStore, splitStoreOptions } from '@memdir/core/driver';
import { createS3Driver, type S3DriverOptions } from './driver.js';

export type { ClientOptions } from './client.js';
export { createS3Driver, type S3DriverOptions } from './driver.js';

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
