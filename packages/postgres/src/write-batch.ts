// Concurrent writes of one namespace take turns on the server anyway: a new path holds the
// namespace's advisory lock, and every change the totals row, until its commit. So the writes that
// arrive while others of the namespace are in flight go together in the next call: one statement
// that runs write_v3 for each, in the order they came, in one transaction — the lock taken once, one
// commit and one round trip for all of them (a copy of 10,000 files, an agent's parallel tool
// calls). Each write gets its own outcome, as if it had been sent alone right after the one before.
// A lone write is sent at once, as before.
import type { DriverCallOptions, DriverPath, DriverWriteOptions } from '@memdir/core';
import { ancestors, utf8Length } from '@memdir/core/driver';
import type { Backend } from './backend.js';
import { recordParam } from './history.js';
import { writeOutcome } from './outcomes.js';
import { lockWait } from './sql.js';

/** Calls of one namespace's writes in flight at once: one running, one on its way. */
const MAX_IN_FLIGHT = 2;
/** Writes in one call, at most. */
const MAX_BATCH = 64;
/** Content bytes in one call, at most (a larger file goes alone). */
const MAX_BATCH_BYTES = 4 << 20;
/** A write of a failed batch runs again alone when it has this much time left. */
const MIN_RETRY_MS = 100;

interface Pending {
  readonly path: DriverPath;
  readonly content: string;
  readonly bytes: number;
  readonly options: DriverWriteOptions;
  resolve(version: string): void;
  reject(error: unknown): void;
}

/** The writes of one namespace (one driver instance). */
export class WriteBatcher {
  readonly #backend: Backend;
  readonly #ns: string;
  #inFlight = 0;
  #waiting: Pending[] = [];

  constructor(backend: Backend, ns: string) {
    this.#backend = backend;
    this.#ns = ns;
  }

  /** Writes one file: alone when nothing else of the namespace is in flight, else in the next batch. */
  write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<string> {
    if (this.#inFlight < MAX_IN_FLIGHT && this.#waiting.length === 0) {
      this.#inFlight++;
      return this.#single(path, content, options).finally(() => this.#done());
    }
    return new Promise<string>((resolve, reject) => {
      this.#waiting.push({ path, content, bytes: utf8Length(content), options, resolve, reject });
    });
  }

  #done(): void {
    this.#inFlight--;
    while (this.#inFlight < MAX_IN_FLIGHT && this.#waiting.length > 0) {
      const batch = this.#take();
      this.#inFlight++;
      this.#batch(batch).finally(() => this.#done());
    }
  }

  /** The next writes in line, up to the batch's limits (always at least one). */
  #take(): Pending[] {
    let bytes = 0;
    let count = 0;
    for (const pending of this.#waiting) {
      if (count > 0 && (count >= MAX_BATCH || bytes + pending.bytes > MAX_BATCH_BYTES)) break;
      bytes += pending.bytes;
      count++;
    }
    return this.#waiting.splice(0, count);
  }

  async #single(path: DriverPath, content: string, options: DriverWriteOptions): Promise<string> {
    const { quota } = options;
    const [row] = await this.#backend.run(
      {
        text: this.#backend.sql.write,
        values: [
          this.#ns,
          path,
          Buffer.from(content, 'utf8'),
          expected(options),
          options.op,
          ancestors(path),
          quota?.maxBytes ?? null,
          quota?.maxFiles ?? null,
          lockWait(options),
          [],
          recordParam(options.record),
          options.fileId ?? null,
        ],
      },
      true,
      options,
    );
    return writeOutcome(path, row?.[0]);
  }

  /** Sends a batch (or a lone write); answers each write with its own outcome. */
  async #batch(batch: readonly Pending[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      await this.#single(only.path, only.content, only.options).then(only.resolve, only.reject);
      return;
    }
    // Bounded by the earliest deadline of the batch: nobody is answered later than they wait.
    const deadline = Math.min(...batch.map((pending) => pending.options.deadline ?? Date.now() + 5_000));
    const options: DriverCallOptions = { deadline };
    for (const pending of batch) {
      const stats = pending.options.stats;
      if (stats) {
        stats.roundTrips++;
        stats.requests++;
      }
    }
    let rows: Awaited<ReturnType<Backend['run']>>;
    try {
      rows = await this.#backend.run(
        {
          text: this.#backend.sql.writeMany,
          values: [
            this.#ns,
            batch.map((pending) => pending.path),
            batch.map((pending) => Buffer.from(pending.content, 'utf8')),
            batch.map((pending) => expected(pending.options)),
            batch.map((pending) => pending.options.op),
            batch.map((pending) => pending.options.quota?.maxBytes ?? null),
            batch.map((pending) => pending.options.quota?.maxFiles ?? null),
            batch.map((pending) => recordParam(pending.options.record)),
            batch.map((pending) => pending.options.fileId ?? null),
            lockWait(options),
          ],
        },
        true,
        options,
      );
    } catch (error) {
      this.#backend.log.warn('a batch of writes failed; sending each alone', {
        writes: batch.length,
        reason: (error as { reason?: unknown }).reason,
      });
      // Nothing of the batch is known to be applied (one transaction: all or nothing). A write with
      // time left runs again alone: its op id makes that safe whether the batch landed or not. The
      // others get the batch's failure, which says whether its outcome is unknown.
      await Promise.all(
        batch.map((pending) =>
          (pending.options.deadline ?? Date.now() + 5_000) - Date.now() >= MIN_RETRY_MS
            ? this.#single(pending.path, pending.content, pending.options).then(
                pending.resolve,
                pending.reject,
              )
            : pending.reject(error),
        ),
      );
      return;
    }
    batch.forEach((pending, index) => {
      try {
        pending.resolve(writeOutcome(pending.path, rows[index]?.[0]));
      } catch (error) {
        pending.reject(error);
      }
    });
  }
}

/** write_v3's p_expect: NULL creates or replaces, '' requires no file, else the version required. */
function expected(options: DriverWriteOptions): string | null {
  const { expect } = options;
  return expect === undefined ? null : 'absent' in expect ? '' : expect.version;
}
