// Copying every file of one store to another over the driver contract, for every backend at once:
// a move from the filesystem store to Redis, a backup before an upgrade, a staging store seeded from
// production. It streams file by file (only paths and sizes are held for the whole store), writes
// with the target's atomic primitives, can run again after an interruption (identical files are
// left alone), and ends by reading the target back and checking every file's hash (or, where the
// target's listing carries each file's MD5 as its backend computed it, by listing it once).

import type { DriverEntry, DriverQuota, MemoryDriver } from './driver/contract.js';
import { Engine } from './engine/engine.js';
import type { Operation } from './engine/operation.js';
import { isMemoryToolError } from './errors.js';
import { copyVersions } from './history/copy-history.js';
import type { DriverPath } from './path.js';
import { MEMORY_ROOT, utf8Length } from './path.js';
import { storeDriver } from './store.js';
import type { QuotaOptions } from './store-options.js';
import {
  checkActor,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_TIMEOUT_MS,
  defaultQueueTimeoutMs,
  historyOption,
} from './store-options.js';
import type { Actor, MemoryStore } from './tool.js';

/** Where {@link copyStore} reports progress. */
export interface CopyProgress {
  /**
   * `versions`: copying the history (`withHistory`); `scan`: listing the source; `copy`: writing
   * files; `verify`: reading the target back.
   */
  readonly phase: 'versions' | 'scan' | 'copy' | 'verify';
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
  /** Versions copied so far (`withHistory`). */
  readonly versions: number;
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
  /**
   * Copy the history too: every version of the source, as it is (ids, file ids, times, actors,
   * redactions), into a target whose history is empty (or holds the start of this very copy, which
   * then resumes), before the files, which then keep their file ids and get no version of their
   * own. Both drivers need history, the target `importVersions`; copy from a source nobody
   * changes meanwhile. Without it, a target with history records each file it writes as a
   * `created` version, command `import`.
   * @default false
   */
  withHistory?: boolean | undefined;
  /**
   * The target's quota (the `quota` its store is opened with): a file that would take the target
   * past it is not written, and is reported with the text its commands would give. Needs a target
   * driver that enforces quotas (`capabilities.quotas`).
   * @default no quota
   */
  quota?: QuotaOptions | undefined;
  /**
   * Who the versions the copy writes into a target with history are made by (the target store's
   * `actor`). Not used with `withHistory`, whose versions keep the source's actors.
   * @default undefined (the versions record no actor)
   */
  actor?: Actor | undefined;
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
   * True when every source file was read back from the target with the same size and SHA-256, or
   * listed there with the same size and the MD5 its backend computed (a target with
   * `capabilities.listsContentMd5`); false in a dry run, after an interruption, or with problems.
   */
  readonly verified: boolean;
  /**
   * Files the verification checked from the target's listing (size and the MD5 its backend
   * computed) rather than read back; 0 unless the target has `capabilities.listsContentMd5`.
   */
  readonly verifiedFromListing: number;
  /** Verification failures: a target file missing or different after the copy. */
  readonly mismatches: readonly CopyProblem[];
  /** Versions copied (`withHistory`; 0 otherwise). */
  readonly versions: number;
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

/** The part of `node:crypto` the copy uses, where the runtime has it. */
interface NodeHashing {
  createHash(algorithm: 'sha256' | 'md5'): {
    update(data: string, encoding: 'utf8'): { digest(encoding: 'hex'): string };
  };
}

// Node, Bun and Deno hand out `node:crypto` without an import (`process.getBuiltinModule`, Node >=
// 20.16): its hash takes the string as is, with no UTF-8 copy and no round trip to a worker thread,
// about 20 times faster than `crypto.subtle` for small files. Elsewhere, Web Crypto.
const nodeHashing = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeHashing | undefined;

async function sha256(content: string): Promise<string> {
  if (nodeHashing) return nodeHashing.createHash('sha256').update(content, 'utf8').digest('hex');
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(content));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The MD5 of `content`'s UTF-8 bytes, in hex, to compare with a listing's `contentMd5`; undefined
 * where the runtime has no MD5 (Web Crypto has none; a FIPS build refuses it): the file is then
 * read back instead.
 */
function md5(content: string): string | undefined {
  try {
    return nodeHashing?.createHash('md5').update(content, 'utf8').digest('hex');
  } catch {
    return undefined;
  }
}

/** True when the target's listing says `entry` holds exactly the file of `size` bytes and MD5 `hash`. */
function listedAs(entry: DriverEntry | undefined, size: number, hash: string | undefined): boolean {
  return hash !== undefined && entry?.contentMd5 === hash && entry.size === size;
}

function byPath(entries: readonly DriverEntry[]): Map<string, DriverEntry> {
  return new Map(entries.map((entry) => [entry.path, entry]));
}

function memoryPath(path: string): string {
  return `${MEMORY_ROOT}/${path}`;
}

/** `quota` checked, for the target's engine; undefined for none. @throws TypeError */
function targetQuota(quota: QuotaOptions | undefined, driver: MemoryDriver): DriverQuota | undefined {
  if (quota === undefined || (quota.maxBytes === undefined && quota.maxFiles === undefined)) return undefined;
  for (const [name, value] of Object.entries(quota)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new TypeError(`copyStore: quota.${name} must be a positive integer, got ${String(value)}`);
    }
  }
  if (!driver.capabilities.quotas) {
    throw new TypeError(
      "copyStore: the target's driver cannot enforce quotas (capabilities.quotas is not set)",
    );
  }
  return { maxBytes: quota.maxBytes, maxFiles: quota.maxFiles };
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

/**
 * The most bytes of file content a copy holds at once, summed over the files in flight: with large
 * files, fewer are copied at once than `concurrency` says, so memory stays bounded (one file larger
 * than this still goes, alone).
 */
const MAX_BYTES_IN_FLIGHT = 4 * 1024 * 1024;

/**
 * Runs `task` for each item with at most `limit` at once and at most {@link MAX_BYTES_IN_FLIGHT}
 * bytes (by `bytesOf`) in flight, stopping early when `stop()` says so.
 */
async function forEach<T>(
  items: readonly T[],
  limit: number,
  stop: () => boolean,
  bytesOf: (item: T) => number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let inFlight = 0;
  let waiting: Array<() => void> = [];
  const worker = async () => {
    while (next < items.length && !stop()) {
      const bytes = bytesOf(items[next]!);
      if (inFlight > 0 && inFlight + bytes > MAX_BYTES_IN_FLIGHT) {
        // Wait for a file in flight to finish, then look again.
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const item = items[next++]!;
      inFlight += bytes;
      try {
        await task(item);
      } finally {
        inFlight -= bytes;
        const woken = waiting;
        waiting = [];
        for (const wake of woken) wake();
      }
    }
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
  const withHistory = options.withHistory === true;
  const engineOptions = {
    overwrite: true,
    maxFileBytes: Number.MAX_SAFE_INTEGER,
    maxViewChars: 1,
    timeoutMs,
    // As a store with the default: a write waiting behind other writers that make progress waits on.
    queueTimeoutMs: defaultQueueTimeoutMs(timeoutMs),
    quota: undefined,
    history: undefined,
    touch: false,
    actor: undefined,
  };
  const nothingToRelease = async () => {};
  const targetDriver = driverOf(to, 'target');
  const source = new Engine(driverOf(from, 'source'), engineOptions, nothingToRelease);
  // A target with history records what the copy writes, unless the versions come from the source.
  const targetHistory =
    withHistory || options.dryRun ? undefined : historyOption(undefined, targetDriver.capabilities);
  // The target's own quota, judged by its driver in the same step as each write.
  const quota = targetQuota(options.quota, targetDriver);
  const target = new Engine(
    targetDriver,
    { ...engineOptions, history: targetHistory, quota, actor: checkActor(options.actor) },
    nothingToRelease,
  );
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

  const state = {
    phase: 'scan' as CopyProgress['phase'],
    files: 0,
    bytes: 0,
    copied: 0,
    identical: 0,
    versions: 0,
  };
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

  // The history first, so that the files written next find their versions there.
  let fileIds: ReadonlyMap<string, string> = new Map();
  if (withHistory && !options.dryRun) {
    state.phase = 'versions';
    fileIds = (
      await copyVersions(source, target, (versions) => {
        state.versions = versions;
        progress();
      })
    ).fileIds;
    progress(true);
    state.phase = 'scan';
  }

  // Scan: paths and sizes only, of both sides. What the target holds already is known from one
  // listing, so a file it does not hold is written without reading the target first (a round trip
  // per file saved); one that appears there meanwhile is caught by the write's `{ absent }`.
  const [entries, targetEntries] = await Promise.all([
    source.operation('import').list('' as DriverPath, { skipHidden: false }),
    target.operation('import').list('' as DriverPath, { skipHidden: false }),
  ]);
  const inTarget = byPath(targetEntries);
  // A target whose listing carries each file's MD5: identical files are known from it, and the
  // verification lists the target once instead of reading every file back.
  const listsMd5 = target.capabilities.listsContentMd5 === true;
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  totalFiles = entries.length;
  totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  state.files = totalFiles;
  state.bytes = totalBytes;
  progress(true);

  // Copy.
  Object.assign(state, { phase: 'copy', files: 0, bytes: 0 });
  const hashes = new Map<string, Copied>();
  const sizeOf = (entry: DriverEntry) => entry.size;
  await forEach(entries, concurrency, stopped, sizeOf, async (entry) => {
    const copy = {
      entry,
      listed: inTarget.get(entry.path),
      listsMd5,
      options,
      limits,
      fileId: fileIds.get(entry.path),
    };
    const problem = await copyOne(source.operation('import'), target.operation('import'), copy, (kind) => {
      if (kind === 'copied') state.copied++;
      else state.identical++;
    }).catch((error: unknown) => ({ reason: reasonOf(error) }));
    if (problem && 'reason' in problem)
      problems.push({ path: memoryPath(entry.path), reason: problem.reason });
    else if (problem) hashes.set(entry.path, problem);
    state.files++;
    state.bytes += entry.size;
    progress();
  });
  const interrupted = stopped() && state.files < totalFiles;
  progress(true);

  // Verify: read every copied or identical file back from the target, but for those its listing
  // now shows with the MD5 and size they were copied with.
  const mismatches: CopyProblem[] = [];
  let extraInTarget = 0;
  let verifiedFromListing = 0;
  if (!options.dryRun && !interrupted) {
    Object.assign(state, { phase: 'verify', files: 0, bytes: 0 });
    const checked = [...hashes.entries()];
    const listedNow = listsMd5
      ? byPath(await target.operation('import').list('' as DriverPath, { skipHidden: false }))
      : undefined;
    await forEach(
      checked,
      concurrency,
      () => false,
      ([, expected]) => expected.size,
      async ([path, expected]) => {
        try {
          if (listedAs(listedNow?.get(path), expected.size, expected.md5)) {
            verifiedFromListing++;
            state.files++;
            state.bytes += expected.size;
            progress();
            return;
          }
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
    for (const entry of targetEntries) if (!sourcePaths.has(entry.path)) extraInTarget++;
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
    verifiedFromListing,
    mismatches,
    versions: state.versions,
  };
}

/** One file to copy: its listing entry, the target's entry at its path (if any), and the rules. */
interface FileCopy {
  readonly entry: DriverEntry;
  readonly listed: DriverEntry | undefined;
  /** True when the target's listing carries MD5s: the file's MD5 is then kept for the verification. */
  readonly listsMd5: boolean;
  readonly options: CopyOptions;
  readonly limits: TargetLimits;
  /** The file id its versions carry, when the history was copied first. */
  readonly fileId: string | undefined;
}

/** A file the target holds: its size, SHA-256 and, for a target that lists MD5s, its MD5. */
interface Copied {
  readonly hash: string;
  readonly size: number;
  readonly md5: string | undefined;
}

/**
 * Copies one file. Resolves to its hashes and size once the target holds it (written or already
 * identical), or to the reason it was not copied.
 */
async function copyOne(
  source: Operation,
  target: Operation,
  { entry, listed, listsMd5, options, limits, fileId }: FileCopy,
  done: (kind: 'copied' | 'identical') => void,
): Promise<Copied | { reason: string }> {
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
  const copied: Copied = {
    hash: await sha256(file.content),
    size,
    md5: listsMd5 ? md5(file.content) : undefined,
  };
  // Listed with this very content: identical, and not read.
  if (listedAs(listed, size, copied.md5)) {
    done('identical');
    return copied;
  }
  // Not in the target's listing: written where nothing is, without reading first.
  let known: Awaited<ReturnType<Operation['read']>> | undefined = listed ? undefined : null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = known === undefined ? await target.read(entry.path) : known;
    known = undefined;
    if (existing?.kind === 'directory') return { reason: 'the target has a directory at this path' };
    if (existing?.kind === 'file') {
      if (existing.content === file.content) {
        done('identical');
        return copied;
      }
      if (!options.overwrite)
        return { reason: 'the target has this file with other content (use overwrite to replace it)' };
    }
    if (options.dryRun) {
      done('copied');
      return copied;
    }
    try {
      await target.write(
        entry.path,
        file.content,
        existing ? { version: existing.version } : { absent: true },
        ['CONFLICT', 'PATH_CONFLICT', 'QUOTA_EXCEEDED'],
        fileId,
      );
      done('copied');
      return copied;
    } catch (error) {
      if (isMemoryToolError(error) && error.code === 'QUOTA_EXCEEDED') return { reason: error.message };
      if (isMemoryToolError(error) && error.code === 'PATH_CONFLICT') {
        if (error.path === entry.path) return { reason: 'the target has a directory at this path' };
        return {
          reason: `the target has a file at ${memoryPath(error.path ?? '')}, where this file cannot go`,
        };
      }
      // CONFLICT: the target file changed (or appeared) between the read and the write: look again.
      if (!isMemoryToolError(error) || error.code !== 'CONFLICT') throw error;
    }
  }
  return { reason: 'the target file kept changing during the copy' };
}
