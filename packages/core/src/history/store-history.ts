// The history methods of a store made by `createMemoryStore`: reading versions, a view of the past,
// restore and redaction, each one call through the engine's gate (one deadline, the operation id,
// the record of who did it). They are the operator's, never the model's: the model's protocol has
// no history command.

import type {
  DriverPointInTime,
  DriverRestoreOptions,
  DriverVersionQuery,
  MemoryDriver,
} from '../driver/contract.js';
import type { Engine } from '../engine/engine.js';
import type { Operation } from '../engine/operation.js';
import { isMemoryToolError, MemoryToolError } from '../errors.js';
import type { DriverPath } from '../path.js';
import { toMemoryPath } from '../path.js';
import { readOnlyStore } from '../read-only.js';
import type { MemoryRecords } from '../records/store-records.js';
import type { MemoryStoreOptions } from '../store-options.js';
import type { MemoryStore } from '../tool.js';
import { PastDriver } from './as-of.js';
import {
  type HistoryPage,
  type HistoryQuery,
  type MemoryVersion,
  type MemoryVersionWithContent,
  parseId,
  parseLimit,
  parseOperations,
  parseSha256,
  parseTime,
  parseVersionId,
  type RestoreOptions,
  type TimeInput,
  toMemoryVersion,
} from './versions.js';

/**
 * A view of the past (`asOf`): a read-only store, with the records of then: each file with the id,
 * hash, size and version it had at that point (`records.get`, `records.locate`, `records.list`, as a
 * store's records of the present are read).
 */
export interface PastStore extends MemoryStore {
  readonly records: Pick<MemoryRecords, 'get' | 'locate' | 'list'>;
}

/** What a store made by `createMemoryStore` adds to the six commands: its history. */
export interface MemoryHistory {
  /**
   * Versions matching `query`, newest first, a page at a time.
   * @throws MemoryToolError `UNSUPPORTED` without history; `INVALID_INPUT` or `INVALID_PATH` for a bad query.
   */
  history(query?: HistoryQuery): Promise<HistoryPage>;
  /**
   * One version with its content.
   * @throws MemoryToolError `NOT_FOUND` for an unknown (or pruned) id; `UNSUPPORTED` without history.
   */
  version(id: string): Promise<MemoryVersionWithContent>;
  /**
   * The memory as it was at `point` (a time, or a version id: that version and everything before
   * it), as a read-only store: `view` shows the tree then, every change command fails with
   * `READ_ONLY`; its `records` are the files' records then. What retention pruned is missing from it
   * (docs/history.md).
   * @throws MemoryToolError `NOT_FOUND` for an unknown version id; `UNSUPPORTED` without history.
   */
  asOf(point: TimeInput): Promise<PastStore>;
  /**
   * Writes a version's content back, at its path or `options.path`, as a new `restored` version; a
   * deleted file comes back with its file id.
   * @throws MemoryToolError `CONFLICT` when `expectSha256` does not hold; `NOT_FOUND` when the
   *   version is unknown or has no content (a deletion, redacted); `PATH_CONFLICT`, `TOO_LARGE`,
   *   `QUOTA_EXCEEDED` as `create` would; `UNSUPPORTED` without history.
   */
  restore(id: string, options?: RestoreOptions): Promise<MemoryVersion>;
  /**
   * Removes a version's content, path, size and hash for good, keeping the rest and the time of
   * redaction. The file itself is not changed.
   * @throws MemoryToolError `NOT_FOUND` for an unknown id; `UNSUPPORTED` without history.
   */
  redact(id: string): Promise<MemoryVersion>;
}

/** How the history methods open the store of a view of the past (createMemoryStore, passed in). */
export type OpenStore = (
  driver: MemoryDriver,
  options: MemoryStoreOptions,
) => MemoryStore & { readonly records: MemoryRecords };

function unsupported(engine: Engine): MemoryToolError {
  const why = engine.capabilities.history
    ? 'history is off for this store (history: false)'
    : "this store's driver keeps no history (capabilities.history is not set)";
  return new MemoryToolError('UNSUPPORTED', `No history: ${why}.`);
}

function notFound(id: string): MemoryToolError {
  return new MemoryToolError('NOT_FOUND', `Version ${id} does not exist in this store (or was pruned).`);
}

/**
 * A restore's options: the change's, and where to and what must hold. One literal with the signal
 * as a getter (never a spread, which would read it and make the AbortController).
 */
function restoreOptions(
  operation: Operation,
  to: DriverPath | undefined,
  expectSha256: string | null | undefined,
): DriverRestoreOptions {
  return {
    deadline: operation.deadline,
    get signal() {
      return operation.signal;
    },
    op: operation.id,
    quota: operation.engine.options.quota,
    record: operation.record!,
    to,
    expectSha256,
    maxFileBytes: operation.engine.options.maxFileBytes,
  };
}

/** The history methods of the store whose engine is `engine`. */
export function historyMethods(engine: Engine, open: OpenStore): MemoryHistory {
  const driver = engine.driver;

  /** A new operation of this store, once history is known to be there. */
  function start(command: 'view' | 'restore', call?: RestoreOptions): Operation {
    if (!engine.options.history || !engine.capabilities.history) throw unsupported(engine);
    // Reads are run as `view` operations: only a change builds a record from the command name.
    return engine.operation(command, call && { actor: call.actor, toolUseId: call.toolUseId });
  }

  function readVersion(operation: Operation, id: string) {
    return operation.run('readVersion', false, [], () => driver.readVersion!(id, operation.readOptions()));
  }

  async function history(query: HistoryQuery = {}): Promise<HistoryPage> {
    const operation = start('view');
    const driverQuery: DriverVersionQuery = {
      path: query.path === undefined ? undefined : engine.path(query.path).driver,
      fileId: query.fileId === undefined ? undefined : parseId(query.fileId, 'fileId'),
      actor: query.actor === undefined ? undefined : parseId(query.actor, 'actor'),
      since: query.since === undefined ? undefined : parseTime(query.since, 'since'),
      until: query.until === undefined ? undefined : parseTime(query.until, 'until'),
      operations: query.operations === undefined ? undefined : parseOperations(query.operations),
      cursor: query.cursor === undefined ? undefined : parseId(query.cursor, 'cursor'),
      limit: parseLimit(query.limit),
    };
    const page = await operation.run('listVersions', false, [], () =>
      driver.listVersions!(driverQuery, operation.readOptions()),
    );
    return { versions: page.versions.map(toMemoryVersion), next: page.next };
  }

  async function version(id: string): Promise<MemoryVersionWithContent> {
    const operation = start('view');
    const found = await readVersion(operation, parseVersionId(id));
    if (!found) throw notFound(id);
    return { ...toMemoryVersion(found), content: found.content };
  }

  async function asOf(point: TimeInput): Promise<PastStore> {
    const operation = start('view');
    let at: DriverPointInTime;
    let shown: string;
    if (typeof point === 'string' && point.startsWith('memver_')) {
      if (!(await readVersion(operation, parseVersionId(point)))) throw notFound(point);
      at = { version: point };
      shown = `version ${point}`;
    } else {
      const time = parseTime(point, 'asOf');
      at = { time };
      shown = new Date(time).toISOString();
    }
    const { maxViewChars, maxFileBytes, timeoutMs } = engine.options;
    const past = open(new PastDriver(driver, at), { maxViewChars, maxFileBytes, timeoutMs, history: false });
    const { get, locate, list } = past.records;
    return {
      ...readOnlyStore(past, `it shows the memory as it was at ${shown}`),
      records: { get, locate, list },
    };
  }

  async function restore(id: string, options: RestoreOptions = {}): Promise<MemoryVersion> {
    const operation = start('restore', options);
    const versionId = parseVersionId(id);
    const to = options.path === undefined ? undefined : engine.path(options.path).driver;
    if (to === '')
      throw new MemoryToolError('PATH_CONFLICT', 'Cannot restore to /memories: it is a directory.');
    const expectSha256 = options.expectSha256 === undefined ? undefined : parseSha256(options.expectSha256);
    try {
      const restored = await operation.run(
        'restoreVersion',
        true,
        ['NOT_FOUND', 'PATH_CONFLICT', 'CONFLICT', 'TOO_LARGE', 'QUOTA_EXCEEDED'],
        () => driver.restoreVersion!(versionId, restoreOptions(operation, to, expectSha256)),
      );
      return toMemoryVersion(restored);
    } catch (error) {
      throw await restoreError(error, operation, versionId, to, expectSha256);
    }
  }

  /** The operator's message for a refused restore (only a refusal pays for the extra read). */
  async function restoreError(
    error: unknown,
    operation: Operation,
    id: string,
    to: DriverPath | undefined,
    expectSha256: string | null | undefined,
  ): Promise<unknown> {
    if (!isMemoryToolError(error) || error.path === undefined) return error;
    const path = toMemoryPath(error.path as DriverPath);
    const cannot = `Cannot restore ${id} to ${path}`;
    switch (error.code) {
      case 'NOT_FOUND': {
        const found = await readVersion(operation, id).catch(() => null);
        if (!found) return notFound(id);
        const why = found.redactedAt !== null ? 'it was redacted' : 'it records a deletion';
        return new MemoryToolError('NOT_FOUND', `Version ${id} has no content to restore: ${why}.`, {
          cause: error,
        });
      }
      case 'PATH_CONFLICT': {
        // The refusal names the directory at the target, or a file above it.
        const target = to ?? (await readVersion(operation, id).catch(() => null))?.path ?? error.path;
        const message =
          target === error.path
            ? `Cannot restore ${id} to ${path}: it is a directory. Nothing was restored.`
            : `Cannot restore ${id} to ${toMemoryPath(target)}: ${path} is a file. Nothing was restored.`;
        return new MemoryToolError('PATH_CONFLICT', message, { cause: error });
      }
      case 'CONFLICT':
        return new MemoryToolError(
          'CONFLICT',
          expectSha256 === null
            ? `${cannot}: a file is there, and expectSha256 was null. Nothing was restored.`
            : `${cannot}: the content there does not have the SHA-256 ${expectSha256}. Nothing was restored.`,
          { cause: error },
        );
      case 'TOO_LARGE':
        return new MemoryToolError(
          'TOO_LARGE',
          `${cannot}: its content is over this store's limit of ${engine.options.maxFileBytes} bytes per file. Nothing was restored.`,
          { cause: error },
        );
      default:
        return error;
    }
  }

  async function redact(id: string): Promise<MemoryVersion> {
    const operation = start('view');
    const versionId = parseVersionId(id);
    const redacted = await operation.run('redactVersion', true, [], () =>
      driver.redactVersion!(versionId, operation.changeOptions()),
    );
    if (!redacted) throw notFound(id);
    return toMemoryVersion(redacted);
  }

  return { history, version, asOf, restore, redact };
}
