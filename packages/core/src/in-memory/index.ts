// The in-memory store, the smallest complete driver: every file of a namespace in one Map, so it
// shows in a few lines what the contract asks (atomic writes, versions, quotas, history, admin)
// and serves tests and throwaway stores. Its pieces: one namespace's files in `space.ts`, its
// version history in `history.ts`, its admin methods in `admin.ts`; the contract it meets is
// `../driver/contract.ts`.
import { applyEdit } from '../driver/apply-edit.js';
import { AbstractMemoryDriver } from '../driver/base.js';
import type { DriverCapabilities } from '../driver/capabilities.js';
import type {
  DriverCallOptions,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDropOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPointInTime,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverRemoveOptions,
  DriverRestoreOptions,
  DriverSweepOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
  DriverUsage,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  DriverWriteOptions,
  MemoryDriver,
} from '../driver/contract.js';
import { newFileId, sha256Hex } from '../driver/history.js';
import { foldListing } from '../driver/listing.js';
import { judgeQuota } from '../driver/quota.js';
import { pageOfRecords } from '../driver/records.js';
import {
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
  refuseTooLarge,
} from '../driver/refusals.js';
import type { DriverPath } from '../path.js';
import { driverAncestors, utf8Length } from '../path.js';
import { createOwningStore, type MemdirStore } from '../store.js';
import type { MemoryStoreOptions } from '../store-options.js';
import { childKey, dropNamespace, listNamespaces, sweepSpace, usageOf } from './admin.js';
import { recordChange, withoutContent } from './history.js';
import { Backend, type Space, type StoredFile } from './space.js';

let versionCounter = 0;
function nextVersion(): string {
  versionCounter += 1;
  return String(versionCounter);
}

const CAPABILITIES: DriverCapabilities = {
  atomicRename: true,
  quotas: true,
  history: true,
  admin: true,
  records: true,
  updateById: true,
  removeExpect: true,
};

/** Options of {@link createInMemoryDriver}. */
export interface InMemoryDriverOptions {
  /**
   * The backend's clock, in ms since the epoch: the time of every version, of every change and
   * touched read (expiry), and what retention is judged at. Tests move it to see days pass.
   * @default Date.now
   */
  now?: (() => number) | undefined;
}

/**
 * The in-memory driver over one namespace. Every method does all its work synchronously, so each is
 * atomic with respect to the others, versions and counters included; concurrency is only what the
 * engine interleaves between its own awaits. Nothing here resends a request, so operation ids need
 * no record.
 */
class InMemoryDriver extends AbstractMemoryDriver {
  readonly capabilities = CAPABILITIES;
  readonly identity = { kind: 'memory', id: 'memory' } as const;

  constructor(
    readonly backend: Backend,
    /** The namespace chain: '' for none, `a/b` for namespace b inside a (names hold no '/'). */
    readonly key: string,
  ) {
    super();
  }

  protected openNamespace(name: string): MemoryDriver {
    return new InMemoryDriver(this.backend, childKey(this.key, name));
  }

  get #space(): Space {
    return this.backend.space(this.key);
  }

  /** The file at `path`, its read time refreshed when the call touches. */
  #readFile(space: Space, path: DriverPath, options: DriverCallOptions | undefined): StoredFile | undefined {
    const file = space.files.get(path);
    if (file && options?.touch) file.touchedAt = this.backend.now();
    return file;
  }

  async read(
    path: DriverPath,
    options?: DriverCallOptions,
  ): Promise<DriverFile | { kind: 'directory' } | null> {
    const space = this.#space;
    const file = this.#readFile(space, path, options);
    if (file) return { kind: 'file', content: file.content, version: file.version };
    return space.kind(path) === 'directory' ? { kind: 'directory' } : null;
  }

  async stat(path: DriverPath): Promise<'file' | 'directory' | null> {
    return this.#space.kind(path);
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const space = this.#space;
    const file = this.#readFile(space, path, options);
    if (file) return { kind: 'file', content: file.content, version: file.version };
    if (space.kind(path) !== 'directory') return null;
    return foldListing(path, space.entries(path), options.limit);
  }

  async write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
  ): Promise<{ version: string; record: DriverRecord }> {
    const space = this.#space;
    const ancestor = space.fileAbove(path);
    if (ancestor !== undefined) throw refusePathConflict(ancestor);
    if (space.directories.has(path)) throw refusePathConflict(path);
    const current = space.files.get(path);
    const { expect } = options;
    if (expect && ('absent' in expect ? current : current?.version !== expect.version)) {
      throw refuseConflict(path);
    }
    const breach = judgeQuota(options.quota, {
      bytes: space.bytes,
      files: space.files.size,
      addedBytes: utf8Length(content) - (current?.size ?? 0),
      newFile: current === undefined,
    });
    if (breach) throw refuseQuota(path, breach);
    const version = nextVersion();
    const fileId = current?.fileId ?? options.fileId ?? newFileId();
    const at = this.backend.now();
    const file = space.put(path, content, version, fileId, at);
    const operation = current ? 'modified' : 'created';
    const recorded = recordChange(
      space.history,
      options,
      { fileId, path, operation, content, size: file.size },
      at,
    );
    file.versionId = recorded?.id ?? null;
    return { version, record: space.record(path)! };
  }

  async edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    const space = this.#space;
    const file = this.#readFile(space, path, options);
    if (!file) return { outcome: 'missing', kind: space.kind(path) === 'directory' ? 'directory' : null };
    const applied = applyEdit(file.content, edit, options.maxFileBytes);
    if (applied.content === null) return applied.outcome;
    const breach = judgeQuota(options.quota, {
      bytes: space.bytes,
      files: space.files.size,
      addedBytes: utf8Length(applied.content) - file.size,
      newFile: false,
    });
    if (breach) return { outcome: 'quota', breach };
    const at = this.backend.now();
    const edited = space.put(path, applied.content, nextVersion(), file.fileId, at);
    const change = {
      fileId: file.fileId,
      path,
      operation: 'modified',
      content: applied.content,
      size: edited.size,
    } as const;
    edited.versionId = recordChange(space.history, options, change, at)?.id ?? null;
    return applied.outcome;
  }

  async *list(dir: DriverPath): AsyncIterable<DriverEntry> {
    yield* this.#space.entries(dir);
  }

  async remove(path: DriverPath, options: DriverRemoveOptions): Promise<boolean> {
    const space = this.#space;
    const doomed = space.subtree(path);
    const { expect } = options;
    if (expect && doomed.length > 0) {
      const file = space.files.get(path);
      const holds =
        file !== undefined &&
        (expect.fileId === undefined || expect.fileId === file.fileId) &&
        (expect.sha256 === undefined || expect.sha256 === file.sha256);
      if (!holds) throw refuseConflict(path);
    }
    const at = this.backend.now();
    for (const file of doomed) {
      const { fileId } = space.drop(file, at)!;
      const change = { fileId, path: file as DriverPath, operation: 'deleted', content: null } as const;
      recordChange(space.history, options, change, at);
    }
    return doomed.length > 0;
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const space = this.#space;
    const moving = space.subtree(from);
    if (moving.length === 0) throw refuseNotFound(from);
    const ancestor = driverAncestors(to).find((candidate) => space.files.has(candidate));
    if (ancestor !== undefined) throw refusePathConflict(ancestor);
    if (space.kind(to) !== null) throw refuseAlreadyExists(to);
    const at = this.backend.now();
    const moved = moving.map((path) => [path, to + path.slice(from.length), space.drop(path, at)!] as const);
    for (const [previousPath, path, file] of moved) {
      const placed = space.put(path, file.content, nextVersion(), file.fileId, at, file);
      const change = {
        fileId: file.fileId,
        path: path as DriverPath,
        previousPath: previousPath as DriverPath,
        operation: 'renamed',
        content: file.content,
        size: file.size,
      } as const;
      placed.versionId = recordChange(space.history, options, change, at)?.id ?? file.versionId;
    }
  }

  // --- identity --------------------------------------------------------------------------------

  async readRecord(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    const space = this.#space;
    if (options?.content) this.#readFile(space, path, options);
    return space.record(path, options?.content === true);
  }

  async locate(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    const path = this.#space.pathOf(fileId);
    return path === undefined ? null : this.readRecord(path as DriverPath, options);
  }

  async listRecords(query: DriverRecordQuery): Promise<DriverRecordPage> {
    const space = this.#space;
    const under = query.under ?? '';
    const paths = under === '' ? space.files.keys() : space.subtree(under).filter((path) => path !== under);
    return pageOfRecords(
      [...paths].map((path) => space.record(path)!),
      query,
    );
  }

  async updateById(
    fileId: string,
    change: DriverUpdateChange,
    options: DriverUpdateByIdOptions,
  ): Promise<DriverUpdateResult> {
    const space = this.#space;
    const from = space.pathOf(fileId) as DriverPath | undefined;
    if (from === undefined) throw refuseNotFound('');
    const file = space.files.get(from)!;
    const to = change.path ?? from;
    const content = change.content ?? file.content;
    if (to === from && content === file.content) return { record: space.record(from)!, changed: false };
    if (options.expectSha256 !== undefined && options.expectSha256 !== file.sha256)
      throw refuseConflict(from);
    if (to !== from) {
      const ancestor = space.fileAbove(to);
      if (ancestor !== undefined) throw refusePathConflict(ancestor);
      if (space.kind(to) !== null) throw refuseAlreadyExists(to);
    }
    const size = utf8Length(content);
    if (size > options.maxFileBytes) throw refuseTooLarge(to);
    const breach = judgeQuota(options.quota, {
      bytes: space.bytes,
      files: space.files.size,
      addedBytes: size - file.size,
      newFile: false,
    });
    if (breach) throw refuseQuota(to, breach);
    const at = this.backend.now();
    if (to !== from) space.drop(from, at);
    const placed = space.put(to, content, nextVersion(), fileId, at, {
      createdAt: file.createdAt,
      sha256: content === file.content ? file.sha256 : sha256Hex(content),
    });
    const renamed = to !== from;
    const recorded = recordChange(
      space.history,
      options,
      renamed
        ? { fileId, path: to, previousPath: from, operation: 'renamed', content, size }
        : { fileId, path: to, operation: 'modified', content, size },
      at,
    );
    placed.versionId = recorded?.id ?? null;
    return { record: space.record(to)!, changed: true };
  }

  // --- history ---------------------------------------------------------------------------------

  async listVersions(query: DriverVersionQuery): Promise<DriverVersionPage> {
    return this.#space.history.list(query);
  }

  async readVersion(id: string): Promise<DriverVersionWithContent | null> {
    const version = this.#space.history.get(id);
    return version ? { ...version } : null;
  }

  async restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    const space = this.#space;
    if (!options.record) throw new TypeError('restoreVersion: options.record is required (history on)');
    const source = space.history.get(id);
    if (!source || source.content === null) throw refuseNotFound(options.to ?? '');
    const to = options.to ?? (source.path as DriverPath);
    const ancestor = space.fileAbove(to);
    if (ancestor !== undefined) throw refusePathConflict(ancestor);
    if (space.directories.has(to)) throw refusePathConflict(to);
    const current = space.files.get(to);
    const expected = options.expectSha256;
    if (expected !== undefined) {
      const holds =
        expected === null
          ? current === undefined
          : current !== undefined && sha256Hex(current.content) === expected;
      if (!holds) throw refuseConflict(to);
    }
    const content = source.content;
    if (utf8Length(content) > options.maxFileBytes) throw refuseTooLarge(to);
    const breach = judgeQuota(options.quota, {
      bytes: space.bytes,
      files: space.files.size,
      addedBytes: utf8Length(content) - (current?.size ?? 0),
      newFile: current === undefined,
    });
    if (breach) throw refuseQuota(to, breach);
    // A deleted file comes back as itself where it was deleted; anywhere else it is a copy.
    const latest = space.history.latestOf(source.fileId);
    const comesBack = latest?.operation === 'deleted' && latest.path === to;
    const fileId = current?.fileId ?? (comesBack ? source.fileId : newFileId());
    const at = this.backend.now();
    const placed = space.put(to, content, nextVersion(), fileId, at);
    const change = { fileId, path: to, operation: 'restored', content, restoredFrom: id } as const;
    const recorded = recordChange(space.history, options, change, at)!;
    placed.versionId = recorded.id;
    return withoutContent(recorded);
  }

  async redactVersion(id: string): Promise<DriverVersion | null> {
    const version = this.#space.history.get(id);
    if (!version) return null;
    if (version.redactedAt === null) {
      Object.assign(version, { content: null, path: null, previousPath: null, size: null, sha256: null });
      version.redactedAt = this.backend.now();
    }
    return withoutContent(version);
  }

  async treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return this.#space.history.treeAt(at, options?.path ?? '');
  }

  async importVersions(versions: readonly DriverVersionWithContent[]): Promise<void> {
    this.#space.history.import(versions);
  }

  // --- admin -----------------------------------------------------------------------------------

  async listNamespaces(query: DriverNamespaceQuery): Promise<DriverNamespacePage> {
    return listNamespaces(this.backend, this.key, query);
  }

  async usage(): Promise<DriverUsage> {
    return usageOf(this.#space);
  }

  async dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return dropNamespace(this.backend, childKey(this.key, name), options.batch);
  }

  async sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    return sweepSpace(this.backend, this.#space, options);
  }

  async close(): Promise<void> {}
}

/**
 * A driver that keeps files, and their history, in this process's memory. Each call makes a
 * separate backend; stores made on one driver (with `namespace` options, or on
 * `driver.namespace(name)`) share it, as stores on one Redis server would.
 */
export function createInMemoryDriver(options: InMemoryDriverOptions = {}): MemoryDriver {
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') {
    throw new TypeError(
      'Invalid @memdir/core option now: expected a function that returns ms since the epoch',
    );
  }
  return new InMemoryDriver(new Backend(now), '');
}

/**
 * A memory store in this process's memory: the reference every other store is tested against, and
 * a fast store for tests of your own application. Nothing survives the process.
 */
export function createInMemoryStore(options: MemoryStoreOptions = {}): MemdirStore {
  return createOwningStore(createInMemoryDriver(), options);
}
