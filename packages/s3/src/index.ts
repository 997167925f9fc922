// @memdir/s3: the memory store, its driver and its admin over an S3 bucket. This file holds the
// three factories and the public exports; driver.ts is the driver's entrance and says where the
// rest is (options.ts the options, read.ts and write.ts the calls, history/ the versions).
import type { MemdirStore, MemoryAdmin, MemoryAdminOptions, MemoryStoreOptions } from '@memdir/core';
import { createOwningAdmin, createOwningStore, driverLog, splitStoreOptions } from '@memdir/core/driver';
import { backendOf } from './backend.js';
import { createClient } from './client.js';
import { type Handle, type S3Driver, S3MemoryDriver } from './driver.js';
import { checkOptions, type S3DriverOptions } from './options.js';

export type { ClientOptions } from './client.js';
export type { S3Driver } from './driver.js';
export type { S3DriverOptions } from './options.js';

/**
 * The S3 driver, for `createMemoryStore(driver, options)` from `@memdir/core`: the memory's files as
 * objects under `{prefix}memories/`. `close()` waits for the changes under way, then destroys the
 * client when the driver built it; a client you passed in is never closed.
 *
 * @throws TypeError for a missing bucket or an invalid option.
 */
export function createS3Driver(options: S3DriverOptions): S3Driver {
  const { client, bucket, prefix, leaseTtlMs, logger, ...clientOptions } = options;
  const checked = checkOptions(options);
  const s3 = client ?? createClient(clientOptions);
  const backend = backendOf(s3, checked.bucket, checked.keys.base, checked.leaseTtlMs, client === undefined);
  const handle: Handle = {
    closed: false,
    close: async () => {
      // Changes under way finish first (a lease is released, not left to expire).
      await backend.idle();
      handle.closed = true;
      if (client === undefined) {
        backend.bucket.closed = true;
        s3.destroy();
      }
    },
  };
  return new S3MemoryDriver({ backend, keys: checked.keys }, driverLog('s3', logger), handle, true);
}

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
