// The PostgreSQL driver: memory files as rows, every call one statement or one function call (one
// round trip, one transaction), `edit` included; a change's version is written by the same call.
// This class only delegates; where the work is:
//
//   options.ts        the options, their defaults and checks (index.ts holds the factories)
//   read.ts           read, stat, describe (a `view`), list; read-batch.ts batches plain reads
//   write.ts          edit, remove, move; write-batch.ts batches writes, batch.ts groups updates
//   history.ts        versions (history-sql.ts and history-statements.ts their SQL)
//   admin.ts          namespaces, usage, drop, sweep (admin-sql.ts)
//   backend.ts        the pool, schema and log a driver shares with its namespaces, and one round
//                     trip; pool.ts what drivers on one pool share, setup.ts and layout.ts the schema
//   sql.ts            the statements (edit-sql.ts, match-sql.ts... the functions' bodies)
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
  DriverListOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPath,
  DriverPointInTime,
  DriverRecord,
  DriverRecordBeside,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverRecordsBeside,
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
import { AbstractMemoryDriver, type EditQueue } from '@memdir/core/driver';
import * as admin from './admin.js';
import type { Backend, Space } from './backend.js';
import { editQueue, fileKey } from './batch.js';
import * as history from './history.js';
import * as reads from './read.js';
import { ReadBatcher } from './read-batch.js';
import * as records from './records.js';
import * as writes from './write.js';
import { WriteBatcher } from './write-batch.js';

/** The driver, with its setup. */
export interface PostgresDriver extends MemoryDriver {
  /**
   * Creates the schema, tables and functions when they are missing, or upgrades a schema of an
   * older layout in place (one round trip when all is there; none once a driver on the same pool
   * saw it). Runs by itself before the first command; call it at deploy time to fail early. Safe to
   * run from many processes at once.
   * @param options.deadline when to give up (`Date.now()` ms). @default 5 s from the call
   */
  setup(options?: Pick<DriverCallOptions, 'deadline'>): Promise<void>;
  /**
   * One batch of the migration to layout 4: fills the record (file id, SHA-256, creation time) of
   * at most `batch` (default 1,000) rows an older layout wrote, in every namespace of the schema,
   * resuming where the last batch ended. `memdir migrate` calls it until `done`; rows not yet
   * filled get their record at their first read, listing or change.
   */
  fillRecords(
    options?: DriverCallOptions & { batch?: number | undefined },
  ): Promise<{ filled: number; done: boolean }>;
}

/** What the driver over PostgreSQL can do. */
const CAPABILITIES = {
  atomicRename: true,
  // bytea holds up to 1 GiB.
  maxFileBytes: 1_073_741_823,
  replaySafe: true,
  quotas: true,
  history: true,
  admin: true,
  records: true,
  updateById: true,
  removeExpect: true,
} as const;

/**
 * @internal The driver behind `createPostgresDriver`; one instance per namespace chain. Every call
 * is one statement or one function call (one round trip, one transaction), `edit` included; a
 * change's version (history) is written by the same call.
 */
export class PostgresMemoryDriver extends AbstractMemoryDriver {
  readonly capabilities = CAPABILITIES;
  readonly identity: { readonly kind: 'postgres'; readonly id: string };
  readonly #backend: Backend;
  readonly #edits: EditQueue;
  readonly #writes: WriteBatcher;
  readonly #reads: ReadBatcher;
  /** The namespace chain: '' for none, `a/b` for namespace b inside a. */
  readonly #ns: string;
  readonly #root: boolean;

  constructor(
    backend: Backend,
    identity: string,
    ns = '',
    edits: EditQueue = editQueue(backend),
    root = ns === '',
  ) {
    super();
    this.#backend = backend;
    this.identity = { kind: 'postgres', id: identity };
    this.#ns = ns;
    this.#edits = edits;
    this.#writes = new WriteBatcher(backend, ns);
    this.#reads = new ReadBatcher(backend, ns);
    this.#root = root;
  }

  /**
   * Creates the tables and functions in the schema when they are missing, or upgrades layout 1
   * (see setup.ts). Safe to run at once from many processes.
   */
  setup(options?: DriverCallOptions): Promise<void> {
    return this.#backend.ready(options);
  }

  protected openNamespace(name: string): MemoryDriver {
    const ns = this.#ns === '' ? name : `${this.#ns}/${name}`;
    return new PostgresMemoryDriver(this.#backend, this.identity.id, ns, this.#edits, false);
  }

  /** The file at `path` with its version, a directory, or null. */
  read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    return reads.read(this.#space, this.#reads, path, options);
  }

  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    return reads.stat(this.#space, path, options);
  }

  /** A `view` in one statement, from one snapshot (see sql.ts). */
  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null> {
    return reads.describe(this.#space, path, options);
  }

  list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry> {
    return reads.list(this.#space, dir, options);
  }

  /**
   * One call of `write_v3`, which checks, judges the quota, writes and records in one step; writes
   * of this namespace that arrive while others are in flight go together in one call (write-batch.ts).
   */
  write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
  ): Promise<{ version: string; record?: DriverRecord | undefined }> {
    return this.#writes.write(path, content, options);
  }

  /** `str_replace` and `insert` as data, applied where the bytes are (write.ts). */
  edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    return writes.edit(this.#space, path, edit, options);
  }

  /** A read-modify-write for when `edit` is not used: edits of one file go in batches (batch.ts). */
  update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    return this.#edits.submit(fileKey(this.#ns, path), edit, options);
  }

  remove(path: DriverPath, options: DriverRemoveOptions): Promise<boolean> {
    return writes.remove(this.#space, path, options);
  }

  move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    return writes.move(this.#space, from, to, options);
  }

  // --- identity (records.ts) -----------------------------------------------------------------

  readRecord(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    return records.readRecord(this.#space, path, options);
  }

  locate(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    return records.locate(this.#space, fileId, options);
  }

  listRecords(query: DriverRecordQuery, options?: DriverCallOptions): Promise<DriverRecordPage> {
    return records.listRecords(this.#space, query, options);
  }

  /**
   * One statement when `beside.driver` is a PostgreSQL driver on the same pool and schema (another
   * namespace of the same tables); null, reading nothing, for any other driver.
   */
  async listRecordsBeside(
    query: DriverRecordQuery,
    beside: DriverRecordBeside,
    options?: DriverCallOptions,
  ): Promise<DriverRecordsBeside | null> {
    const other = beside.driver;
    if (
      !(other instanceof PostgresMemoryDriver) ||
      other.#backend.pool !== this.#backend.pool ||
      other.#backend.sql.schema !== this.#backend.sql.schema
    ) {
      return null;
    }
    if (beside.path === '') return { page: await this.listRecords(query, options), record: null };
    return records.listRecordsBeside(
      this.#space,
      query,
      { ns: other.#ns, path: beside.path, content: beside.content === true },
      options,
    );
  }

  updateById(
    fileId: string,
    change: DriverUpdateChange,
    options: DriverUpdateByIdOptions,
  ): Promise<DriverUpdateResult> {
    return records.updateById(this.#space, fileId, change, options);
  }

  /**
   * One batch of the migration to layout 4 (`memdir migrate` runs it until done): fills the record
   * (file id, hash, creation time) of at most `batch` rows an older layout wrote, in every
   * namespace. Resumable: each batch goes on where the last ended.
   */
  async fillRecords(
    options: DriverCallOptions & { batch?: number | undefined } = {},
  ): Promise<{ filled: number; done: boolean }> {
    const [row] = await this.#backend.run(
      { text: this.#backend.sql.fill, values: [options.batch ?? 1000] },
      true,
      options,
    );
    const [filled, done] = (row?.[0] ?? '0,t').split(',');
    return { filled: Number(filled), done: done === 't' };
  }

  // --- history (history.ts) ------------------------------------------------------------------

  listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#space, query, options);
  }

  readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#space, id, options);
  }

  /** One call of `restore_v3`: checks, writes the file and records the version in one step. */
  restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    return history.restoreVersion(this.#space, id, options);
  }

  redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#space, id, options);
  }

  treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#space, at, options);
  }

  importVersions(versions: readonly DriverVersionWithContent[], options: DriverCallOptions): Promise<void> {
    return history.importVersions(this.#space, versions, options);
  }

  // --- admin (admin.ts) ----------------------------------------------------------------------

  listNamespaces(query: DriverNamespaceQuery, options?: DriverCallOptions): Promise<DriverNamespacePage> {
    return admin.listNamespaces(this.#space, query, options);
  }

  usage(options?: DriverCallOptions): Promise<DriverUsage> {
    return admin.usage(this.#space, options);
  }

  dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return admin.dropNamespace(this.#space, name, options);
  }

  sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    return admin.sweep(this.#space, options);
  }

  get #space(): Space {
    return { backend: this.#backend, ns: this.#ns };
  }

  /** Ends the pool when the driver made it; a namespaced driver leaves everything open. */
  async close(): Promise<void> {
    if (this.#root) await this.#backend.close();
  }
}
