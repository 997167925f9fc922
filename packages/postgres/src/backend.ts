// What a driver shares with its namespaces: one pool, one schema, one log. And how one driver call
// becomes one round trip: a pooled connection, the statement sent within the call's deadline (pg's
// query_timeout from the time left), a rerun after a rollback and a reconnect after a lost
// connection while time is left, and every failure turned into BACKEND with its reason.
import { createHash } from 'node:crypto';
import { type DriverCallOptions, isMemoryToolError } from '@memdir/core';
import { type DriverLog, sleep, storeUnavailable, timeLeft } from '@memdir/core/driver';
import type pg from 'pg';
import { backendError, classify, isMissingLayout, isServerError } from './errors.js';
import { type PoolShare, poolShare } from './pool.js';
import { runSetup } from './setup.js';
import { type Statements, statements } from './sql.js';

// Every result column is text or bytea. With `binary` results, bytea arrives as its raw UTF-8 bytes
// (half the hex text format's size), which pg decodes as a string, NUL included, and text arrives
// as itself; without, pg decodes text. Nothing else is parsed.
const RAW: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value } as pg.CustomTypesConfig;

/** One result row: every column as text (or null). */
export type Row = readonly (string | null)[];

/** One namespace of a backend, as the driver's calls work on it: the backend and the namespace chain. */
export interface Space {
  readonly backend: Backend;
  /** The namespace chain: '' for none, `a/b` for namespace b inside a. */
  readonly ns: string;
}

/** A statement as the driver sends it. */
export interface Query {
  readonly text: string;
  readonly values: readonly unknown[];
  /** Content columns: ask for binary results. */
  readonly binary?: boolean;
}

/** Reruns of a call the server rolled back (serialization failure, deadlock). */
const MAX_RERUNS = 3;
/** A call whose connection was lost runs again on another, a few times, while time is left. */
const MAX_RECONNECTS = 3;
/** A call this slow is logged. */
const SLOW_CALL_MS = 1_000;

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

/** What a driver shares with its namespaces. */
export class Backend {
  readonly sql: Statements;
  readonly share: PoolShare;
  #closed = false;
  /** A connection was lost and no call has succeeded since (for the log). */
  #lost = false;

  constructor(
    readonly pool: pg.Pool,
    /** Ended by `close()` only when the driver made it. */
    readonly ownsPool: boolean,
    /** Named (server-side prepared) statements; off for poolers that cannot keep them. */
    readonly prepare: boolean,
    schema: string,
    readonly log: DriverLog,
  ) {
    this.sql = statements(schema);
    this.share = poolShare(pool);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Ends the pool if the driver made it, within moments whatever the server does: `pool.end()`
   * waits for connections still being opened, and one to a server that accepted TCP and never
   * answers would hold it until `connectionTimeoutMs` (10 s by default, after a command that had
   * already failed at its 5 s deadline). Those are dropped at once; open ones end as pg ends them.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.ownsPool) return;
    const ended = this.pool.end();
    for (const client of openingClients(this.pool)) client.connection?.stream?.destroy();
    await ended;
  }

  /**
   * Makes sure the schema has layout 3: nothing to do once a driver on this pool saw it (the
   * check is cached per pool), else one round trip, else the setup. Calls that come while it runs
   * wait for it; one that finds it failed (another call's deadline, say) tries once more.
   */
  async ready(options: DriverCallOptions | undefined): Promise<void> {
    const { setups } = this.share;
    const key = this.sql.schema;
    for (let attempt = 0; ; attempt++) {
      this.#checkOpen(options);
      const state = setups.get(key);
      if (state === true) return;
      let running = state;
      if (!running) {
        const started = runSetup({ share: this.share, sql: this.sql, log: this.log, options });
        running = started;
        setups.set(key, started);
        started.then(
          () => setups.get(key) === started && setups.set(key, true),
          () => setups.get(key) === started && setups.delete(key),
        );
      }
      try {
        return await running;
      } catch (error) {
        if (attempt > 0 || running === undefined || timeLeft(options) < 100) throw error;
      }
    }
  }

  /**
   * Runs one statement on a pooled connection: one round trip. A serialization failure or a
   * deadlock (rolled back by the server) runs again; so does a call whose connection was lost
   * (a change carries its op id, which the server records with its outcome, so running it again
   * never applies it twice), while the call has time left.
   */
  async run(query: Query, change: boolean, options: DriverCallOptions | undefined): Promise<Row[]> {
    const started = Date.now();
    let reruns = 0;
    let reconnects = 0;
    let setupAgain = true;
    for (;;) {
      if (this.share.setups.get(this.sql.schema) !== true) await this.ready(options);
      this.#checkOpen(options);
      let lease: Awaited<ReturnType<PoolShare['lease']>>;
      try {
        lease = await this.share.lease(options);
      } catch (error) {
        if (isMemoryToolError(error)) throw error;
        const failure = classify(error, false);
        if (failure.action === 'reconnect' && reconnects < MAX_RECONNECTS && timeLeft(options) > 100) {
          reconnects++;
          this.#retried(options, 'cannot connect to PostgreSQL; trying again', failure.reason);
          await sleep(10 * reconnects);
          continue;
        }
        throw backendError(failure, change, error);
      }
      if (options?.stats) {
        options.stats.roundTrips++;
        options.stats.requests++;
      }
      try {
        const result = await lease.client.query(this.#config(query, options));
        lease.release();
        this.#succeeded(started);
        return result.rows as Row[];
      } catch (error) {
        lease.release(isServerError(error) ? undefined : error);
        if (isMissingLayout(error) && setupAgain) {
          // The schema was dropped or changed under the store: set it up again, once.
          setupAgain = false;
          this.share.setups.delete(this.sql.schema);
          continue;
        }
        const failure = classify(error, true);
        const left = timeLeft(options);
        if (failure.action === 'rerun' && reruns < MAX_RERUNS && left > 50) {
          reruns++;
          this.#retried(options, 'PostgreSQL rolled a call back; running it again', failure.reason);
          await sleep(Math.random() * 10 * reruns);
          continue;
        }
        if (failure.action === 'reconnect' && reconnects < MAX_RECONNECTS && left > 100) {
          reconnects++;
          if (!this.#lost) this.log.warn('connection to PostgreSQL lost', { reason: failure.reason });
          this.#lost = true;
          this.#retried(options, 'running a call again on another connection', failure.reason);
          await sleep(10 * reconnects);
          continue;
        }
        if (failure.reason === 'busy') this.log.warn('a call waited for a lock until its deadline');
        throw backendError(failure, change, error);
      }
    }
  }

  /**
   * The config of one query: a named statement (planned once per connection), rows as arrays of
   * strings, and the time left as pg's query_timeout (past it the connection is dropped).
   */
  #config(query: Query, options: DriverCallOptions | undefined) {
    // Known once the setup ran (it runs before the first query): a schema without describe_v3.
    const text =
      query.text === this.sql.describeDirectory && this.share.withoutDescribe.has(this.sql.schema)
        ? this.sql.describeDirectoryStatement
        : query.text;
    return {
      text,
      values: query.values as unknown[],
      rowMode: 'array',
      types: RAW,
      query_timeout: Math.max(1, timeLeft(options)),
      ...(query.binary ? { binary: true } : {}),
      ...(this.prepare ? { name: statementName(text) } : {}),
    } as pg.QueryArrayConfig & { query_timeout: number };
  }

  #checkOpen(options: DriverCallOptions | undefined): void {
    if (this.#closed) throw storeUnavailable('the store was closed', undefined, 'closed');
    // The deadline passed, so the engine stopped waiting and reported the command: send nothing.
    // (The deadline alone, not the signal: reading the engine's signal makes an AbortController.)
    if (options?.deadline !== undefined && Date.now() >= options.deadline) {
      throw storeUnavailable('the command ran out of time', undefined, 'timeout');
    }
  }

  #retried(options: DriverCallOptions | undefined, message: string, reason: string): void {
    if (options?.stats) options.stats.retries++;
    this.log.debug(message, { reason });
  }

  #succeeded(started: number): void {
    if (this.#lost) {
      this.#lost = false;
      this.log.info('connection to PostgreSQL regained');
    }
    const ms = Date.now() - started;
    if (ms >= SLOW_CALL_MS) this.log.warn('slow call', { ms });
  }
}

/**
 * The pool's clients whose connection is not yet open (pg-pool's `_clients`, pg's `_connected`:
 * neither is public, so a pool without them gives none and `close()` waits as pg does).
 */
function openingClients(pool: pg.Pool): Array<{ connection?: { stream?: { destroy(): void } } }> {
  const clients = (pool as unknown as { _clients?: unknown })._clients;
  if (!Array.isArray(clients)) return [];
  return clients.filter((client) => (client as { _connected?: boolean })._connected === false);
}
