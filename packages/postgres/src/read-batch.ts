// Reads of one namespace that arrive while several are in flight go together in the next call: one
// statement that looks up every path of the batch by primary key (and, for a path with no file,
// whether files lie beneath it), from one snapshot. Each read is answered as if it had been sent
// alone at that moment, which lies within the time every one of them was waiting (a copy's
// verification reading 10,000 files back, an export, parallel tool calls). The first few reads in
// flight are sent alone at once, as before: a lone read gets no later answer than it did.
import type { DriverCallOptions, DriverDirectory, DriverFile, DriverPath } from '@memdir/core';
import type { Backend, Row } from './backend.js';
import { subtree } from './sql.js';

/** Calls of one namespace's reads in flight at once: reads alone, or batches. */
const MAX_IN_FLIGHT = 4;
/** Reads in one call, at most. */
const MAX_BATCH = 128;
/** A read of a failed batch runs again alone when it has this much time left. */
const MIN_RETRY_MS = 100;

type Node = DriverFile | DriverDirectory | null;

interface Pending {
  readonly path: DriverPath;
  readonly options: DriverCallOptions | undefined;
  resolve(node: Node): void;
  reject(error: unknown): void;
}

/** A read's answer from its row: kind ('f', 'd' or null), content, version. */
function nodeOf(row: Row | undefined): Node {
  if (!row || row[0] === null) return null;
  if (row[0] === 'd') return { kind: 'directory' };
  return { kind: 'file', content: row[1]!, version: row[2]! };
}

/** The reads of one namespace (one driver instance). */
export class ReadBatcher {
  readonly #backend: Backend;
  readonly #ns: string;
  #inFlight = 0;
  #waiting: Pending[] = [];

  constructor(backend: Backend, ns: string) {
    this.#backend = backend;
    this.#ns = ns;
  }

  /** Reads one path (not the root): alone when few reads are in flight, else in the next batch. */
  read(path: DriverPath, options: DriverCallOptions | undefined): Promise<Node> {
    if (this.#inFlight < MAX_IN_FLIGHT && this.#waiting.length === 0) {
      this.#inFlight++;
      return this.#single(path, options).finally(() => this.#done());
    }
    return new Promise<Node>((resolve, reject) => {
      this.#waiting.push({ path, options, resolve, reject });
    });
  }

  #done(): void {
    this.#inFlight--;
    while (this.#inFlight < MAX_IN_FLIGHT && this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      this.#inFlight++;
      this.#batch(batch).finally(() => this.#done());
    }
  }

  async #single(path: DriverPath, options: DriverCallOptions | undefined): Promise<Node> {
    const [row] = await this.#backend.run(
      { text: this.#backend.sql.read, values: [this.#ns, path, ...subtree(path)], binary: true },
      false,
      options,
    );
    return nodeOf(row);
  }

  /** Sends a batch (or a lone read); answers each read with its own node. */
  async #batch(batch: readonly Pending[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      await this.#single(only.path, only.options).then(only.resolve, only.reject);
      return;
    }
    // Bounded by the earliest deadline of the batch: nobody is answered later than they wait.
    const deadline = Math.min(...batch.map((pending) => pending.options?.deadline ?? Date.now() + 5_000));
    for (const pending of batch) {
      const stats = pending.options?.stats;
      if (stats) {
        stats.roundTrips++;
        stats.requests++;
      }
    }
    let rows: Row[];
    try {
      rows = await this.#backend.run(
        {
          text: this.#backend.sql.readMany,
          values: [this.#ns, batch.map((pending) => pending.path)],
          binary: true,
        },
        false,
        { deadline },
      );
    } catch (error) {
      // A read changes nothing: one with time left runs again alone, the others get the failure.
      await Promise.all(
        batch.map((pending) =>
          (pending.options?.deadline ?? Date.now() + 5_000) - Date.now() >= MIN_RETRY_MS
            ? this.#single(pending.path, pending.options).then(pending.resolve, pending.reject)
            : pending.reject(error),
        ),
      );
      return;
    }
    for (const [index, pending] of batch.entries()) pending.resolve(nodeOf(rows[index]));
  }
}
