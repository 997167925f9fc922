// What the requests of one driver call share: the command's deadline (every request is aborted at
// the time left), the telemetry counters the engine passes while someone listens, and the log. The
// deadline is read from the engine's options each time, since it moves when a call waiting behind
// other writers reports their progress (`progressed`).
import type { DriverCallStats } from '@memdir/core';
import { type DriverLog, STANDALONE_DEADLINE_MS } from '@memdir/core/driver';

/** The options a driver call receives, as far as its requests care. */
export interface CallOptions {
  readonly deadline?: number | undefined;
  readonly stats?: DriverCallStats | undefined;
  progressed?(): void;
}

export class Call {
  readonly stats: DriverCallStats | undefined;
  readonly log: DriverLog;
  /** The engine's options, whose deadline this call follows; undefined for a fixed deadline. */
  readonly #options: CallOptions | undefined;
  /** A deadline of the call's own (upkeep, a driver called without one). */
  readonly #fixed: number;
  /** The calls this one serves at once (see {@link shared}); empty for a call of its own. */
  readonly #serves: readonly Call[];
  #inFlight = 0;

  /**
   * @param deadline a deadline of the call's own, instead of the one in `options` (which follows the
   *   engine's), or 5 s from now when `options` has none.
   */
  constructor(log: DriverLog, options?: CallOptions, deadline?: number, serves: readonly Call[] = []) {
    this.log = log;
    this.stats = options?.stats;
    const live = serves.length === 0 && deadline === undefined && options?.deadline !== undefined;
    this.#options = live ? options : undefined;
    this.#fixed = deadline ?? options?.deadline ?? Date.now() + STANDALONE_DEADLINE_MS;
    this.#serves = serves;
  }

  /** The deadline in `Date.now()` ms: for a shared call, the latest of those it serves. */
  get deadline(): number {
    if (this.#serves.length > 0) {
      let latest = 0;
      for (const call of this.#serves) latest = Math.max(latest, call.deadline);
      return latest;
    }
    return this.#options?.deadline ?? this.#fixed;
  }

  /** Milliseconds left before the deadline (0 once it passed). */
  get left(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /**
   * The call this one waits behind saw the backend make progress (another writer's turn ended):
   * tells the engine, which moves the deadline (`DriverCallOptions.progressed`); for a shared call,
   * every call it serves.
   */
  progressed(): void {
    for (const call of this.#serves) call.progressed();
    this.#options?.progressed?.();
  }

  /**
   * The call that work done for several calls at once runs under (a group commit, a lease taken for
   * a queue of changes): it lasts as long as the latest of them waits, and counts on the first.
   */
  static shared(calls: readonly Call[]): Call {
    const first = calls[0]!;
    return calls.length === 1 ? first : new Call(first.log, first, undefined, calls);
  }

  /** A request goes out: a new round trip unless another request of this call is in flight. */
  started(): void {
    const { stats } = this;
    if (stats) {
      stats.requests++;
      if (this.#inFlight === 0) stats.roundTrips++;
    }
    this.#inFlight++;
  }

  ended(): void {
    this.#inFlight--;
  }

  retried(count = 1): void {
    if (this.stats) this.stats.retries += count;
  }
}
