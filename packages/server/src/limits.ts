// What keeps one token (or everyone at once) from taking the whole server: a rate per token and a
// cap on the work in flight per token and overall, both charged per call (a JSON-RPC batch of N
// tool calls costs N), not per HTTP request.

/**
 * A token bucket per key: `burst` calls at once, refilled at `ratePerSecond`. Buckets that have
 * been full for a while are dropped, so the map does not grow with every key ever seen.
 */
export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(ratePerSecond: number, burst: number) {
    this.#rate = ratePerSecond;
    this.#burst = burst;
  }

  /**
   * Takes `cost` calls for `key` at `now` (milliseconds), all or none: 0 when they may go, else the
   * whole seconds to wait (at least 1), for `Retry-After`. A cost over the burst never fits.
   */
  take(key: string, now: number, cost = 1): number {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 1024) this.#sweep(now);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil((Math.min(cost, this.#burst) - bucket.tokens) / this.#rate));
  }

  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.#rate >= this.#burst) this.#buckets.delete(key);
    }
  }
}

/** Counts calls in flight, overall and per key, against a cap for each. */
export class InFlight {
  readonly #max: number;
  readonly #maxPerKey: number;
  readonly #perKey = new Map<string, number>();
  #total = 0;
  #idle: Array<() => void> = [];

  constructor(max: number, maxPerKey: number) {
    this.#max = max;
    this.#maxPerKey = maxPerKey;
  }

  get total(): number {
    return this.#total;
  }

  /**
   * Counts `cost` more calls for `key`, or says which cap they would pass (`'overall'` or `'key'`)
   * and counts nothing. What was counted must be released once with the same cost.
   */
  enter(key: string, cost = 1): 'ok' | 'overall' | 'key' {
    if (this.#total + cost > this.#max) return 'overall';
    const count = this.#perKey.get(key) ?? 0;
    if (count + cost > this.#maxPerKey) return 'key';
    this.#perKey.set(key, count + cost);
    this.#total += cost;
    return 'ok';
  }

  leave(key: string, cost = 1): void {
    const count = this.#perKey.get(key) ?? 0;
    if (count <= cost) this.#perKey.delete(key);
    else this.#perKey.set(key, count - cost);
    this.#total -= cost;
    if (this.#total === 0) for (const wake of this.#idle.splice(0)) wake();
  }

  /** Resolves once nothing is in flight (at once when nothing is). */
  idle(): Promise<void> {
    if (this.#total === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}
