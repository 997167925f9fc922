// Creating layout 4 in a schema, or upgrading layout 1 (wave 2), 2 or 3 to it in place. Needs no superuser:
// the role must be able to create the schema (CREATE on the database) or own one that exists.
//
// Processes that start at once take turns under an advisory lock (two-key form, transaction-scoped,
// so it works behind PgBouncer), and the later ones find everything made. A new schema is made in one
// transaction. An upgrade is two: the first adds the totals table and the layout 2 functions and
// turns layout 1's functions into wrappers over them (so an older release that is still running keeps
// the totals right from then on); the second, once changes already inside an old function body have
// ended, counts the totals from the files with every change held out, and marks layout 2 complete.
// A crash between the two leaves layout 1 working, and the next setup finishes the job. From layout 2
// the upgrade is one transaction: the history and expiry columns, the versions table, the layout 3
// functions, and layout 2's functions as wrappers over them (the totals are right already). From
// layout 3 likewise: the record columns and the id index (identity-sql.ts), the layout 4 functions
// and layout 3's as wrappers over them; the rows' records are filled by `memdir migrate` in
// batches (fill_v4), or at each row's first read, listing or change.
import type { DriverCallOptions } from '@memdir/core';
import {
  backendFailure,
  type DriverLog,
  type ProbedServer,
  probeServer,
  raceServerProbe,
  timeLeft,
  wrongServer,
} from '@memdir/core/driver';
import type pg from 'pg';
import { DESCRIBE_FUNCTION } from './describe-sql.js';
import { backendError, classify, errorCode, isServerError } from './errors.js';
import { FUNCTIONS_REVISION } from './history-sql.js';
import { functions, installedMarker, recountTotals, tables } from './layout.js';
import { addressOf, type PoolShare } from './pool.js';
import { quoteIdentifier, type Statements, setupLock } from './sql.js';

/**
 * Layout 4 is complete: its marker (made last), and the functions of this release (`describe_v3`,
 * which earlier releases did not make, and the revision marker of the bodies): a schema made by an
 * earlier release gets them at its next setup.
 */
function complete(installed: string): boolean {
  return (
    installed.includes('installed_v4') &&
    installed.includes(DESCRIBE_FUNCTION) &&
    installed.includes(FUNCTIONS_REVISION)
  );
}

/** How long changes already running inside a layout 1 function body get before the totals are counted. */
const UPGRADE_SETTLE_MS = 200;

/** What a setup call needs. */
export interface SetupContext {
  readonly share: PoolShare;
  readonly sql: Statements;
  readonly log: DriverLog;
  readonly options: DriverCallOptions | undefined;
}

/** Sends one query within the call's deadline, counted in its stats. */
function sender(client: pg.PoolClient, options: DriverCallOptions | undefined) {
  return async (text: string, values?: unknown[]): Promise<pg.QueryResult> => {
    if (options?.stats) {
      options.stats.roundTrips++;
      options.stats.requests++;
    }
    return client.query({ text, values, query_timeout: Math.max(1, timeLeft(options)) } as pg.QueryConfig);
  };
}

/**
 * Makes sure layout 4 is in the schema: one round trip when it is. Otherwise installs or upgrades it
 * (see the top of this file), within the call's deadline.
 */
export async function runSetup({ share, sql, log, options }: SetupContext): Promise<void> {
  let lease: Awaited<ReturnType<PoolShare['lease']>>;
  try {
    lease = await raceServerProbe(
      share.lease(options),
      async () => {
        const other = await otherServer(share, options);
        return other === undefined ? undefined : wrongServer('PostgreSQL', other);
      },
      PROBE_AFTER_MS,
      (late) =>
        late.then(
          (lease) => lease.release(),
          () => {},
        ),
    );
  } catch (error) {
    if (error instanceof Error && error.name === 'MemoryToolError') throw error;
    // A wrong port reaches another server, and pg's words ("Connection terminated unexpectedly",
    // or no answer at all) do not say which: ask the address what it is, once.
    const other =
      classify(error, false).reason === 'misconfigured' ? undefined : await otherServer(share, options);
    if (other !== undefined) throw wrongServer('PostgreSQL', other);
    throw setupError(error);
  }
  let failed: unknown;
  try {
    const query = sender(lease.client, options);
    const layouts = async () => String((await query(sql.installed, [sql.schema])).rows[0]?.installed ?? '');
    if (complete(await layouts())) return;
    let from = '';
    const s = quoteIdentifier(sql.schema);
    const upgrade = await transaction(query, options, sql, async (found) => {
      if (complete(found)) return false;
      if (found.includes('installed_v4')) {
        // Layout 4 made by an earlier release: the tables are right, the functions are replaced
        // (each call already running finishes with the body it started). A role that may not
        // replace them (the schema set up by another) goes on with them; without describe_v3, views
        // take the single statement.
        await query('SAVEPOINT functions');
        try {
          await query(['SET LOCAL check_function_bodies = off', ...functions(s)].join(';\n'));
          from = 'layout 4 of an earlier release';
        } catch (error) {
          if (errorCode(error) !== '42501') throw error;
          await query('ROLLBACK TO SAVEPOINT functions');
          const describeMissing = !found.includes(DESCRIBE_FUNCTION);
          if (describeMissing) share.withoutDescribe.add(sql.schema);
          log.warn(
            `setup: this role may not replace the functions of an earlier release in the schema${describeMissing ? '; views take the single statement' : ''} (run the setup as the schema owner: memdir migrate)`,
          );
        }
        return false;
      }
      from = found.includes('installed_v3')
        ? 'layout 3'
        : found.includes('installed_v2')
          ? 'layout 2'
          : found.includes('installed_v1')
            ? 'layout 1'
            : '';
      await checkServer(query);
      const exists = await query('SELECT pg_catalog.to_regnamespace($1) IS NOT NULL AS found', [s]);
      if (!exists.rows[0]?.found) await query(`CREATE SCHEMA ${s}`);
      // The bodies were checked when this release was tested; not parsing them again makes the
      // setup about twice as fast (pg_dump restores the same way). Their quoting holds either way.
      // An upgrade alters the tables older releases are writing to: it first waits for every change
      // in flight and holds new ones (each reads ops first, then files), taking the locks in that
      // order, so no change holds a lock the upgrade waits for while waiting for one it holds.
      const hold = from
        ? [`LOCK TABLE ${s}.ops IN ACCESS EXCLUSIVE MODE`, `LOCK TABLE ${s}.files IN ACCESS EXCLUSIVE MODE`]
        : [];
      await query(
        ['SET LOCAL check_function_bodies = off', ...hold, ...tables(s), ...functions(s)].join(';\n'),
      );
      if (found.includes('installed_v2')) {
        await query(installedMarker(s));
        return false;
      }
      if (found.includes('installed_v1')) return true;
      await query([...recountTotals(s), installedMarker(s)].join(';\n'));
      return false;
    });
    if (upgrade) {
      await new Promise((resolve) => setTimeout(resolve, UPGRADE_SETTLE_MS));
      await transaction(query, options, sql, async (found) => {
        if (found.includes('installed_v4')) return false;
        // Waits for every change in flight (each reads ops first) and holds new ones, and writers
        // of files, until the totals are counted.
        await query(`LOCK TABLE ${s}.ops IN ACCESS EXCLUSIVE MODE`);
        await query(`LOCK TABLE ${s}.files IN SHARE MODE`);
        await query([...recountTotals(s), installedMarker(s)].join(';\n'));
        return false;
      });
    }
    log.info(from ? `setup: upgraded the schema from ${from} to layout 4` : 'setup: layout 4 is installed');
  } catch (error) {
    failed = error;
    throw setupError(error);
  } finally {
    // After a refusal from the server the connection is fine (rolled back); after anything else it
    // may be half way through a reply, so the pool drops it.
    lease.release(failed === undefined || isServerError(failed) ? undefined : failed);
  }
}

/**
 * Runs `work` in one transaction under the setup lock, with lock waits bounded by the deadline;
 * `work` gets the layouts installed as seen under the lock. Rolls back on any failure.
 */
async function transaction<T>(
  query: ReturnType<typeof sender>,
  options: DriverCallOptions | undefined,
  sql: Statements,
  work: (layouts: string) => Promise<T>,
): Promise<T> {
  await query('BEGIN');
  try {
    // The server gives up by the deadline too: on a lock, a statement, or a client that went silent.
    const left = Math.max(1, timeLeft(options) - 100);
    await query(
      `SET LOCAL lock_timeout = ${left}; SET LOCAL statement_timeout = ${left}; SET LOCAL idle_in_transaction_session_timeout = ${left}`,
    );
    const lock = setupLock(sql.schema);
    await query(lock.text, lock.values);
    const found = String((await query(sql.installed, [sql.schema])).rows[0]?.installed ?? '');
    const result = await work(found);
    await query('COMMIT');
    return result;
  } catch (error) {
    await query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function checkServer(query: ReturnType<typeof sender>): Promise<void> {
  const { rows } = await query(
    "SELECT current_setting('server_version_num')::int AS version, current_setting('server_encoding') AS encoding",
  );
  const { version, encoding } = rows[0] as { version: number; encoding: string };
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

/** How long a first connection may take before the address is asked what it is. */
const PROBE_AFTER_MS = 500;

/** The kind of server at the pool's address, when it is not PostgreSQL (nor silent). */
async function otherServer(
  share: PoolShare,
  options: DriverCallOptions | undefined,
): Promise<ProbedServer | undefined> {
  const address = addressOf(share.pool);
  if (address === undefined) return undefined;
  const found = await probeServer(
    address.host,
    address.port,
    Math.min(1_000, Math.max(1, timeLeft(options))),
  );
  return found === 'PostgreSQL' || found === 'silent' ? undefined : found;
}

function setupError(error: unknown): Error {
  if (error instanceof SetupError)
    return backendFailure({ detail: error.message, reason: 'misconfigured', cause: error });
  if (errorCode(error) === '42501') {
    return backendFailure({
      detail:
        'memdir cannot create its tables in PostgreSQL (permission denied: run setup as a role that may create the schema, or create it and give this role its ownership)',
      reason: 'misconfigured',
      cause: error,
    });
  }
  if (error instanceof Error && error.name === 'MemoryToolError') return error;
  return backendError(classify(error, false), false, error);
}
