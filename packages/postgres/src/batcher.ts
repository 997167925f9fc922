// The calls of one namespace that arrive while several of its kind are in flight go together in the
// next call to the server: one statement for all of them, each answered with its own outcome as if
// it had been sent alone. The first calls in flight are sent alone at once, so a lone call gets no
// later answer than it would without batching. write-batch.ts and read-batch.ts say what each kind
// sends; this is the line they share: how many calls are in flight, which wait, which go together,
// the batch's deadline and counted round trips, and each call alone again after a failed batch.
import { DEFAULT_TIMEOUT_MS, type DriverCallOptions } from '@memdir/core';
import type { Row } from './backend.js';

/** A call of a failed batch runs again alone when it has this much time left. */
const MIN_RETRY_MS = 100;

/** One kind of call and how it is sent, alone and together. */
export interface BatchKind<C extends { readonly options?: DriverCallOptions | undefined }, A> {
  /** Calls (lone ones or batches) in flight at once, for one namespace. */
  readonly maxInFlight: number;
  /** Calls in one batch, at most. */
  readonly maxBatch: number;
  /** Optional second bound on a batch: the sum of `weight` (bytes, say); a heavier call goes alone. */
  readonly maxWeight?: number;
  weight?(call: C): number;
  /** Sends one call alone. */
  single(call: C): Promise<A>;
  /** Sends calls together in one statement, within `options` (the batch's deadline): a row each. */
  many(calls: readonly C[], options: DriverCallOptions): Promise<Row[]>;
  /** One call's answer from its row of a batch; throws for an outcome that is an error. */
  answer(call: C, row: Row | undefined): A;
  /** Told about a batch that failed, before its calls run again alone. */
  failed?(error: unknown, calls: number): void;
}

interface Waiting<C, A> {
  readonly call: C;
  resolve(answer: A): void;
  reject(error: unknown): void;
}

/** A call's deadline; one that carries none waits as long as the engine's default timeout. */
const deadlineOf = (options: DriverCallOptions | undefined) =>
  options?.deadline ?? Date.now() + DEFAULT_TIMEOUT_MS;

/** The line of one kind of call of one namespace (one driver instance). */
export class Batcher<C extends { readonly options?: DriverCallOptions | undefined }, A> {
  readonly #kind: BatchKind<C, A>;
  #inFlight = 0;
  #waiting: Array<Waiting<C, A>> = [];

  constructor(kind: BatchKind<C, A>) {
    this.#kind = kind;
  }

  /** Runs one call: alone when few of its kind are in flight, else in the next batch. */
  run(call: C): Promise<A> {
    if (this.#inFlight < this.#kind.maxInFlight && this.#waiting.length === 0) {
      this.#inFlight++;
      return this.#kind.single(call).finally(() => this.#done());
    }
    return new Promise<A>((resolve, reject) => {
      this.#waiting.push({ call, resolve, reject });
    });
  }

  #done(): void {
    this.#inFlight--;
    while (this.#inFlight < this.#kind.maxInFlight && this.#waiting.length > 0) {
      const batch = this.#take();
      this.#inFlight++;
      this.#send(batch).finally(() => this.#done());
    }
  }

  /** The next calls in line, up to the batch's limits (always at least one). */
  #take(): Array<Waiting<C, A>> {
    const kind = this.#kind;
    const maxWeight = kind.maxWeight ?? Number.POSITIVE_INFINITY;
    let count = 0;
    let total = 0;
    for (const waiting of this.#waiting) {
      if (count >= kind.maxBatch) break;
      const more = kind.weight?.(waiting.call) ?? 0;
      if (count > 0 && total + more > maxWeight) break;
      total += more;
      count++;
    }
    return this.#waiting.splice(0, count);
  }

  #alone(waiting: Waiting<C, A>): Promise<void> {
    return this.#kind.single(waiting.call).then(waiting.resolve, waiting.reject);
  }

  /** Sends a batch (or a lone call); answers each call with its own outcome. */
  async #send(batch: ReadonlyArray<Waiting<C, A>>): Promise<void> {
    if (batch.length === 1) return this.#alone(batch[0]!);
    const kind = this.#kind;
    // Bounded by the earliest deadline of the batch: nobody is answered later than they wait.
    const deadline = Math.min(...batch.map((waiting) => deadlineOf(waiting.call.options)));
    for (const { call } of batch) {
      const stats = call.options?.stats;
      if (stats) {
        stats.roundTrips++;
        stats.requests++;
      }
    }
    let rows: Row[];
    try {
      rows = await kind.many(
        batch.map((waiting) => waiting.call),
        { deadline },
      );
    } catch (error) {
      kind.failed?.(error, batch.length);
      // A call with time left runs again alone (a read changes nothing; a write's op id makes
      // that safe whether its batch landed or not); the others get the batch's failure, which
      // says whether its outcome is unknown.
      await Promise.all(
        batch.map((waiting) =>
          deadlineOf(waiting.call.options) - Date.now() >= MIN_RETRY_MS
            ? this.#alone(waiting)
            : waiting.reject(error),
        ),
      );
      return;
    }
    batch.forEach((waiting, index) => {
      try {
        waiting.resolve(kind.answer(waiting.call, rows[index]));
      } catch (error) {
        waiting.reject(error);
      }
    });
  }
}
