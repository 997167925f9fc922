import { createHash } from 'node:crypto';
import type {
  DriverCallOptions,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListingEntry,
  DriverListOptions,
  DriverPath,
  DriverWriteOptions,
  MemoryDriver,
} from '@memdir/core';
import { isMemoryToolError } from '@memdir/core';
import {
  ancestors,
  asDriverPath,
  isRefusal,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  storeUnavailable,
  validateNamespace,
} from '@memdir/core/driver';
import type pg from 'pg';
import { backendError, classify, type Failure, isMissingLayout } from './errors.js';
import { quoteIdentifier, type Statements, setupLock, statements } from './sql.js';

/** How the driver talks to its pool: the timeouts and retries of every call. */
export interface Connection {
  readonly pool: pg.Pool;
  /** Closed by `close()` only when the driver created it. */
  readonly ownsPool: boolean;
  /** Client-side bound on each query (pg's `query_timeout`), below the engine's 5 s deadline. */
  readonly queryTimeoutMs: number;
  /** Named (server-side prepared) statements; off for poolers that cannot keep them. */
  readonly prepare: boolean;
}

// Every result column is text or bytea. bytea comes in binary format, so content arrives as its
// raw UTF-8 bytes (half the hex text format's size) and decodes exactly, NUL included; the other
// columns are decoded as text by pg and parsed here.
const RAW: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value } as pg.CustomTypesConfig;

type Row = readonly (string | null)[];

/** Reruns of a call the server rolled back (serialization failure, deadlock). */
const MAX_RERUNS = 3;
/** The most edits of one file applied under one lock. */
const MAX_BATCH = 100;
/** A call whose connection was lost runs again on another, a few times, while it is young. */
const MAX_RECONNECTS = 3;
const RECONNECT_WITHIN_MS = 2_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const names = new Map<string, string>();

/** A stable name per statement text, so each connection prepares (plans) it once. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= 1_000) names.clear(); // a process with very many schemas
    name = `memdir_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

/** The bounds of the subtree beneath `path`: [path/, path0) in byte order. */
function subtree(path: string): [string, string] {
  return [`${path}/`, `${path}0`];
}

/** What the driver shares with its namespaces: one pool, one setup. */
class Backend {
  readonly sql: Statements;
  /** Files this process is editing the optimistic way (read, then compare-and-swap) right now. */
  readonly editing = new Set<string>();
  /** Edits waiting for the lock of a busy file, by namespace and path. */
  readonly editQueues = new Map<string, PendingEdit[]>();
  /** Files whose compare-and-swap lost lately. */
  readonly contended = new RecentKeys(1_000);
  /** As many slots as the pool has connections. */
  readonly gate: Gate;
  #setup: Promise<void> | undefined;
  /** Set once the setup is done: later calls skip waiting for it. */
  installed = false;
  #closed = false;

  constructor(
    readonly connection: Connection,
    schema: string,
  ) {
    this.sql = statements(schema);
    const max = (connection.pool as { options?: { max?: unknown } }).options?.max;
    this.gate = new Gate(typeof max === 'number' && max > 0 ? max : 10);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Creates the schema's tables and functions unless they are there; once per driver. */
  ready(): Promise<void> {
    if (!this.#setup) {
      const setup = runSetup(this.connection.pool, this.sql);
      this.#setup = setup;
      setup.then(
        () => {
          if (this.#setup === setup) this.installed = true;
        },
        () => {
          if (this.#setup === setup) this.#setup = undefined;
        },
      );
    }
    return this.#setup;
  }

  /** After the tables went missing (a dropped schema), the next call sets up again. */
  forgetSetup(): void {
    this.#setup = undefined;
    this.installed = false;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.connection.ownsPool) await this.connection.pool.end();
  }
}

/** A query as the driver sends it. */
interface Query {
  readonly text: string;
  readonly values: readonly unknown[];
  /** Content columns: ask for binary results. */
  readonly binary?: boolean;
}

/** @internal The driver behind `createPostgresDriver`; one instance per namespace chain. */
export class PostgresDriver implements MemoryDriver {
  readonly capabilities = { atomicRename: true, maxFileBytes: 1_073_741_823, replaySafe: true } as const;
  readonly #backend: Backend;
  /** The namespace chain: '' for none, `a/b` for namespace b inside a. */
  readonly #ns: string;
  readonly #root: boolean;

  constructor(backend: Backend, ns: string, root: boolean) {
    this.#backend = backend;
    this.#ns = ns;
    this.#root = root;
  }

  /** @internal */
  static open(connection: Connection, schema: string): PostgresDriver {
    return new PostgresDriver(new Backend(connection, schema), '', true);
  }

  /** Creates the tables and functions in the schema when they are missing. Safe to run at once from many processes. */
  setup(): Promise<void> {
    return this.#backend.ready();
  }

  namespace(name: string): MemoryDriver {
    const valid = validateNamespace(name);
    return new PostgresDriver(this.#backend, this.#ns === '' ? valid : `${this.#ns}/${valid}`, false);
  }

  async read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    if (path === '') return { kind: 'directory' };
    const rows = await this.#run(
      { text: this.#sql.read, values: [this.#ns, path, ...subtree(path)], binary: true },
      false,
      options?.signal,
    );
    const row = rows[0];
    if (!row) return null;
    if (row[0] === 'd') return { kind: 'directory' };
    return { kind: 'file', content: row[1]!, version: row[2]! };
  }

  async stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    if (path === '') return 'directory';
    const rows = await this.#run(
      { text: this.#sql.stat, values: [this.#ns, path, ...subtree(path)] },
      false,
      options?.signal,
    );
    const kind = rows[0]?.[0];
    return kind === 'f' ? 'file' : kind === 'd' ? 'directory' : null;
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const root = path === '';
    const rows = await this.#run(
      {
        text: root ? this.#sql.describeRoot : this.#sql.describeDirectory,
        values: [this.#ns, path, Math.max(0, options.limit), ...(root ? [] : subtree(path))],
        binary: true,
      },
      false,
      options.signal,
    );
    const row = rows[0];
    if (!row) return null;
    if (row[0] === 'f') return { kind: 'file', content: row[1]!, version: row[2]! };
    const entries: DriverListingEntry[] = [];
    for (const line of row[5]?.split('\n') ?? []) {
      const tab = line.indexOf('\t');
      entries.push({
        path: line.slice(tab + 1),
        directory: line[0] === 'd',
        size: Number(line.slice(1, tab)),
      });
    }
    return { kind: 'directory', size: Number(row[3]), count: Number(row[4]), entries };
  }

  async *list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry> {
    const query =
      dir === ''
        ? { text: this.#sql.listRoot, values: [this.#ns] }
        : { text: this.#sql.listDirectory, values: [this.#ns, ...subtree(dir)] };
    for (const row of await this.#run(query, false, options?.signal)) {
      yield { path: asDriverPath(row[0]!), size: Number(row[1]) };
    }
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const { expect } = options;
    const expected = expect === undefined ? null : 'absent' in expect ? '' : expect.version;
    const [row] = await this.#run(
      {
        text: this.#sql.write,
        values: [this.#ns, path, Buffer.from(content, 'utf8'), expected, options.op, ancestors(path)],
      },
      true,
      options.signal,
    );
    return { version: writeOutcome(path, row?.[0]) };
  }

  /**
   * `str_replace` and `insert`: read, edit, then write with the version read (two round trips).
   * When another writer wins that compare-and-swap, the edit runs again under the row's lock
   * (`SELECT ... FOR UPDATE` in a transaction), so writers of one busy file take turns instead of
   * retrying against each other: a thousand concurrent inserts finish, each applied once.
   */
  async update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    const key = `${this.#ns}\u0000${path}`;
    const backend = this.#backend;
    // Another edit of this file running in this process, or one that lost lately: the file is
    // busy, and its lock is the short way.
    if (!backend.contended.recent(key) && !backend.editing.has(key)) {
      backend.editing.add(key);
      try {
        const node = await this.read(path, options);
        if (node === null || node.kind === 'directory') return node?.kind ?? null;
        await this.write(path, edit(node.content), { expect: { version: node.version }, ...options });
        return 'file';
      } catch (error) {
        if (!isRefusal(error, 'CONFLICT') && !isRefusal(error, 'PATH_CONFLICT')) throw error;
        backend.contended.mark(key);
      } finally {
        backend.editing.delete(key);
      }
    }
    return this.#lockedUpdate(path, edit, options);
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const [row] = await this.#run(
      { text: this.#sql.remove, values: [this.#ns, path, options.op] },
      true,
      options.signal,
    );
    return row?.[0] === 't';
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const [row] = await this.#run(
      { text: this.#sql.move, values: [this.#ns, from, to, options.op, ancestors(to)] },
      true,
      options.signal,
    );
    const outcome = row?.[0] ?? '';
    if (outcome === 't') return;
    if (outcome === 'n') throw refuseNotFound(from);
    if (outcome === 'e') throw refuseAlreadyExists(to);
    if (outcome.startsWith('p')) throw refusePathConflict(outcome.slice(1));
    throw storeUnavailable('PostgreSQL gave an answer memdir does not know');
  }

  /** Closes the pool when the driver created it; a namespaced driver leaves it open. */
  async close(): Promise<void> {
    if (this.#root) await this.#backend.close();
  }

  get #sql(): Statements {
    return this.#backend.sql;
  }

  #config(query: Query): pg.QueryArrayConfig & { query_timeout: number; types: pg.CustomTypesConfig } {
    const { connection } = this.#backend;
    return {
      text: query.text,
      values: query.values as unknown[],
      rowMode: 'array',
      types: RAW,
      query_timeout: connection.queryTimeoutMs,
      ...(query.binary ? { binary: true } : {}),
      ...(connection.prepare ? { name: statementName(query.text) } : {}),
    };
  }

  /**
   * Runs one statement on a pooled connection: one round trip. A serialization failure or a
   * deadlock (rolled back by the server) runs again; so does a call whose connection was lost,
   * once, while the call is young (a change carries its op id, which the server records with
   * its outcome, so running it again never applies it twice).
   */
  async #run(query: Query, change: boolean, signal: AbortSignal | undefined): Promise<Row[]> {
    const retries = new Retries();
    for (;;) {
      if (!this.#backend.installed) await this.#ready(change, signal);
      else this.#checkOpen(signal);
      const lease = await this.#connect(change, signal);
      try {
        const result = await lease.client.query(this.#config(query));
        lease.release();
        return result.rows as Row[];
      } catch (error) {
        lease.release(error);
        if (isMissingLayout(error)) this.#backend.forgetSetup();
        const failure = classify(error, true);
        if (!(await retries.again(failure, signal))) throw backendError(failure, change, error);
      }
    }
  }

  /**
   * A pooled client, once one of the driver's slots is free; a failure here sent nothing. Calls
   * beyond the pool's size wait in the driver's own queue, for as long as the engine waits (its
   * signal), so a burst of commands waits its turn while the pool's connection timeout still
   * tells a dead server quickly.
   */
  async #connect(change: boolean, signal: AbortSignal | undefined): Promise<Lease> {
    this.#checkOpen(signal);
    const { gate } = this.#backend;
    await gate.enter(signal);
    const retries = new Retries();
    for (;;) {
      try {
        this.#checkOpen(signal);
        const client = await this.#backend.connection.pool.connect();
        return new Lease(client, gate);
      } catch (error) {
        if (isMemoryToolError(error) || !(await retries.again(classify(error, false), signal))) {
          gate.leave();
          if (isMemoryToolError(error)) throw error;
          throw backendError(classify(error, false), change, error);
        }
      }
    }
  }

  async #ready(change: boolean, signal: AbortSignal | undefined): Promise<void> {
    this.#checkOpen(signal);
    try {
      await this.#backend.ready();
    } catch (error) {
      if (isMemoryToolError(error)) throw error;
      throw backendError(classify(error, false), change, error);
    }
  }

  #checkOpen(signal: AbortSignal | undefined): void {
    if (this.#backend.closed) throw storeUnavailable('the store was closed');
    // The engine stopped waiting (its deadline passed) and has reported the command: send nothing.
    if (signal?.aborted) throw storeUnavailable('the command ran out of time');
  }

  /** The edit under the row's lock: BEGIN, SELECT ... FOR UPDATE, the write, COMMIT. */
  /**
   * Edits of one busy file from this process queue up and run in batches under one lock: the row
   * is locked once, each edit applies in turn to what the one before it made (an edit that throws
   * is left out and gets its error), the result is written once with every applied edit's op id,
   * and each command gets its own outcome. Writers of a hot file hand its lock between processes
   * a batch at a time instead of an edit at a time.
   */
  #lockedUpdate(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    return new Promise((resolve, reject) => {
      const key = `${this.#ns}\u0000${path}`;
      const queues = this.#backend.editQueues;
      const item: PendingEdit = { edit, op: options.op, signal: options.signal, resolve, reject };
      const queue = queues.get(key);
      if (queue) {
        queue.push(item);
        return;
      }
      const fresh = [item];
      queues.set(key, fresh);
      void this.#drainEdits(key, path, fresh);
    });
  }

  async #drainEdits(key: string, path: DriverPath, queue: PendingEdit[]): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH).filter((item) => {
          if (!item.signal?.aborted) return true;
          item.reject(storeUnavailable('the command ran out of time'));
          return false;
        });
        if (batch.length > 0) await this.#editBatch(path, batch);
      }
    } finally {
      this.#backend.editQueues.delete(key);
    }
  }

  /** Runs one batch to its end: every item is resolved or rejected; never throws. */
  async #editBatch(path: DriverPath, batch: PendingEdit[]): Promise<void> {
    const signal = batch[0]!.signal;
    const retries = new Retries();
    for (;;) {
      let lease: Lease;
      try {
        lease = await this.#connect(true, signal);
      } catch (error) {
        for (const item of batch) item.reject(error);
        return;
      }
      try {
        const done = await this.#editLocked(lease.client, path, batch);
        lease.release();
        if (done) return;
      } catch (error) {
        if (isMemoryToolError(error)) {
          lease.release();
          for (const item of batch) item.reject(error);
          return;
        }
        lease.release(error);
        const failure = classify(error, true);
        if (!(await retries.again(failure, signal))) {
          const reported = backendError(failure, true, error);
          for (const item of batch) item.reject(reported);
          return;
        }
      }
    }
  }

  /**
   * Two round trips, and the row's lock held for one of them: `BEGIN; SELECT ... FOR UPDATE`, then
   * the write and `COMMIT`, each sent as one simple query (several statements, so their values
   * are written into the text as literals: escaped strings, the content as hex).
   */
  async #editLocked(client: pg.PoolClient, path: DriverPath, batch: PendingEdit[]): Promise<boolean> {
    const literal = (value: string) => client.escapeLiteral(value);
    const timeout = this.#backend.connection.queryTimeoutMs;
    const simple = (text: string) =>
      client.query({ text, query_timeout: timeout } as pg.QueryConfig) as unknown as Promise<
        pg.QueryResult[]
      >;
    const [, , , locked] = await simple(this.#sql.lockedRead(literal(this.#ns), literal(path)));
    const row = locked?.rows[0] as { content: Buffer; version: string } | undefined;
    if (!row) {
      await client.query('ROLLBACK');
      const stat = await client.query(
        this.#config({ text: this.#sql.stat, values: [this.#ns, path, ...subtree(path)] }),
      );
      const found = (stat.rows[0] as Row | undefined)?.[0];
      // A file that appeared since is edited under its lock on the next round.
      if (found === 'f') return false;
      for (const item of batch) item.resolve(found === 'd' ? 'directory' : null);
      return true;
    }
    let content = row.content.toString('utf8');
    const applied: PendingEdit[] = [];
    const refused: Array<[PendingEdit, unknown]> = [];
    for (const item of batch) {
      try {
        content = item.edit(content);
        applied.push(item);
      } catch (error) {
        refused.push([item, error]);
      }
    }
    if (applied.length === 0) {
      await client.query('ROLLBACK');
    } else {
      const [first, ...others] = applied.map((item) => literal(item.op));
      const [written] = await simple(
        this.#sql.lockedWrite(
          literal(this.#ns),
          literal(path),
          `decode('${Buffer.from(content, 'utf8').toString('hex')}', 'hex')`,
          literal(row.version),
          first!,
          `ARRAY[${ancestors(path).map(literal).join(', ')}]::text[]`,
          `ARRAY[${others.join(', ')}]::text[]`,
        ),
      );
      writeOutcome(path, (written?.rows[0] as { outcome?: string } | undefined)?.outcome);
      for (const item of applied) item.resolve('file');
    }
    for (const [item, error] of refused) item.reject(error);
    return true;
  }
}

/** Keys marked within the last `ttlMs`; forgets the older ones. */
class RecentKeys {
  readonly #marked = new Map<string, number>();

  constructor(readonly ttlMs: number) {}

  mark(key: string): void {
    const now = Date.now();
    if (this.#marked.size >= 1_000) {
      for (const [old, at] of this.#marked) if (now - at > this.ttlMs) this.#marked.delete(old);
    }
    this.#marked.set(key, now);
  }

  recent(key: string): boolean {
    const at = this.#marked.get(key);
    return at !== undefined && Date.now() - at <= this.ttlMs;
  }
}

/** A checked-out client and its slot. */
class Lease {
  // A checked-out client has no pool listener: an error between two statements would otherwise
  // be an unhandled 'error' event, which ends the process.
  readonly #ignore = () => {};

  constructor(
    readonly client: pg.PoolClient,
    readonly gate: Gate,
  ) {
    client.on('error', this.#ignore);
  }

  /** Gives the client back; after a failure (`error`), the pool drops it and opens another. */
  release(error?: unknown): void {
    this.client.off('error', this.#ignore);
    if (error === undefined) this.client.release();
    else this.client.release(error instanceof Error ? error : true);
    this.gate.leave();
  }
}

/** At most `size` calls hold a client at once; the others wait in order, until their signal aborts. */
class Gate {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  enter(signal: AbortSignal | undefined): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(admit);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(storeUnavailable('the memory store is busy'));
      };
      const admit = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.push(admit);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

/** An edit waiting for its file's lock (see PostgresDriver.#lockedUpdate). */
interface PendingEdit {
  readonly edit: (content: string) => string;
  readonly op: string;
  readonly signal: AbortSignal | undefined;
  resolve(kind: 'file' | 'directory' | null): void;
  reject(error: unknown): void;
}

/**
 * The retries of one call: reruns after a rollback, and a few reconnects while the call is young.
 * A reconnect waits a moment first, so that the pool notices its other idle clients whose
 * connections broke too (a restarted server, a dropped link) and hands out a fresh one.
 */
class Retries {
  readonly #started = Date.now();
  #reruns = 0;
  #reconnects = 0;

  async again(failure: Failure, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return false;
    if (failure.action === 'rerun' && this.#reruns < MAX_RERUNS) {
      this.#reruns++;
      await sleep(Math.random() * 10 * this.#reruns);
      return true;
    }
    if (
      failure.action === 'reconnect' &&
      this.#reconnects < MAX_RECONNECTS &&
      Date.now() - this.#started < RECONNECT_WITHIN_MS
    ) {
      this.#reconnects++;
      await sleep(10 * this.#reconnects);
      return !signal?.aborted;
    }
    return false;
  }
}

/** Reads `write_v1`'s answer: the new version, or the refusal it stands for. */
function writeOutcome(path: DriverPath, outcome: string | null | undefined): string {
  if (outcome?.startsWith('v')) return outcome.slice(1);
  if (outcome === 'c') throw refuseConflict(path);
  if (outcome?.startsWith('p')) throw refusePathConflict(outcome.slice(1));
  throw storeUnavailable('PostgreSQL gave an answer memdir does not know');
}

/**
 * Creates layout 1 in the schema unless it is there: one round trip when it is. Otherwise, in one
 * transaction under an advisory lock, so that processes starting at once on an empty database
 * take turns and the later ones find everything made. Needs no superuser: the role must be able
 * to create the schema (CREATE on the database) or own one that exists.
 */
export async function runSetup(pool: pg.Pool, sql: Statements): Promise<void> {
  const client = await pool.connect();
  const ignore = () => {};
  client.on('error', ignore);
  let failed: unknown;
  try {
    const installed = async () =>
      (await client.query<{ installed: boolean }>(sql.installed, [sql.schema])).rows[0]?.installed === true;
    if (await installed()) return;
    await client.query('BEGIN');
    try {
      await client.query(setupLock(sql.schema));
      if (!(await installed())) {
        await checkServer(client);
        const exists = await client.query('SELECT pg_catalog.to_regnamespace($1) IS NOT NULL AS found', [
          quoteIdentifier(sql.schema),
        ]);
        if (!exists.rows[0]?.found) await client.query(`CREATE SCHEMA ${quoteIdentifier(sql.schema)}`);
        for (const statement of sql.setup) await client.query(statement);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  } catch (error) {
    failed = error;
    throw setupError(error);
  } finally {
    client.off('error', ignore);
    client.release(failed instanceof Error ? failed : undefined);
  }
}

async function checkServer(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ version: number; encoding: string }>(
    "SELECT current_setting('server_version_num')::int AS version, current_setting('server_encoding') AS encoding",
  );
  const { version, encoding } = rows[0]!;
  if (version < 130000) {
    throw new SetupError(
      `memdir needs PostgreSQL 13 or later (this server is ${Math.floor(version / 10000)})`,
    );
  }
  if (encoding !== 'UTF8') {
    throw new SetupError(`memdir needs a database with UTF8 encoding (this one is ${encoding})`);
  }
}

/** A server memdir cannot use, said in plain words. */
class SetupError extends Error {
  override readonly name = 'SetupError';
}

function setupError(error: unknown): Error {
  if (error instanceof SetupError) return storeUnavailable(error.message, error);
  const state = (error as { code?: unknown } | null)?.code;
  if (state === '42501') {
    return storeUnavailable(
      'memdir cannot create its tables in PostgreSQL (permission denied: run setup as a role that may create the schema, or create it and give this role its ownership)',
      error,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
