/**
 * The outcomes of recent change calls by operation id, for a driver that recognises its own replays
 * in this process (`capabilities.replaySafe`): a call that comes again with the id of one that
 * changed something gets that outcome back and applies nothing again. Bounded, oldest forgotten
 * first: ids are unique, and a replay comes soon after the original or not at all. Replays that
 * can reach the server from another process (a resent request) still need the server's own record.
 */
export class Receipts<T = unknown> {
  readonly #outcomes = new Map<string, T>();
  readonly #limit: number;

  /** @param limit the most outcomes kept. @default 10000 */
  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  has(op: string): boolean {
    return this.#outcomes.has(op);
  }

  /** The recorded outcome of `op` (undefined when none). */
  get(op: string): T | undefined {
    return this.#outcomes.get(op);
  }

  /** Records `outcome` under `op` and returns it. */
  record(op: string, outcome: T): T {
    this.#outcomes.delete(op);
    this.#outcomes.set(op, outcome);
    if (this.#outcomes.size > this.#limit) this.#outcomes.delete(this.#outcomes.keys().next().value!);
    return outcome;
  }
}
