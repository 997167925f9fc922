// The options of the filesystem driver (and so of the store and the admin made from it), their
// defaults, and the checks that turn them into the settings a driver runs with (backend.ts).
import type { MemdirLogger } from '@memdir/core';
import { optionError, positiveInteger } from '@memdir/core/driver';

/** Default of {@link FsDriverOptions.staleLockMs}. */
export const DEFAULT_STALE_LOCK_MS = 60_000;

/** Options of `createFsDriver` (index.ts). */
export interface FsDriverOptions {
  /**
   * The folder that holds the memory. Memory files live in `{root}/memories` (the layout of
   * Anthropic's `BetaLocalFilesystemMemoryTool`, so an existing folder carries over); memdir keeps
   * its lock, totals and temporary files in `{root}/.memdir`, out of the model's reach. Namespace
   * `n` lives in `{root}/namespaces/n` with the same layout. `{root}/memories` is created (mode
   * 0700) when the driver opens. The root path is the application's: links on it are followed;
   * nothing below it ever is.
   */
  root: string;
  /**
   * The longest a change waits for another process that holds the folder's lock before it fails
   * with `BACKEND` (reason `busy`: "The memory store is busy..."). Without it the wait is derived
   * from the command's deadline (`timeoutMs`): it ends early enough that a busy store says so
   * before the deadline passes. Give it to answer "busy" sooner than that. Reads never wait: they
   * take no lock.
   * @default undefined (derived from the deadline)
   */
  lockTimeoutMs?: number | undefined;
  /**
   * A lock left by a process on another kernel (a folder shared with a VM or another machine) is
   * taken as abandoned once older than this. On one kernel, containers included, a holder's death
   * is seen at once and this plays no part.
   * @default 60000
   */
  staleLockMs?: number | undefined;
  /**
   * Where the driver reports lock waits, broken locks, recomputed totals, a folder reopened after
   * it was removed, and slow calls: never a path or content.
   * @default `NODE_DEBUG=memdir` output through `util.debuglog`
   */
  logger?: MemdirLogger | undefined;
}

/** The options as a driver runs with them: checked, defaults filled in. */
export interface FsSettings {
  readonly root: string;
  /** `lockTimeoutMs`; undefined when the wait is derived from the deadline. */
  readonly lockCapMs: number | undefined;
  readonly staleMs: number;
  readonly logger: MemdirLogger | undefined;
}

/**
 * Checks `options` as `createFsDriver` (index.ts) takes them.
 * @throws TypeError for invalid options.
 */
export function checkOptions(options: FsDriverOptions): FsSettings {
  if (typeof options?.root !== 'string' || options.root === '') {
    throw optionError('fs', 'root', 'expected the path of the memory folder');
  }
  const lockCapMs =
    options.lockTimeoutMs === undefined
      ? undefined
      : positiveInteger('fs', 'lockTimeoutMs', options.lockTimeoutMs, 1);
  const staleMs = positiveInteger('fs', 'staleLockMs', options.staleLockMs, DEFAULT_STALE_LOCK_MS);
  return { root: options.root, lockCapMs, staleMs, logger: options.logger };
}
