// The identity methods of a store made by `createMemoryStore` (`store.records`; docs/identity.md):
// a file's record by path or by id, listings in UTF-8 byte order a page at a time, an update by id
// under an expected SHA-256, and a remove under an expectation. Each is one call through the
// engine's gate (one deadline, one operation id, the record of who did it), on the driver's
// primitives when it declares them, else on the fallbacks of `fallback.ts`. They are for programs
// (the memory stores API, sync, the inspector), never the model's protocol.
import type {
  DriverFolderMarker,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
  MemoryDriver,
} from '../driver/contract.js';
import { sha256Hex } from '../driver/history.js';
import { isFileId, MAX_RECORD_PAGE } from '../driver/records.js';
import type { Engine } from '../engine/engine.js';
import type { Operation } from '../engine/operation.js';
import { isMemoryToolError, MemoryToolError } from '../errors.js';
import { type DriverPath, type MemoryPath, toMemoryPath, utf8Length } from '../path.js';
import type { MemoryCallOptions, MemoryStore } from '../tool.js';
import { listRecordsFallback, locateFallback, readRecordFallback } from './fallback.js';

/** A file's record as a store gives it (paths as the model sees them). */
export interface MemoryRecord {
  readonly kind: 'file';
  /** `mem_...`: kept across renames and content changes (see docs/identity.md for drivers without records). */
  readonly id: string;
  readonly path: MemoryPath;
  /** Lowercase hex SHA-256 of the content's UTF-8 bytes. */
  readonly sha256: string;
  /** UTF-8 bytes. */
  readonly size: number;
  /** Server ms; null only when a driver without records cannot say. */
  readonly createdAt: number | null;
  readonly changedAt: number | null;
  /** The version holding the current content (history on), or null. */
  readonly versionId: string | null;
  /** The content, when asked for. */
  readonly content?: string | undefined;
}

/** A folder in a listing with a depth: it holds files deeper than the depth. */
export interface MemoryFolder {
  readonly kind: 'folder';
  readonly path: MemoryPath;
}

/** Which records `records.list` gives. */
export interface RecordQuery {
  /** A directory (`/memories/...`): what lies beneath it. @default '/memories' */
  path?: string | undefined;
  /** 0: every file beneath, flat; n >= 1: files at most n levels down and a folder item per deeper folder. @default 0 */
  depth?: number | undefined;
  /** The `next` of the previous page. */
  cursor?: string | undefined;
  /** 1 to 1,000. @default 100 */
  limit?: number | undefined;
}

/** A page of records. */
export interface RecordPage {
  readonly items: readonly (MemoryRecord | MemoryFolder)[];
  /** The cursor of the next page, or null at the end. A short page may still have one. */
  readonly next: string | null;
}

/** The record `records.listBeside` reads beside its page: the file at `path` of another store. */
export interface RecordBeside {
  /** A store made by `createMemoryStore` (one round trip when it is on the same backend). */
  readonly store: MemoryStore & { readonly records: Pick<MemoryRecords, 'get'> };
  /** A file's path in that store (`/memories/...`). */
  readonly path: string;
  /** Give its content too. */
  readonly content?: boolean | undefined;
}

/** What `records.listBeside` read. */
export interface RecordsBeside {
  readonly page: RecordPage;
  /** The record at the other store's path, or null when no file is there. */
  readonly record: MemoryRecord | null;
}

/** Options of `records.get` and `records.locate`. */
export interface RecordReadOptions {
  /** Give the content too. */
  content?: boolean | undefined;
}

/** Options of `records.update` and `records.remove`. */
export interface RecordChangeOptions extends MemoryCallOptions {
  /** The SHA-256 (64 lowercase hex digits) the current content must have, or the call changes nothing. */
  expectSha256?: string | undefined;
}

/** What `records.update` did. */
export interface RecordUpdate {
  readonly record: MemoryRecord;
  /** False when the file already had the requested content and path: nothing was written. */
  readonly changed: boolean;
}

/** The identity methods of a store (`store.records`). */
export interface MemoryRecords {
  /** The record of the file at `path`, or null when no file is there. */
  get(path: string, options?: RecordReadOptions): Promise<MemoryRecord | null>;
  /**
   * A new file at `path` with `content` (command `create`, one version), never over anything: a file
   * already there is `ALREADY_EXISTS`, a folder there or a file above it `PATH_CONFLICT`.
   * @returns its record.
   * @throws MemoryToolError `ALREADY_EXISTS`, `PATH_CONFLICT` (named by `path`), `TOO_LARGE`,
   *   `QUOTA_EXCEEDED`, `INVALID_INPUT` / `INVALID_PATH` for bad input.
   */
  create(path: string, content: string, options?: MemoryCallOptions): Promise<MemoryRecord>;
  /** The record of the file with id `id`, or null when there is none here (deleted, made up, another namespace's). */
  locate(id: string, options?: RecordReadOptions): Promise<MemoryRecord | null>;
  /** A page of records in the UTF-8 byte order of their paths. */
  list(query?: RecordQuery): Promise<RecordPage>;
  /**
   * A page of records (as `list(query)`) and the record of the file at `beside.path` in the store
   * `beside.store` (as its `records.get(path, { content })`): in one driver call, one round trip,
   * when this store's driver reads the other store's namespace in the same call
   * (`listRecordsBeside`: PostgreSQL, for two namespaces of one schema); else both calls at once.
   * The one call runs under this store's deadline and telemetry; the other store's own are not used.
   */
  listBeside(query: RecordQuery | undefined, beside: RecordBeside): Promise<RecordsBeside>;
  /**
   * New content, a new path or both for the file `id`, in one step and one version (command
   * `update`) where the driver allows.
   * @throws MemoryToolError `NOT_FOUND` (no such file), `CONFLICT` (`expectSha256` does not hold),
   *   `PATH_CONFLICT` / `ALREADY_EXISTS` (the new path is in the way of a file or folder, named by
   *   `path`), `TOO_LARGE`, `QUOTA_EXCEEDED`, `INVALID_INPUT` / `INVALID_PATH` for bad input.
   */
  update(
    id: string,
    change: { content?: string | undefined; path?: string | undefined },
    options?: RecordChangeOptions,
  ): Promise<RecordUpdate>;
  /**
   * Removes the file `id`, if its content still has `expectSha256` when given.
   * @returns the record removed, or null when there was no such file.
   * @throws MemoryToolError `CONFLICT` when `expectSha256` does not hold (nothing removed).
   */
  remove(id: string, options?: RecordChangeOptions): Promise<MemoryRecord | null>;
}

/** How many times an id is looked up again when its file moved between the lookup and the change. */
const RELOCATE_TRIES = 5;

function toRecord(record: DriverRecord): MemoryRecord {
  const shown: MemoryRecord = {
    kind: 'file',
    id: record.fileId,
    path: toMemoryPath(record.path),
    sha256: record.sha256,
    size: record.size,
    createdAt: record.createdAt,
    changedAt: record.changedAt,
    versionId: record.versionId,
  };
  return record.content === undefined ? shown : { ...shown, content: record.content };
}

function toFolder(folder: DriverFolderMarker): MemoryFolder {
  return { kind: 'folder', path: toMemoryPath(folder.path) };
}

function badInput(message: string): MemoryToolError {
  return new MemoryToolError('INVALID_INPUT', message);
}

function notFound(id: string): MemoryToolError {
  return new MemoryToolError('NOT_FOUND', `No memory has the id ${JSON.stringify(id)} in this store.`, {
    path: '',
  });
}

function sha256Option(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) {
    throw badInput(
      `expectSha256 must be a SHA-256 in 64 lowercase hex digits, got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value}`,
    );
  }
  return value;
}

function limitOption(value: unknown): number {
  if (value === undefined) return 100;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_RECORD_PAGE) {
    throw badInput(`limit must be an integer from 1 to ${MAX_RECORD_PAGE}, got ${String(value)}`);
  }
  return value;
}

function depthOption(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 1024) {
    throw badInput(`depth must be an integer from 0 to 1024, got ${String(value)}`);
  }
  return value;
}

/**
 * A page's cursor, bound to its query: the folder and depth it was made for, and the key of the last
 * item, as base64url JSON. Opaque to callers; a cursor sent with another folder or depth, or one
 * that is not a cursor, is INVALID_INPUT (a keyset position, so a forged one can only move within
 * the store's own namespace).
 */
function encodeCursor(under: string, depth: number, after: string): string {
  return Buffer.from(JSON.stringify([under, depth, after]), 'utf8').toString('base64url');
}

function decodeCursor(value: unknown, under: string, depth: number): string | undefined {
  if (value === undefined) return undefined;
  const bad = () =>
    badInput('cursor must be the `next` of a previous page of the same listing (same path and depth)');
  if (typeof value !== 'string' || value === '' || value.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(value))
    throw bad();
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 3 ||
    parts[0] !== under ||
    parts[1] !== depth ||
    typeof parts[2] !== 'string' ||
    parts[2] === ''
  ) {
    throw bad();
  }
  return parts[2];
}

/** The operator's text for a refusal of an update or remove, in place of the driver's. */
function refusal(error: unknown, id: string): unknown {
  if (!isMemoryToolError(error) || typeof error.path !== 'string') return error;
  const path = toMemoryPath(error.path as DriverPath);
  const options = { path: error.path, cause: error, quota: error.quota };
  switch (error.code) {
    case 'NOT_FOUND':
      return notFound(id);
    case 'CONFLICT':
      return new MemoryToolError(
        'CONFLICT',
        `${path} does not hold the expected content (its SHA-256 differs); nothing was changed.`,
        options,
      );
    case 'PATH_CONFLICT':
      return new MemoryToolError(
        'PATH_CONFLICT',
        `Cannot place memory ${id} there: ${path} is a file.`,
        options,
      );
    case 'ALREADY_EXISTS':
      return new MemoryToolError(
        'ALREADY_EXISTS',
        `Cannot place memory ${id} at ${path}: something is already there.`,
        options,
      );
    case 'TOO_LARGE':
      return new MemoryToolError(
        'TOO_LARGE',
        `The content for ${path} is larger than this store's file limit.`,
        options,
      );
    default:
      return error;
  }
}

/** The identity methods of the store whose engine is `engine`. */
export function recordMethods(engine: Engine): MemoryRecords {
  const driver = engine.driver;
  const { capabilities } = engine;
  const native = capabilities.records === true && typeof driver.readRecord === 'function';
  const history = engine.options.history !== undefined && capabilities.history === true;

  function readOptions(operation: Operation, content: boolean | undefined): DriverRecordOptions {
    const base = operation.readOptions();
    return {
      deadline: base.deadline,
      get signal() {
        return base.signal;
      },
      stats: base.stats,
      content: content === true,
    };
  }

  function readAt(operation: Operation, path: DriverPath, content?: boolean) {
    return operation.run('readRecord', false, [], () =>
      native
        ? driver.readRecord!(path, readOptions(operation, content))
        : readRecordFallback(driver, path, history, readOptions(operation, content)),
    );
  }

  function locateIn(operation: Operation, id: string, content?: boolean) {
    return operation.run('locate', false, [], () =>
      native
        ? driver.locate!(id, readOptions(operation, content))
        : locateFallback(driver, id, history, readOptions(operation, content)),
    );
  }

  async function get(path: string, options: RecordReadOptions = {}): Promise<MemoryRecord | null> {
    const operation = engine.operation('view');
    const at = engine.path(path).driver;
    if (at === '') return null;
    const found = await readAt(operation, at, options.content);
    return found && toRecord(found);
  }

  async function locate(id: string, options: RecordReadOptions = {}): Promise<MemoryRecord | null> {
    const operation = engine.operation('view');
    if (!isFileId(id)) return null;
    const found = await locateIn(operation, id, options.content);
    return found && toRecord(found);
  }

  function listQuery(query: RecordQuery): DriverRecordQuery & { under: DriverPath; depth: number } {
    const under = engine.path(query.path ?? '/memories').driver;
    const depth = depthOption(query.depth);
    return { under, depth, after: decodeCursor(query.cursor, under, depth), limit: limitOption(query.limit) };
  }

  function pageOf(
    page: DriverRecordPage,
    { under, depth }: { under: DriverPath; depth: number },
  ): RecordPage {
    return {
      items: page.items.map((item) => (item.kind === 'folder' ? toFolder(item) : toRecord(item))),
      next: page.next === null ? null : encodeCursor(under, depth, page.next),
    };
  }

  async function list(query: RecordQuery = {}): Promise<RecordPage> {
    const operation = engine.operation('view');
    const driverQuery = listQuery(query);
    const page: DriverRecordPage = await operation.run('listRecords', false, [], () =>
      native
        ? driver.listRecords!(driverQuery, operation.readOptions())
        : listRecordsFallback(driver, driverQuery, history, operation.readOptions()),
    );
    return pageOf(page, driverQuery);
  }

  async function listBeside(query: RecordQuery = {}, beside: RecordBeside): Promise<RecordsBeside> {
    // The other store's driver, as `storeDriver` reads it (store.ts imports this file).
    const other = (beside.store as { readonly driver?: MemoryDriver }).driver;
    if (
      native &&
      typeof driver.listRecordsBeside === 'function' &&
      other?.capabilities.records === true &&
      typeof other.readRecord === 'function'
    ) {
      const operation = engine.operation('view');
      const driverQuery = listQuery(query);
      const path = engine.path(beside.path).driver;
      if (path !== '') {
        const both = await operation.run('listRecordsBeside', false, [], () =>
          driver.listRecordsBeside!(
            driverQuery,
            { driver: other, path, content: beside.content === true },
            operation.readOptions(),
          ),
        );
        if (both !== null) {
          return { page: pageOf(both.page, driverQuery), record: both.record && toRecord(both.record) };
        }
      }
    }
    const [page, record] = await Promise.all([
      list(query),
      beside.store.records.get(beside.path, { content: beside.content }),
    ]);
    return { page, record };
  }

  function updateOptions(operation: Operation, expectSha256: string | undefined): DriverUpdateByIdOptions {
    const base = operation.changeOptions();
    return {
      deadline: base.deadline,
      get signal() {
        return base.signal;
      },
      stats: base.stats,
      op: base.op,
      quota: base.quota,
      record: base.record,
      expectSha256,
      maxFileBytes: engine.options.maxFileBytes,
    };
  }

  /**
   * An update without `updateById`: a move, then a write under the version read after it, each a
   * change of its own (its own operation id, its own version), so a refused path moves nothing and
   * writes nothing, and a lost race after the move leaves the file moved with its old content.
   */
  async function updateFallback(
    operation: Operation,
    call: RecordChangeOptions,
    id: string,
    change: DriverUpdateChange,
    expectSha256: string | undefined,
  ): Promise<DriverUpdateResult> {
    const current = await locateIn(operation, id, true);
    if (!current) throw notFound(id);
    const from = current.path;
    const to = change.path ?? from;
    const content = change.content ?? current.content!;
    if (to === from && content === current.content) {
      const { content: _content, ...record } = current;
      return { record, changed: false };
    }
    if (expectSha256 !== undefined && expectSha256 !== current.sha256) {
      throw new MemoryToolError('CONFLICT', 'sha256 differs', { path: from });
    }
    if (utf8Length(content) > engine.options.maxFileBytes) {
      throw new MemoryToolError('TOO_LARGE', 'too large', { path: to });
    }
    // `move` is never called with a path beneath the one it moves: the file itself is in the way.
    if (to.startsWith(`${from}/`))
      throw new MemoryToolError('PATH_CONFLICT', 'beneath itself', { path: from });
    if (to !== from) await operation.move(from, to);
    if (content !== current.content) {
      const write = to === from ? operation : engine.operation('update', call);
      const read = await write.read(to);
      if (read?.kind !== 'file' || sha256Hex(read.content) !== current.sha256) {
        throw new MemoryToolError('CONFLICT', 'changed meanwhile', { path: to });
      }
      await write.write(to, content, { version: read.version }, ['CONFLICT', 'PATH_CONFLICT']);
    }
    const after = await readAt(operation, to);
    if (!after) throw notFound(id);
    return { record: after, changed: true };
  }

  async function update(
    id: string,
    change: { content?: string | undefined; path?: string | undefined },
    options: RecordChangeOptions = {},
  ): Promise<RecordUpdate> {
    const operation = engine.operation('update', options);
    if (typeof change !== 'object' || change === null) throw badInput('update needs { content, path }');
    if (change.content !== undefined && typeof change.content !== 'string') {
      throw badInput('content must be a string');
    }
    if (change.content === undefined && change.path === undefined) {
      throw badInput('update needs new content, a new path, or both');
    }
    const expectSha256 = sha256Option(options.expectSha256);
    let to: DriverPath | undefined;
    if (change.path !== undefined) {
      if (typeof change.path !== 'string') throw badInput('path must be a string');
      to = engine.path(change.path).driver;
      if (to === '') {
        throw new MemoryToolError(
          'ALREADY_EXISTS',
          'Cannot place a memory at /memories: it is the root folder.',
          { path: '' },
        );
      }
    }
    if (!isFileId(id)) throw notFound(id);
    const driverChange: DriverUpdateChange = { content: change.content, path: to };
    try {
      const result =
        capabilities.updateById === true && typeof driver.updateById === 'function'
          ? await operation.run(
              'updateById',
              true,
              ['NOT_FOUND', 'CONFLICT', 'PATH_CONFLICT', 'ALREADY_EXISTS', 'TOO_LARGE', 'QUOTA_EXCEEDED'],
              () => driver.updateById!(id, driverChange, updateOptions(operation, expectSha256)),
            )
          : await updateFallback(operation, options, id, driverChange, expectSha256);
      return { record: toRecord(result.record), changed: result.changed };
    } catch (error) {
      throw refusal(error, id);
    }
  }

  async function create(
    path: string,
    content: string,
    options: MemoryCallOptions = {},
  ): Promise<MemoryRecord> {
    const operation = engine.operation('create', options);
    if (typeof content !== 'string') throw badInput('content must be a string');
    const at = engine.path(path).driver;
    if (at === '') {
      throw new MemoryToolError('PATH_CONFLICT', 'Cannot create /memories: it is the root folder.', {
        path: '',
      });
    }
    if (utf8Length(content) > engine.options.maxFileBytes) {
      throw new MemoryToolError(
        'TOO_LARGE',
        `The content for ${toMemoryPath(at)} is larger than this store's file limit.`,
        {
          path: at,
        },
      );
    }
    try {
      await operation.write(at, content, { absent: true }, ['PATH_CONFLICT', 'CONFLICT']);
    } catch (error) {
      if (isMemoryToolError(error) && error.code === 'CONFLICT') {
        throw new MemoryToolError('ALREADY_EXISTS', `A file is already at ${toMemoryPath(at)}.`, {
          path: at,
          cause: error,
        });
      }
      throw error;
    }
    const found = await readAt(operation, at);
    if (!found)
      throw new MemoryToolError('CONFLICT', `${toMemoryPath(at)} was removed meanwhile.`, { path: at });
    return toRecord(found);
  }

  async function remove(id: string, options: RecordChangeOptions = {}): Promise<MemoryRecord | null> {
    const operation = engine.operation('delete', options);
    const expectSha256 = sha256Option(options.expectSha256);
    if (!isFileId(id)) return null;
    for (let attempt = 0; attempt < RELOCATE_TRIES; attempt += 1) {
      const found = await locateIn(operation, id);
      if (!found) return null;
      if (expectSha256 !== undefined && found.sha256 !== expectSha256) {
        throw refusal(new MemoryToolError('CONFLICT', 'sha256 differs', { path: found.path }), id);
      }
      if (capabilities.removeExpect === true) {
        try {
          const removed = await operation.remove(found.path, { fileId: id, sha256: expectSha256 });
          if (removed) return toRecord(found);
        } catch (error) {
          if (!(isMemoryToolError(error) && error.code === 'CONFLICT')) throw error;
          // The file moved, or was replaced, since it was located: look again.
        }
        continue;
      }
      // Without `removeExpect`: check, then remove (a change between the two is not seen).
      const again = await readAt(operation, found.path);
      if (!again || again.fileId !== id) continue;
      if (expectSha256 !== undefined && again.sha256 !== expectSha256) {
        throw refusal(new MemoryToolError('CONFLICT', 'sha256 differs', { path: found.path }), id);
      }
      if (await operation.remove(found.path)) return toRecord(again);
    }
    throw refusal(new MemoryToolError('CONFLICT', 'moved meanwhile', { path: '' }), id);
  }

  return { get, create, locate, list, listBeside, update, remove };
}
