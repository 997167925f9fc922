// Copying every file of one store to another over the driver contract, for every backend at once:
// a move from the filesystem store to Redis, a backup before an upgrade, a staging store seeded from
// production. It streams file by file (only paths and sizes are held for the whole store), writes
// with the target's atomic primitives, can run again after an interruption (identical files are
// left alone), and ends by reading the target back and checking every file's hash.
import { Engine, type Operation } from './engine/context.js';
import { isMemoryToolError } from './errors.js';
import { MEMORY_ROOT, utf8Length } from './path.js';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_TIMEOUT_MS } from './store.js';
import { storeDriver } from './store-driver.js';
import type { DriverEntry, DriverPath, MemoryDriver, MemoryStore } from './types.js';

/** Where {@link copyStore} reports progress. */
export interface CopyProgress {
  /** `scan`: listing the source; `copy`: writing files; `verify`: reading the target back. */
  readonly phase: 'scan' | 'copy' | 'verify';
  /** Files handled so far in this phase. */
  readonly files: number;
  /** Files in the source (known once the scan ends; during the scan, the files found so far). */
  readonly totalFiles: number;
  /** UTF-8 bytes handled so far in this phase. */
  readonly bytes: number;
  /** UTF-8 bytes in the source (known once the scan ends). */
  readonly totalBytes: number;
  /** Files written to the target so far. */
  readonly copied: number;
  /** Files already identical in the target, left alone. */
  readonly identical: number;
  /** Files that could not be copied (see the report). */
  readonly failed: number;
}

/** Options of {@link copyStore}. */
export interface CopyOptions {
  /**
   * Replace a target file whose content differs from the source's. Without it such a file is left
   * as it is and reported.
   * @default false
   */
  overwrite?: boolean | undefined;
  /** Look and report only: nothing is written, and there is nothing to verify. @default false */
  dryRun?: boolean | undefined;
  /** Called as files are handled (at most about ten times a second, and at the end of each phase). */
  onProgress?: ((progress: CopyProgress) => void) | undefined;
  /**
   * Stops the copy: no new file is started, the files in flight finish, and the report says the copy
   * is incomplete. Running the copy again resumes it (identical files are skipped).
   */
  signal?: AbortSignal | undefined;
  /** The longest to wait for one call to either backend, in milliseconds. @default 5000 */
  timeoutMs?: number | undefined;
  /** Files copied at once. @default 8 */
  concurrency?: number | undefined;
  /**
   * The target's limit on one file, in UTF-8 bytes: a larger source file is not copied (nothing of
   * it is written) and is reported with its size. Give the `maxFileBytes` the target store is
   * opened with, so that the copy holds the target to the same limit as its commands.
   * @default 1048576, every store's default
   */
  maxFileBytes?: number | undefined;
}

/** A file that was not copied, or that the verification found different. */
export interface CopyProblem {
  /** The memory path (`/memories/...`). */
  readonly path: string;
  /** Why, in plain words. */
  readonly reason: string;
}

/** What {@link copyStore} did. */
export interface CopyReport {
  /** Files and bytes in the source. */
  readonly files: number;
  readonly bytes: number;
  /** Files written to the target (in a dry run: that would be written). */
  readonly copied: number;
  /** Files already identical in the target. */
  readonly identical: number;
  /** Files not copied, with the reason. */
  readonly problems: readonly CopyProblem[];
  /** Files of the target that are not in the source (left alone). */
  readonly extraInTarget: number;
  /** True when the copy was stopped by its signal before every file was handled. */
  readonly interrupted: boolean;
  /**
   * True when every source file was read back from the target with the same size and SHA-256
   * (false in a dry run, after an interruption, or with problems).
   */
  readonly verified: boolean;
  /** Verification failures: a target file missing or different after the copy. */
  readonly mismatches: readonly CopyProblem[];
}

type Endpoint = MemoryStore | MemoryDriver;

function driverOf(endpoint: Endpoint, which: string): MemoryDriver {
  if (
    typeof (endpoint as MemoryDriver).list === 'function' &&
    typeof (endpoint as MemoryDriver).write === 'function'
  ) {
    return endpoint as MemoryDriver;
  }
  const driver = storeDriver(endpoint as MemoryStore);
  if (!driver) {
    throw new TypeError(
      `copyStore: the ${which} is a store written by hand; give a store made by createMemoryStore (every memdir adapter's is) or a driver`,
    );
  }
  return driver;
}

async function sha256(content: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(content));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function memoryPath(path: string): string {
  return `${MEMORY_ROOT}/${path}`;
}

/** What the target holds: its longest path and its largest file, in UTF-8 bytes. */
interface TargetLimits {
  readonly pathBytes: number;
  readonly fileBytes: number;
}

function tooLarge(size: number, limit: number): string {
  return `it is ${size} bytes, over the target's limit of ${limit} bytes per file`;
}

/** Why a driver call failed, for the report (the message of a BACKEND error is plain words already). */
function reasonOf(error: unknown): string {
  if (isMemoryToolError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `task` for each item with at most `limit` at once, stopping early when `stop()` says so. */
async function forEach<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/**
 * Copies every file of `from` (hidden ones included) to `to`, then verifies the target: every source
 * file must be there with the same size and SHA-256. `from` and `to` are stores made by
 * `createMemoryStore` (any memdir adapter's; their namespaces apply) or drivers.
 *
 * A target file that already holds the same content is not rewritten, so a copy that was interrupted
 * resumes where it stopped when run again. A file is written only where nothing is (`{ absent }`) or
 * over the version just read (`{ version }`, with `overwrite`), so a concurrent change in the target
 * is never clobbered: it is reported instead. Never throws for a file that cannot be copied; it is in
 * the report's `problems`.
 */
export async function copyStore(
  from: Endpoint,
  to: Endpoint,
  options: CopyOptions = {},
): Promise<CopyReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const engineOptions = {
    overwrite: true,
    maxFileBytes: Number.MAX_SAFE_INTEGER,
    maxViewChars: 1,
    timeoutMs,
    quota: undefined,
    history: undefined,
    touch: false,
    actor: undefined,
  };
  const nothingToRelease = async () => {};
  const source = new Engine(driverOf(from, 'source'), engineOptions, nothingToRelease);
  const target = new Engine(driverOf(to, 'target'), engineOptions, nothingToRelease);
  const limits: TargetLimits = {
    pathBytes: target.capabilities.maxPathBytes ?? Number.POSITIVE_INFINITY,
    fileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  };
  if (!Number.isSafeInteger(limits.fileBytes) || limits.fileBytes < 1) {
    throw new TypeError(
      `copyStore: maxFileBytes must be a positive integer, got ${String(options.maxFileBytes)}`,
    );
  }
  const concurrency = options.concurrency ?? 8;
  const stopped = () => options.signal?.aborted === true;

  const state = { phase: 'scan' as CopyProgress['phase'], files: 0, bytes: 0, copied: 0, identical: 0 };
  const problems: CopyProblem[] = [];
  let totalFiles = 0;
  let totalBytes = 0;
  let lastReport = 0;
  const progress = (force = false) => {
    if (!options.onProgress) return;
    const now = Date.now();
    if (!force && now - lastReport < 100) return;
    lastReport = now;
    options.onProgress({ ...state, totalFiles, totalBytes, failed: problems.length });
  };

  // Scan: paths and sizes only.
  const entries: DriverEntry[] = await source
    .operation('import')
    .list('' as DriverPath, { skipHidden: false });
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  totalFiles = entries.length;
  totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  state.files = totalFiles;
  state.bytes = totalBytes;
  progress(true);

  // Copy.
  Object.assign(state, { phase: 'copy', files: 0, bytes: 0 });
  const hashes = new Map<string, { hash: string; size: number }>();
  await forEach(entries, concurrency, stopped, async (entry) => {
    const problem = await copyOne(
      source.operation('import'),
      target.operation('import'),
      entry,
      options,
      limits,
      (kind) => {
        if (kind === 'copied') state.copied++;
        else state.identical++;
      },
    ).catch((error: unknown) => ({ reason: reasonOf(error) }));
    if (problem && 'reason' in problem)
      problems.push({ path: memoryPath(entry.path), reason: problem.reason });
    else if (problem) hashes.set(entry.path, problem);
    state.files++;
    state.bytes += entry.size;
    progress();
  });
  const interrupted = stopped() && state.files < totalFiles;
  progress(true);

  // Verify: read every copied or identical file back from the target.
  const mismatches: CopyProblem[] = [];
  let extraInTarget = 0;
  if (!options.dryRun && !interrupted) {
    Object.assign(state, { phase: 'verify', files: 0, bytes: 0 });
    const checked = [...hashes.entries()];
    await forEach(
      checked,
      concurrency,
      () => false,
      async ([path, expected]) => {
        try {
          const node = await target.operation('import').read(path as DriverPath);
          if (node?.kind !== 'file') {
            mismatches.push({ path: memoryPath(path), reason: 'missing in the target' });
          } else if (
            utf8Length(node.content) !== expected.size ||
            (await sha256(node.content)) !== expected.hash
          ) {
            mismatches.push({ path: memoryPath(path), reason: 'different content in the target' });
          }
        } catch (error) {
          mismatches.push({ path: memoryPath(path), reason: reasonOf(error) });
        }
        state.files++;
        state.bytes += expected.size;
        progress();
      },
    );
    const sourcePaths = new Set(entries.map((entry) => entry.path));
    for (const entry of await target.operation('import').list('' as DriverPath, { skipHidden: false })) {
      if (!sourcePaths.has(entry.path)) extraInTarget++;
    }
    progress(true);
  }

  problems.sort((a, b) => (a.path < b.path ? -1 : 1));
  mismatches.sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    files: totalFiles,
    bytes: totalBytes,
    copied: state.copied,
    identical: state.identical,
    problems,
    extraInTarget,
    interrupted,
    verified:
      !options.dryRun &&
      !interrupted &&
      problems.length === 0 &&
      mismatches.length === 0 &&
      hashes.size === totalFiles,
    mismatches,
  };
}

/**
 * Copies one file. Resolves to its hash and size once the target holds it (written or already
 * identical), or to the reason it was not copied.
 */
async function copyOne(
  source: Operation,
  target: Operation,
  entry: DriverEntry,
  options: CopyOptions,
  limits: TargetLimits,
  done: (kind: 'copied' | 'identical') => void,
): Promise<{ hash: string; size: number } | { reason: string }> {
  if (utf8Length(memoryPath(entry.path)) > limits.pathBytes) {
    return { reason: `the path is longer than the ${limits.pathBytes} bytes the target holds` };
  }
  // Refused from the listing's size, before the file is read; and again from the content read,
  // which may have grown since.
  if (entry.size > limits.fileBytes) return { reason: tooLarge(entry.size, limits.fileBytes) };
  const file = await source.read(entry.path);
  if (file?.kind !== 'file') return { reason: 'it was removed from the source during the copy' };
  const size = utf8Length(file.content);
  if (size > limits.fileBytes) return { reason: tooLarge(size, limits.fileBytes) };
  const hash = await sha256(file.content);
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await target.read(entry.path);
    if (existing?.kind === 'directory') return { reason: 'the target has a directory at this path' };
    if (existing?.kind === 'file') {
      if (existing.content === file.content) {
        done('identical');
        return { hash, size };
      }
      if (!options.overwrite)
        return { reason: 'the target has this file with other content (use overwrite to replace it)' };
    }
    if (options.dryRun) {
      done('copied');
      return { hash, size };
    }
    try {
      await target.write(
        entry.path,
        file.content,
        existing ? { version: existing.version } : { absent: true },
        ['CONFLICT', 'PATH_CONFLICT'],
      );
      done('copied');
      return { hash, size };
    } catch (error) {
      if (isMemoryToolError(error) && error.code === 'PATH_CONFLICT') {
        const at =
          error.path === entry.path
            ? 'a directory at this path'
            : `a file at ${memoryPath(error.path ?? '')}`;
        return { reason: `the target has ${at}, where this file cannot go` };
      }
      // CONFLICT: the target file changed between the read and the write: look again.
      if (!isMemoryToolError(error) || error.code !== 'CONFLICT') throw error;
    }
  }
  return { reason: 'the target file kept changing during the copy' };
}
