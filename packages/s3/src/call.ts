// What the requests of one driver call share: the command's deadline (every request is aborted at
// the time left), the telemetry counters the engine passes while someone listens, and the log.
import type { DriverCallStats } from '@memdir/core';
import { type DriverLog, deadlineOf } from '@memdir/core/driver';

/** The options a driver call receives, as far as its requests care. */
export interface CallOptions {
  readonly deadline?: number | undefined;
  readonly stats?: DriverCallStats | undefined;
}

export class Call {
  readonly deadline: number;
  readonly stats: DriverCallStats | undefined;
  readonly log: DriverLog;
  #inFlight = 0;

  constructor(log: DriverLog, options?: CallOptions, deadline = deadlineOf(options)) {
    this.log = log;
    this.deadline = deadline;
    this.stats = options?.stats;
  }

  /** Milliseconds left before the deadline (0 once it passed). */
  get left(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /**
   * The call that work done for several calls at once runs under (a group commit, a lease taken for
   * a queue of changes): it lasts as long as the latest of them waits, and counts on the first.
   */
  static shared(calls: readonly Call[]): Call {
    const first = calls[0]!;
    const deadline = Math.max(...calls.map((call) => call.deadline));
    return deadline === first.deadline ? first : new Call(first.log, first, deadline);
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
