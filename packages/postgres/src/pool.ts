// What every driver on one pg.Pool shares, kept per pool (a WeakMap keyed by the pool), so that a
// store opened for another namespace on an open pool costs no round trip: the slots that keep calls
// within the pool's size, and the setup of each schema. And how one call gets a connection and sends
// a query within its deadline. And the id of a pool's database and schema, for telemetry.
import { createHash } from 'node:crypto';
import type { DriverCallOptions } from '@memdir/core';
import { storeUnavailable, timeLeft } from '@memdir/core/driver';
import type pg from 'pg';

/** Everything the drivers of one pool share. */
export class PoolShare {
  readonly gate: Gate;
  /** One setup per schema: a promise while it runs, true once the layout is there. */
  readonly setups = new Map<string, Promise<void> | true>();
  /**
   * Schemas of layout 3 without `describe_v3` that this role may not add (made by an earlier
   * release, the setup run by another role): their views take the single statement instead.
   */
  readonly withoutDescribe = new Set<string>();

  constructor(readonly pool: pg.Pool) {
    const max = (pool as { options?: { max?: unknown } }).options?.max;
    this.gate = new Gate(typeof max === 'number' && max > 0 ? max : 10);
  }

  /**
   * A pooled client, once one of the pool's slots is free and the pool hands one over, both within
   * the call's deadline (a connect that comes too late is given back when it comes). Calls beyond
   * the pool's size wait in order.
   */
  async lease(options: DriverCallOptions | undefined): Promise<Lease> {
    await this.gate.enter(options);
    try {
      // An idle client is handed over at once: no timer is needed for it.
      const client =
        this.pool.idleCount > 0
          ? await this.pool.connect()
          : await beforeDeadline(this.pool.connect(), options, (late) =>
              late.then(
                (client) => client.release(),
                () => {},
              ),
            );
      return new Lease(client, this.gate);
    } catch (error) {
      this.gate.leave();
      throw error;
    }
  }
}

const shares = new WeakMap<pg.Pool, PoolShare>();

/** The share of `pool`, made on first use. */
export function poolShare(pool: pg.Pool): PoolShare {
  let share = shares.get(pool);
  if (!share) {
    share = new PoolShare(pool);
    shares.set(pool, share);
  }
  return share;
}

/** A timeout of the call's own: `work` did not settle before the deadline. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  constructor(readonly what: 'connect' | 'slot') {
    super(
      what === 'connect' ? 'no connection within the deadline' : 'no free connection within the deadline',
    );
  }
}

/**
 * `work`, or a DeadlineError once the call's time is up; `abandoned` receives `work` when it lost.
 * Makes a timer only when `work` has not settled at once.
 */
async function beforeDeadline<T>(
  work: Promise<T>,
  options: DriverCallOptions | undefined,
  abandoned: (work: Promise<T>) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError('connect')), Math.max(1, timeLeft(options)));
  });
  try {
    return await Promise.race([work, late]);
  } catch (error) {
    if (error instanceof DeadlineError) abandoned(work);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A checked-out client and its slot. */
export class Lease {
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

/** At most `size` calls hold a client at once; the others wait in order, until their deadline. */
export class Gate {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  enter(options: DriverCallOptions | undefined): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(
        () => {
          const index = this.#waiting.indexOf(admit);
          if (index !== -1) this.#waiting.splice(index, 1);
          reject(
            storeUnavailable('the memory store is busy (every connection stayed in use)', undefined, 'busy'),
          );
        },
        Math.max(1, timeLeft(options)),
      );
      this.#waiting.push(admit);
    });
  }

  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

/** The TCP address the pool connects to, or `undefined` for a Unix socket or one it cannot tell. */
export function addressOf(pool: pg.Pool): { host: string; port: number } | undefined {
  const config = (pool as { options?: pg.PoolConfig }).options ?? {};
  let host = config.host;
  let port = config.port;
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      host =
        url.searchParams.get('host') ??
        (decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')) || undefined);
      port = Number(url.searchParams.get('port') ?? url.port) || undefined;
    } catch {
      return undefined;
    }
  }
  host ??= process.env.PGHOST ?? 'localhost';
  port ??= Number(process.env.PGPORT) || 5432;
  return host.startsWith('/') ? undefined : { host, port };
}

/** A stable, low-cardinality id of the database and schema for telemetry: no user, no password. */
export function identityOf(pool: pg.Pool, schema: string): string {
  const config = (pool as { options?: pg.PoolConfig }).options ?? {};
  let where = `${config.host ?? ''}:${config.port ?? ''}/${config.database ?? ''}`;
  if (config.connectionString) {
    try {
      const url = new URL(config.connectionString);
      where = `${url.hostname}:${url.port}${url.pathname}`;
    } catch {
      where = 'unparsed';
    }
  }
  return createHash('sha256').update(`${where}\u0000${schema}`).digest('hex').slice(0, 16);
}
