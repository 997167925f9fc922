// The filesystem driver: the contract's methods, each one call into the room that does the work.
// Where the rest is: options.ts (the options and their checks), backend.ts (what a driver shares
// with its namespaces), calls.ts (how a call runs: reads without a lock, changes under the
// cross-process lock within the call's deadline), reads.ts and changes.ts (the file methods, over
// snapshot.ts, write.ts, edit.ts, remove.ts and move.ts), history.ts (and history/), admin.ts; the
// folder as this process holds it open is folder.ts and generation.ts. The factories are in index.ts.
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
  DriverListOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPath,
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
} from '@memdir/core';
import { AbstractMemoryDriver } from '@memdir/core/driver';
import * as admin from './admin.js';
import type { Backend } from './backend.js';
import { FolderCalls } from './calls.js';
import * as changes from './changes.js';
import { createFoldersNow, openFolderOf, removeEmptyFoldersNow } from './folder.js';
import * as history from './history.js';
import { checkNamespaceFolder } from './namespace-names.js';
import * as reads from './reads.js';
import * as records from './records/methods.js';

/** The optional methods of the contract the filesystem driver has. */
type FsMethods = Required<
  Pick<
    MemoryDriver,
    | 'stat'
    | 'describe'
    | 'edit'
    | 'update'
    | 'listVersions'
    | 'readVersion'
    | 'restoreVersion'
    | 'redactVersion'
    | 'treeAt'
    | 'importVersions'
    | 'listNamespaces'
    | 'usage'
    | 'dropNamespace'
    | 'sweep'
    | 'readRecord'
    | 'locate'
    | 'listRecords'
    | 'updateById'
  >
>;

/** The filesystem driver (see `createFsDriver`): a memory driver with {@link FsMethods}. */
export type FsDriver = Omit<MemoryDriver, keyof FsMethods | 'namespace'> &
  FsMethods & {
    namespace(name: string): FsDriver;
  };

const CAPABILITIES = {
  atomicRename: true,
  quotas: true,
  history: true,
  admin: true,
  records: true,
  updateById: true,
  removeExpect: true,
} as const;

/** The driver over one store folder: `{root}`, or `{root}/namespaces/{name}` (and deeper). */
export class FsMemoryDriver extends AbstractMemoryDriver implements FsDriver {
  readonly capabilities = CAPABILITIES;
  readonly identity: { readonly kind: 'fs'; readonly id: string };
  readonly #backend: Backend;
  readonly #segments: readonly string[];
  readonly #calls: FolderCalls;
  /** How many folders of a namespace's chain this driver made when it opened (see close). */
  #made: number;

  constructor(backend: Backend, segments: readonly string[]) {
    super();
    this.#backend = backend;
    this.#segments = segments;
    this.identity = backend.identity;
    // A namespace the filesystem would fold into another's folder (`team` beside `Team` on macOS)
    // is refused, before its folders are made and again after (another process may have made the
    // other meanwhile: then what this one made goes again).
    if (segments.length > 0) checkNamespaceFolder(backend.root, segments, backend.names);
    this.#made = createFoldersNow(backend.root, segments);
    if (segments.length > 0) {
      try {
        checkNamespaceFolder(backend.root, segments, backend.names);
      } catch (error) {
        if (this.#made >= 2) removeEmptyFoldersNow(backend.root, segments, this.#made);
        throw error;
      }
    }
    this.#calls = new FolderCalls(backend, openFolderOf({ root: backend.root, segments }));
  }

  /** Namespace `name` below this one, checked by core's rule (a `TypeError` otherwise). */
  override namespace(name: string): FsDriver {
    return super.namespace(name) as FsDriver;
  }

  protected openNamespace(name: string): FsDriver {
    return new FsMemoryDriver(this.#backend, [...this.#segments, 'namespaces', name]);
  }

  // --- files (reads.ts, changes.ts) ----------------------------------------------------------------

  read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | { kind: 'directory' } | null> {
    return reads.read(this.#calls, path, options);
  }

  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    return reads.stat(this.#calls, path, options);
  }

  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null> {
    return reads.describe(this.#calls, path, options);
  }

  list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry> {
    return reads.list(this.#calls, dir, options);
  }

  write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
  ): Promise<{ version: string; record?: DriverRecord }> {
    return changes.write(this.#calls, path, content, options);
  }

  edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    return changes.edit(this.#calls, path, edit, options);
  }

  update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    return changes.update(this.#calls, path, edit, options);
  }

  remove(path: DriverPath, options: DriverRemoveOptions): Promise<boolean> {
    return changes.remove(this.#calls, path, options);
  }

  move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    return changes.move(this.#calls, from, to, options);
  }

  // --- identity (records/) -------------------------------------------------------------------------

  readRecord(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    return records.readRecord(this.#calls, path, options);
  }

  locate(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    return records.locate(this.#calls, fileId, options);
  }

  listRecords(query: DriverRecordQuery, options?: DriverCallOptions): Promise<DriverRecordPage> {
    return records.listRecords(this.#calls, query, options);
  }

  updateById(
    fileId: string,
    change: DriverUpdateChange,
    options: DriverUpdateByIdOptions,
  ): Promise<DriverUpdateResult> {
    return records.updateById(this.#calls, fileId, change, options);
  }

  // --- history (history.ts) ------------------------------------------------------------------------

  listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#calls, query, options);
  }

  readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#calls, id, options);
  }

  treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#calls, at, options);
  }

  restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    return history.restoreVersion(this.#calls, id, options);
  }

  redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#calls, id, options);
  }

  importVersions(versions: readonly DriverVersionWithContent[], options: DriverCallOptions): Promise<void> {
    return history.importVersions(this.#calls, versions, options);
  }

  // --- admin (admin.ts) ----------------------------------------------------------------------------

  listNamespaces(query: DriverNamespaceQuery, options?: DriverCallOptions): Promise<DriverNamespacePage> {
    return admin.listNamespaces(this.#calls, query, options);
  }

  usage(options?: DriverCallOptions): Promise<DriverUsage> {
    return admin.usage(this.#calls, options);
  }

  dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return admin.dropNamespace(this.#calls, name, options);
  }

  sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    return admin.sweep(this.#calls, options);
  }

  async close(): Promise<void> {
    await this.#calls.close();
    // A namespace folder this driver made and nothing filled goes again: no folder named after a
    // namespace outlives a look at it (an admin's check after a drop, a view of a name never used).
    const made = this.#made;
    this.#made = 0;
    if (this.#segments.length > 0 && made >= 2)
      removeEmptyFoldersNow(this.#backend.root, this.#segments, made);
  }
}
