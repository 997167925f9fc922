// The Redis driver: the contract's methods, each one call into the room that does the work.
// Where the rest is: options.ts (the options and their checks), backend.ts (what a driver shares
// with its namespaces), calls.ts (how a script reaches the server: deadline, fence, keys),
// reads.ts and changes.ts (the file methods, over the scripts of scripts.ts, change-scripts.ts and
// edit-script.ts, whose shared Lua is in change-prelude.ts), history.ts (over history-scripts.ts),
// admin.ts (over admin-scripts.ts and registry.ts); keys are laid out in layout.ts. The factories
// are in index.ts.
import type {
  DriverCallOptions,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverDropOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverListing,
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
import { RedisCalls } from './calls.js';
import * as changes from './changes.js';
import * as history from './history.js';
import * as identity from './identity.js';
import { childChain } from './layout.js';
import * as reads from './reads.js';

/** Redis's largest string (its default `proto-max-bulk-len`). */
const REDIS_MAX_VALUE_BYTES = 512 * 1024 * 1024;

/** The memdir driver over Redis (see `createRedisDriver`). */
export interface RedisDriver extends MemoryDriver {
  namespace(name: string): RedisDriver;
  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null>;
  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null>;
  edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome>;
  /**
   * Connects and checks the server (Redis 7 or later; a `maxmemory-policy` that never evicts memdir's
   * keys; a Cluster client for a Cluster), once per client. Every call waits for it, so calling it
   * is optional: it lets a program fail at startup rather than on the first command.
   * @throws MemoryToolError `BACKEND` when the server cannot be reached or must not be used.
   */
  ready(options?: DriverCallOptions): Promise<void>;
}

const CAPABILITIES = {
  atomicRename: true,
  maxFileBytes: REDIS_MAX_VALUE_BYTES,
  replaySafe: true,
  quotas: true,
  history: true,
  admin: true,
  records: true,
  updateById: true,
  removeExpect: true,
} as const;

/**
 * The driver over one namespace of one Redis backend (made by `createRedisDriver`; its
 * namespaces share the backend's client). Exported for `instanceof` and subclassing in tests.
 */
export class RedisMemoryDriver extends AbstractMemoryDriver implements RedisDriver {
  readonly capabilities = CAPABILITIES;
  readonly #backend: Backend;
  readonly #chain: string;
  readonly #root: boolean;
  readonly #calls: RedisCalls;

  constructor(backend: Backend, chain: string, root: boolean) {
    super();
    this.#backend = backend;
    this.#chain = chain;
    this.#root = root;
    this.#calls = new RedisCalls(backend, chain);
  }

  /** For telemetry: `redis` and a hash of the address and key prefix (no secret). */
  get identity(): { readonly kind: string; readonly id: string } {
    return this.#backend.identity;
  }

  override namespace(name: string): RedisDriver {
    return super.namespace(name) as RedisDriver;
  }

  protected openNamespace(name: string): RedisDriver {
    return new RedisMemoryDriver(this.#backend, childChain(this.#chain, name), false);
  }

  ready(options?: DriverCallOptions): Promise<void> {
    return this.#calls.ready(options);
  }

  // --- files (reads.ts, changes.ts) ----------------------------------------------------------------

  read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    return reads.read(this.#calls, path, options);
  }

  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    return reads.stat(this.#calls, path, options);
  }

  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null> {
    return reads.describe(this.#calls, path, options);
  }

  list(dir: DriverPath, options?: DriverCallOptions): AsyncIterable<DriverEntry> {
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

  remove(path: DriverPath, options: DriverRemoveOptions): Promise<boolean> {
    return changes.remove(this.#calls, path, options);
  }

  move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    return changes.move(this.#calls, from, to, options);
  }

  // --- identity (identity.ts) ----------------------------------------------------------------------

  readRecord(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    return identity.readRecord(this.#calls, path, options);
  }

  locate(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    return identity.locate(this.#calls, fileId, options);
  }

  listRecords(query: DriverRecordQuery, options?: DriverCallOptions): Promise<DriverRecordPage> {
    return identity.listRecords(this.#calls, query, options);
  }

  updateById(
    fileId: string,
    change: DriverUpdateChange,
    options: DriverUpdateByIdOptions,
  ): Promise<DriverUpdateResult> {
    return identity.updateById(this.#calls, fileId, change, options);
  }

  // --- history (history.ts) ------------------------------------------------------------------------

  listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#calls, query, options);
  }

  readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#calls, id, options);
  }

  restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    return history.restoreVersion(this.#calls, id, options);
  }

  redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#calls, id, options);
  }

  treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#calls, at, options);
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
    if (this.#root) await this.#backend.connection.close();
  }
}
