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
  DriverRestoreOptions,
  DriverSweepOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverUsage,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  DriverWriteOptions,
  MemoryDriver,
} from '@memdir/core';
import { AbstractMemoryDriver, ancestors, asDriverPath, type EditQueue } from '@memdir/core/driver';
import * as admin from './admin.js';
import type { Backend, Query, Row } from './backend.js';
import { editQueue, fileKey } from './batch.js';
import * as history from './history.js';
import { recordParam } from './history.js';
import { describeOutcome, editOutcome, moveOutcome } from './outcomes.js';
import { ReadBatcher } from './read-batch.js';
import { lockWait, type Statements, subtree } from './sql.js';
import { WriteBatcher } from './write-batch.js';

/** What the driver over PostgreSQL can do. */
const CAPABILITIES = {
  atomicRename: true,
  // bytea holds up to 1 GiB.
  maxFileBytes: 1_073_741_823,
  replaySafe: true,
  quotas: true,
  history: true,
  admin: true,
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
  async read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    if (path === '') return { kind: 'directory' };
    // Reads that record their time go alone; the others of this namespace may go together.
    if (!options?.touch) return this.#reads.read(path, options);
    const [row] = await this.#run(
      { text: this.#sql.readTouch, values: [this.#ns, path, ...subtree(path)], binary: true },
      false,
      options,
    );
    if (!row) return null;
    if (row[0] === 'd') return { kind: 'directory' };
    return { kind: 'file', content: row[1]!, version: row[2]! };
  }

  async stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    if (path === '') return 'directory';
    const [row] = await this.#run(
      { text: this.#sql.stat, values: [this.#ns, path, ...subtree(path)] },
      false,
      options,
    );
    const kind = row?.[0];
    return kind === 'f' ? 'file' : kind === 'd' ? 'directory' : null;
  }

  /** A `view` in one statement, from one snapshot (see sql.ts). */
  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const root = path === '';
    const sql = this.#sql;
    const touch = options.touch === true && !root;
    const [row] = await this.#run(
      {
        text: root ? sql.describeRoot : touch ? sql.describeDirectoryTouch : sql.describeDirectory,
        values: [this.#ns, path, Math.max(0, options.limit), ...(root ? [] : subtree(path))],
        binary: true,
      },
      false,
      options,
    );
    return row ? describeOutcome(row) : null;
  }

  async *list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry> {
    const query =
      dir === ''
        ? { text: this.#sql.listRoot, values: [this.#ns] }
        : { text: this.#sql.listDirectory, values: [this.#ns, ...subtree(dir)] };
    for (const row of await this.#run(query, false, options)) {
      yield { path: asDriverPath(row[0]!), size: Number(row[1]) };
    }
  }

  /**
   * One call of `write_v3`, which checks, judges the quota, writes and records in one step; writes
   * of this namespace that arrive while others are in flight go together in one call (write-batch.ts).
   */
  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    return { version: await this.#writes.write(path, content, options) };
  }

  /**
   * `str_replace` and `insert` as data, applied by `edit_v2` where the bytes are: one round trip,
   * and no retry, whoever else edits the file (its row lock orders them).
   */
  async edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    const replace = edit.kind === 'str_replace';
    const [row] = await this.#run(
      {
        text: this.#sql.edit,
        values: [
          this.#ns,
          path,
          edit.kind,
          replace ? Buffer.from(edit.oldStr, 'utf8') : null,
          Buffer.from(replace ? edit.newStr : edit.text, 'utf8'),
          replace ? null : edit.line,
          options.maxFileBytes,
          options.quota?.maxBytes ?? null,
          options.op,
          lockWait(options),
          recordParam(options.record),
          options.touch === true,
        ],
        binary: true,
      },
      true,
      options,
    );
    return editOutcome(row);
  }

  /** A read-modify-write for when `edit` is not used: edits of one file go in batches (batch.ts). */
  update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    return this.#edits.submit(fileKey(this.#ns, path), edit, options);
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const [row] = await this.#run(
      {
        text: this.#sql.remove,
        values: [this.#ns, path, options.op, lockWait(options), recordParam(options.record)],
      },
      true,
      options,
    );
    return row?.[0] === 't';
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const [row] = await this.#run(
      {
        text: this.#sql.move,
        values: [
          this.#ns,
          from,
          to,
          options.op,
          ancestors(to),
          lockWait(options),
          recordParam(options.record),
        ],
      },
      true,
      options,
    );
    moveOutcome(from, to, row?.[0]);
  }

  // --- history (history.ts) ------------------------------------------------------------------

  listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#context, query, options);
  }

  readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#context, id, options);
  }

  /** One call of `restore_v3`: checks, writes the file and records the version in one step. */
  restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    return history.restoreVersion(this.#context, id, options);
  }

  redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#context, id, options);
  }

  treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#context, at, options);
  }

  importVersions(versions: readonly DriverVersionWithContent[], options: DriverCallOptions): Promise<void> {
    return history.importVersions(this.#context, versions, options);
  }

  // --- admin (admin.ts) ----------------------------------------------------------------------

  listNamespaces(query: DriverNamespaceQuery, options?: DriverCallOptions): Promise<DriverNamespacePage> {
    return admin.listNamespaces(this.#context, query, options);
  }

  usage(options?: DriverCallOptions): Promise<DriverUsage> {
    return admin.usage(this.#context, options);
  }

  dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return admin.dropNamespace(this.#context, name, options);
  }

  sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    return admin.sweep(this.#context, options);
  }

  get #context(): history.HistoryContext {
    return { backend: this.#backend, ns: this.#ns };
  }

  /** Ends the pool when the driver made it; a namespaced driver leaves everything open. */
  async close(): Promise<void> {
    if (this.#root) await this.#backend.close();
  }

  get #sql(): Statements {
    return this.#backend.sql;
  }

  #run(query: Query, change: boolean, options: DriverCallOptions | undefined): Promise<Row[]> {
    return this.#backend.run(query, change, options);
  }
}
