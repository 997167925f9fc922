// The S3 driver: memory files as objects under `{prefix}memories/`, read with one GET or listing,
// changed by conditional writes. This class only delegates; where the work is:
//
//   options.ts     the options, their defaults and checks (index.ts holds the factories)
//   read.ts        read, stat, describe (a `view`), list
//   write.ts       write, update, remove, move, and a restore's write; replay-safe by receipts
//   structure.ts   changes of structure under the namespace's lease (sessions.ts, lease.ts),
//                  move.ts a move, edits.ts the group commits of edits, totals.ts the quotas
//   history/       versions: written by each change, listed, read, restored, redacted, imported
//   admin.ts       namespaces, usage, drop; sweep.ts expiry and its touch markers
//   backend.ts     what the drivers of one client share (space.ts names its shape); bucket.ts the
//                  requests, keys.ts the layout of keys
import { createHash } from 'node:crypto';
import type {
  DriverCallOptions,
  DriverCapabilities,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDropOptions,
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
import { AbstractMemoryDriver, type DriverLog, storeUnavailable } from '@memdir/core/driver';
import * as admin from './admin.js';
import { Call } from './call.js';
import * as history from './history/index.js';
import * as reads from './read.js';
import * as records from './records.js';
import type { Space } from './space.js';
import { sweepSpace } from './sweep.js';
import { updateById } from './update.js';
import * as writes from './write.js';

/** The memdir driver over S3 (see {@link createS3Driver}). */
export interface S3Driver extends MemoryDriver {
  namespace(name: string): S3Driver;
  /**
   * Probes the server (the bucket exists, the credentials hold, conditional writes are enforced):
   * the first change waits for it anyway, so calling it is optional. It lets a program fail at
   * startup rather than on its first change. Once per client and bucket.
   * @throws MemoryToolError `BACKEND` (reason `misconfigured` for a missing bucket, refused
   *   credentials or a server that ignores conditions) when the store cannot be used.
   */
  ready(options?: DriverCallOptions): Promise<void>;
}

/** The largest object one PUT can write. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 3;

/** What the drivers of one `createS3Driver` call share: whether it is closed, and what to close. */
export interface Handle {
  closed: boolean;
  readonly close: () => Promise<void>;
}

/** @internal The driver behind `createS3Driver`; one instance per namespace. */
export class S3MemoryDriver extends AbstractMemoryDriver implements S3Driver {
  readonly capabilities: DriverCapabilities;
  readonly identity: { readonly kind: 's3'; readonly id: string };
  readonly #space: Space;
  readonly #log: DriverLog;
  readonly #handle: Handle;
  readonly #owner: boolean;

  constructor(space: Space, log: DriverLog, handle: Handle, owner: boolean) {
    super();
    this.#space = space;
    this.#log = log;
    this.#handle = handle;
    this.#owner = owner;
    this.capabilities = {
      atomicRename: false,
      replaySafe: true,
      quotas: true,
      history: true,
      admin: true,
      listsContentMd5: true,
      records: true,
      updateById: true,
      removeExpect: true,
      maxPathBytes: space.keys.maxPathBytes,
      maxFileBytes: MAX_OBJECT_BYTES,
    };
    const place = `${space.backend.bucket.name}\n${space.backend.prefix}`;
    this.identity = { kind: 's3', id: createHash('sha256').update(place).digest('hex').slice(0, 12) };
  }

  override namespace(name: string): S3Driver {
    return super.namespace(name) as S3Driver;
  }

  protected openNamespace(name: string): S3Driver {
    const space = { backend: this.#space.backend, keys: this.#space.keys.child(name) };
    return new S3MemoryDriver(space, this.#log, this.#handle, false);
  }

  /** The call of one driver method; refused once the driver is closed. */
  #call(options: DriverCallOptions | undefined): Call {
    if (this.#handle.closed) throw storeUnavailable('the store is closed', undefined, 'closed');
    return new Call(this.#log, options);
  }

  async ready(options?: DriverCallOptions): Promise<void> {
    await this.#space.backend.behaviour(this.#call(options));
  }

  async read(path: DriverPath, options?: DriverCallOptions) {
    return reads.read(this.#space, path, this.#call(options), options?.touch);
  }

  async stat(path: DriverPath, options?: DriverCallOptions) {
    return reads.stat(this.#space, path, this.#call(options));
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    return reads.describe(this.#space, path, options, this.#call(options));
  }

  async *list(dir: DriverPath, options: DriverListOptions = {}): AsyncIterable<DriverEntry> {
    yield* reads.list(this.#space, dir, options, this.#call(options));
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    return writes.write(this.#space, path, content, options, this.#call(options));
  }

  async update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    return writes.update(this.#space, path, edit, options, this.#call(options));
  }

  async remove(path: DriverPath, options: DriverRemoveOptions): Promise<boolean> {
    return writes.remove(this.#space, path, options, this.#call(options));
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    return writes.move(this.#space, from, to, options, this.#call(options));
  }

  // --- identity (records.ts, update.ts) ---------------------------------------------------------

  async readRecord(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    const call = this.#call(options);
    await this.#space.backend.behaviour(call);
    return records.readRecord(this.#space, path, options?.content === true, call);
  }

  async locate(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    const call = this.#call(options);
    await this.#space.backend.behaviour(call);
    return records.locate(this.#space, fileId, options?.content === true, call);
  }

  async listRecords(query: DriverRecordQuery, options?: DriverCallOptions): Promise<DriverRecordPage> {
    const call = this.#call(options);
    await this.#space.backend.behaviour(call);
    return records.listRecords(this.#space, query, call);
  }

  async updateById(
    fileId: string,
    change: DriverUpdateChange,
    options: DriverUpdateByIdOptions,
  ): Promise<DriverUpdateResult> {
    return updateById(this.#space, fileId, change, options, this.#call(options));
  }

  // --- history (history/) ------------------------------------------------------------------------

  async listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#space, query, this.#call(options));
  }

  async readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#space, id, this.#call(options));
  }

  async restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    return writes.restoreVersion(this.#space, id, options, this.#call(options));
  }

  async redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#space, id, this.#call(options));
  }

  async treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#space, at, options?.path ?? '', this.#call(options));
  }

  async importVersions(
    versions: readonly DriverVersionWithContent[],
    options: DriverCallOptions,
  ): Promise<void> {
    return history.importVersions(this.#space, versions, this.#call(options));
  }

  // --- admin (admin.ts, sweep.ts) ---

  async listNamespaces(
    query: DriverNamespaceQuery,
    options?: DriverCallOptions,
  ): Promise<DriverNamespacePage> {
    return admin.listNamespaces(this.#space, query, this.#call(options));
  }

  async usage(options?: DriverCallOptions): Promise<DriverUsage> {
    return admin.usage(this.#space, this.#call(options));
  }

  async dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return admin.dropNamespace(this.#space, name, options.batch, this.#call(options));
  }

  async sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    return sweepSpace(this.#space, options, this.#call(options));
  }

  async close(): Promise<void> {
    if (!this.#owner || this.#handle.closed) return;
    await this.#handle.close();
  }
}
