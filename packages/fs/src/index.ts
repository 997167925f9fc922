import type { MemdirStore, MemoryStoreOptions } from '@memdir/core';
import { createOwningStore } from '@memdir/core/driver';
import { createFsDriver, DEFAULT_LOCK_TIMEOUT_MS, type FsDriverOptions } from './driver.js';

export {
  createFsDriver,
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_STALE_LOCK_MS,
  type FsDriverOptions,
} from './driver.js';

/** The engine's deadline for one driver call when `timeoutMs` is not given (SPEC section 7). */
const ENGINE_TIMEOUT_MS = 5_000;

/** Options of {@link createFsStore}: where the folder is, plus the store options of SPEC section 3. */
export interface FsStoreOptions extends FsDriverOptions, MemoryStoreOptions {}

/**
 * A memory store in a local folder: `/memories/notes.md` is the plain file
 * `{root}/memories/notes.md`, readable with ordinary tools. `{root}/memories` is created when the
 * store opens.
 *
 * The lock wait ends before the engine's deadline, so a store kept busy by another process says
 * so: `lockTimeoutMs` defaults to 3000 ms, or 60% of `timeoutMs` when that is lower, and must be
 * below `timeoutMs`.
 *
 * @example
 * const store = createFsStore({ root: './memory' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' });
 */
export function createFsStore(options: FsStoreOptions): MemdirStore {
  const { root, lockTimeoutMs, staleLockMs, ...storeOptions } = options;
  const timeoutMs = storeOptions.timeoutMs ?? ENGINE_TIMEOUT_MS;
  if (lockTimeoutMs !== undefined && lockTimeoutMs >= timeoutMs) {
    throw new TypeError(
      `createFsStore: lockTimeoutMs (${lockTimeoutMs}) must be below timeoutMs (${timeoutMs}), or a busy store fails with the engine's deadline instead of saying it is busy`,
    );
  }
  const driver = createFsDriver({
    root,
    lockTimeoutMs:
      lockTimeoutMs ?? Math.max(1, Math.min(DEFAULT_LOCK_TIMEOUT_MS, Math.floor(timeoutMs * 0.6))),
    staleLockMs,
  });
  return createOwningStore(driver, storeOptions);
}
