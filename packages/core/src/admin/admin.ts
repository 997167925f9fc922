// The operator's handle on a whole backend, beside the stores of its namespaces: list the
// namespaces, see what one holds, erase one, and run the upkeep (expiry and retention) over all of
// them. The same shape on every adapter, since it is written once over the driver's admin methods;
// each driver call goes through an engine gate (one deadline per batch, BACKEND errors as usual)
// and does a bounded amount of work, so no call scans or erases a whole backend at once.

import type { ChangeRecord, DriverUsage, MemoryDriver } from '../driver/contract.js';
import { positiveInteger, positiveNumber } from '../driver/options.js';
import { Engine } from '../engine/engine.js';
import type { Operation } from '../engine/operation.js';
import { MemoryToolError } from '../errors.js';
import { badArgument, parseTime, type TimeInput } from '../history/versions.js';
import { NAMESPACE_RULE, validateNamespace } from '../namespace.js';
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_VIEW_CHARS,
  DEFAULT_TIMEOUT_MS,
  type EngineOptions,
  type ExpireOptions,
  type HistoryOptions,
  historyOption,
} from '../store-options.js';
import type { Actor } from '../tool.js';

/** The actor of the deletions a sweep records. */
export const SWEEP_ACTOR: Actor = { type: 'service', id: 'memdir' };
/** Default of {@link MemoryAdminOptions.batch}. */
export const DEFAULT_ADMIN_BATCH = 500;
/** Default of `listNamespaces`' `limit`. */
const DEFAULT_NAMESPACE_LIMIT = 100;
const MAX_NAMESPACE_LIMIT = 1_000;
const DAY_MS = 86_400_000;
/** A drop whose batches remove nothing this many times in a row is stuck (writers keep refilling it). */
const STALLED_BATCHES = 3;

/** Options of {@link createMemoryAdmin}: the defaults of its sweeps, and how it calls the driver. */
export interface MemoryAdminOptions {
  /**
   * The expiry `sweep()` applies (give the stores' `expire` option): files not changed (or, where
   * the stores set `refreshOnRead`, not read) for `afterDays` are removed.
   * @default undefined (nothing expires)
   */
  expire?: ExpireOptions | undefined;
  /**
   * The retention `sweep()` applies to versions (give the stores' `history` option); `false` prunes
   * nothing and records the sweep's deletions in no history.
   * @default { keepVersions: 20, keepDays: 30 } (where the driver has history)
   */
  history?: false | HistoryOptions | undefined;
  /**
   * The most files and versions one driver call of `dropNamespace` or `sweep` removes.
   * @default 500
   */
  batch?: number | undefined;
  /**
   * The longest one driver call (one batch) may take, in milliseconds.
   * @default 5000
   */
  timeoutMs?: number | undefined;
}

/** What a namespace holds (`usage`). */
export interface NamespaceUsage {
  /** The namespace, or null for the backend's default space (stores without a namespace). */
  readonly namespace: string | null;
  /** Files, hidden ones included. */
  readonly files: number;
  /** UTF-8 bytes of all files. */
  readonly bytes: number;
  /** Versions kept (0 without history). */
  readonly versions: number;
  /** When a file last changed (ISO 8601, the backend's clock), or null when none ever did. */
  readonly lastChangeAt: string | null;
}

/** Which namespaces `listNamespaces` returns. */
export interface NamespaceQuery {
  /** Only names that start with this. @default every name */
  prefix?: string | undefined;
  /** The `next` of the previous page. @default the first name */
  cursor?: string | undefined;
  /** The most names on one page, 1 to 1,000. @default 100 */
  limit?: number | undefined;
}

/** A page of namespace names, in byte order. */
export interface NamespacePage {
  readonly namespaces: readonly string[];
  /** Pass as `cursor` for the next page; null when there is none. */
  readonly next: string | null;
}

/** Where `dropNamespace` reports progress, after each batch. */
export interface DropProgress {
  readonly namespace: string;
  /** Items (files, versions, and what else the backend keeps) removed so far. */
  readonly removed: number;
  readonly batches: number;
}

/** Options of `sweep`; each overrides the admin's own. */
export interface SweepOptions {
  /** The expiry to apply; `false`: expire nothing. @default the admin's `expire` */
  expire?: false | ExpireOptions | undefined;
  /** The retention to apply; `false`: prune nothing. @default the admin's `history` */
  history?: false | HistoryOptions | undefined;
  /**
   * The time the sweep judges ages at: files expire when last changed before `now - afterDays`,
   * versions are pruned by their age at `now`. For tests and catching up.
   * @default now (this machine's clock for expiry, the backend's for retention)
   */
  now?: TimeInput | undefined;
  /** Called after each namespace is swept. */
  onProgress?: ((progress: SweepProgress) => void) | undefined;
}

/** Where `sweep` reports progress. */
export interface SweepProgress {
  /** The namespace just swept (null: the default space). */
  readonly namespace: string | null;
  /** Namespaces swept so far, this one included. */
  readonly namespaces: number;
  readonly expired: number;
  readonly pruned: number;
}

/** What `sweep` did over the whole backend. */
export interface SweepReport {
  /** Namespaces swept (the default space counts as one). */
  readonly namespaces: number;
  /** Files removed because they expired (each recorded as a deletion when history is on). */
  readonly expired: number;
  /** Versions removed by retention. */
  readonly pruned: number;
}

/** The operator's handle on a backend's namespaces (see {@link createMemoryAdmin}). */
export interface MemoryAdmin {
  /** The namespaces that hold anything (files or versions), in byte order, a page at a time. */
  listNamespaces(query?: NamespaceQuery): Promise<NamespacePage>;
  /** What `namespace` holds (omitted: the default space), from the backend's counters. */
  usage(namespace?: string): Promise<NamespaceUsage>;
  /**
   * Erases `namespace`: every file, folder, version and whatever the backend keeps for it, in
   * bounded batches until nothing is left, then checks that nothing is. Run it again after a crash:
   * it finishes what was started. Other namespaces are untouched, also those whose name starts
   * with this one's.
   * @returns how many items were removed.
   */
  dropNamespace(
    namespace: string,
    options?: { onProgress?: ((progress: DropProgress) => void) | undefined },
  ): Promise<{ readonly removed: number }>;
  /**
   * The upkeep of every namespace and the default space, in bounded batches: expiry (files removed,
   * each recorded as a `deleted` version by actor `{ type: 'service', id: 'memdir' }`, command
   * `sweep`), then retention (versions pruned). Until it runs, an expired file reads as usual.
   */
  sweep(options?: SweepOptions): Promise<SweepReport>;
  /** Closes what the admin made (nothing, unless made by `createOwningAdmin`). Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function unsupported(): MemoryToolError {
  return new MemoryToolError(
    'UNSUPPORTED',
    "No admin operations: this store's driver has none (capabilities.admin is not set).",
  );
}

function namespaceArgument(name: unknown, what = 'namespace'): string {
  try {
    return validateNamespace(name as string);
  } catch {
    throw badArgument(`${what} must be a namespace name (${NAMESPACE_RULE}), got ${JSON.stringify(name)}`);
  }
}

function expireOption(expire: ExpireOptions | false | undefined): ExpireOptions | undefined {
  if (expire === undefined || expire === false) return undefined;
  positiveNumber('core', 'expire.afterDays', expire.afterDays ?? Number.NaN, 0);
  return expire;
}

/**
 * An admin over `driver`'s namespaces (for `createRedisAdmin`, `memdir sweep` and the like). The
 * driver must have `capabilities.admin` for the methods to work (`UNSUPPORTED` otherwise); it stays
 * open: `close()` closes nothing of it.
 * @throws TypeError for an invalid option.
 */
export function createMemoryAdmin(driver: MemoryDriver, options: MemoryAdminOptions = {}): MemoryAdmin {
  return makeAdmin(driver, options, async () => {});
}

/** For adapters: an admin over a driver the adapter made, whose `close()` closes that driver too. */
export function createOwningAdmin(driver: MemoryDriver, options: MemoryAdminOptions = {}): MemoryAdmin {
  try {
    return makeAdmin(driver, options, () => driver.close());
  } catch (error) {
    void driver.close();
    throw error;
  }
}

function makeAdmin(
  driver: MemoryDriver,
  options: MemoryAdminOptions,
  release: () => Promise<void>,
): MemoryAdmin {
  const { capabilities } = driver;
  const batch = positiveInteger('core', 'batch', options.batch, DEFAULT_ADMIN_BATCH);
  const timeoutMs = positiveInteger('core', 'timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const settings: EngineOptions = {
    overwrite: true,
    maxFileBytes: DEFAULT_MAX_FILE_BYTES,
    maxViewChars: DEFAULT_MAX_VIEW_CHARS,
    timeoutMs,
    // An admin batch waits behind no queue of other writers: it is bounded by timeoutMs alone.
    queueTimeoutMs: timeoutMs,
    quota: undefined,
    history: undefined,
    touch: false,
    actor: undefined,
  };
  const defaults = {
    expire: expireOption(options.expire),
    history: historyOption(options.history, capabilities),
  };
  const gate = new Engine(driver, settings, release);

  /** Runs one driver call (one batch) through the gate: its own deadline, signal and operation id. */
  function call<T>(method: string, change: boolean, run: (operation: Operation) => Promise<T>): Promise<T> {
    if (!capabilities.admin) throw unsupported();
    const operation = gate.operation('sweep');
    return operation.run(method, change, [], () => run(operation));
  }

  /** Runs `work` on the driver of `namespace` (null: the driver's own space), closing it after. */
  async function within<T>(namespace: string | null, work: (files: MemoryDriver) => Promise<T>): Promise<T> {
    if (namespace === null) return work(driver);
    const files = driver.namespace(namespace);
    try {
      return await work(files);
    } finally {
      await files.close();
    }
  }

  async function listNamespaces(query: NamespaceQuery = {}): Promise<NamespacePage> {
    const prefix = query.prefix;
    if (prefix !== undefined && (typeof prefix !== 'string' || !/^[A-Za-z0-9._\-@+=]{0,128}$/.test(prefix))) {
      throw badArgument(
        `prefix must be the start of a namespace name (${NAMESPACE_RULE}), got ${JSON.stringify(prefix)}`,
      );
    }
    const after = query.cursor === undefined ? undefined : namespaceArgument(query.cursor, 'cursor');
    const limit = query.limit ?? DEFAULT_NAMESPACE_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_NAMESPACE_LIMIT) {
      throw badArgument(`limit must be an integer from 1 to ${MAX_NAMESPACE_LIMIT}, got ${String(limit)}`);
    }
    const page = await call('listNamespaces', false, (operation) =>
      driver.listNamespaces!({ prefix: prefix || undefined, after, limit }, operation.readOptions()),
    );
    return { namespaces: page.names, next: page.next };
  }

  async function driverUsage(namespace: string | null): Promise<DriverUsage> {
    return within(namespace, (files) =>
      call('usage', false, (operation) => files.usage!(operation.readOptions())),
    );
  }

  async function usage(namespace?: string): Promise<NamespaceUsage> {
    const name = namespace === undefined ? null : namespaceArgument(namespace);
    const counted = await driverUsage(name);
    const lastChangeAt = counted.lastChangeAt === null ? null : new Date(counted.lastChangeAt).toISOString();
    return {
      namespace: name,
      files: counted.files,
      bytes: counted.bytes,
      versions: counted.versions,
      lastChangeAt,
    };
  }

  async function dropNamespace(
    namespace: string,
    dropOptions: { onProgress?: ((progress: DropProgress) => void) | undefined } = {},
  ): Promise<{ removed: number }> {
    const name = namespaceArgument(namespace);
    let removed = 0;
    let batches = 0;
    let stalled = 0;
    for (;;) {
      const step = await call('dropNamespace', true, (operation) =>
        driver.dropNamespace!(name, {
          deadline: operation.deadline,
          get signal() {
            return operation.signal;
          },
          batch,
        }),
      );
      removed += step.removed;
      batches += 1;
      dropOptions.onProgress?.({ namespace: name, removed, batches });
      if (step.done) break;
      stalled = step.removed === 0 ? stalled + 1 : 0;
      if (stalled >= STALLED_BATCHES) {
        throw new MemoryToolError(
          'BACKEND',
          `Dropping namespace ${name} made no progress: ${STALLED_BATCHES} batches in a row removed nothing. Run it again.`,
          {
            reason: 'busy',
            outcome: 'unknown',
          },
        );
      }
    }
    // The driver says it is done: check that nothing of the namespace is left.
    const left = await driverUsage(name);
    const listed = await listNamespaces({ prefix: name, limit: 1 });
    if (left.files > 0 || left.versions > 0 || listed.namespaces[0] === name) {
      throw new MemoryToolError(
        'BACKEND',
        `Namespace ${name} still holds ${count(left.files, 'file')} and ${count(left.versions, 'version')} after it was dropped: something wrote to it meanwhile, or the driver missed some. Run it again.`,
        { reason: 'unexpected', outcome: 'unknown' },
      );
    }
    return { removed };
  }

  async function sweep(sweepOptions: SweepOptions = {}): Promise<SweepReport> {
    if (!capabilities.admin) throw unsupported();
    const expire = sweepOptions.expire === undefined ? defaults.expire : expireOption(sweepOptions.expire);
    const retention =
      sweepOptions.history === undefined
        ? defaults.history
        : historyOption(sweepOptions.history, capabilities);
    const given = sweepOptions.now === undefined ? undefined : parseTime(sweepOptions.now, 'now');
    const expireBefore = expire && (given ?? Date.now()) - expire.afterDays * DAY_MS;
    const record: ChangeRecord | undefined = retention && {
      actor: SWEEP_ACTOR,
      command: 'sweep',
      toolUseId: null,
      keepVersions: retention.keepVersions,
      keepDays: retention.keepDays,
    };
    const report = { namespaces: 0, expired: 0, pruned: 0 };
    if (expireBefore === undefined && !retention) return report;

    const sweepOne = async (namespace: string | null) => {
      await within(namespace, async (files) => {
        for (let done = false; !done; ) {
          const step = await call('sweep', true, (operation) =>
            files.sweep!({
              deadline: operation.deadline,
              get signal() {
                return operation.signal;
              },
              op: operation.id,
              expireBefore,
              retention,
              now: given,
              record,
              batch,
            }),
          );
          report.expired += step.expired;
          report.pruned += step.pruned;
          done = step.done;
        }
      });
      report.namespaces += 1;
      sweepOptions.onProgress?.({ namespace, ...report });
    };

    await sweepOne(null);
    for (let cursor: string | undefined; ; ) {
      const page = await listNamespaces({ cursor, limit: DEFAULT_NAMESPACE_LIMIT });
      for (const name of page.namespaces) await sweepOne(name);
      if (page.next === null) break;
      cursor = page.next;
    }
    return report;
  }

  return {
    listNamespaces,
    usage,
    dropNamespace,
    sweep,
    close: () => gate.close(),
    [Symbol.asyncDispose]: () => gate.close(),
  };
}
