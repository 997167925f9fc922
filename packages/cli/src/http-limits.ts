// What keeps one token (or everyone at once) from taking the whole server: a rate per token, and a
// cap on the requests in flight per token and overall.

/**
 * A token bucket per key: `burst` requests at once, refilled at `ratePerSecond`. Buckets of keys
 * that have been full for a while are dropped, so the map does not grow with every key ever seen.
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
   * Takes one request for `key` at `now` (milliseconds): 0 when it may go, else the whole seconds
   * to wait before one more would be let through (at least 1), for `Retry-After`.
   */
  take(key: string, now: number): number {
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 1024) this.#sweep(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate));
  }

  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.#rate >= this.#burst) this.#buckets.delete(key);
    }
  }
}

/** Counts what is in flight, overall and per key, against a cap for each. */
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
   * Counts one more request for `key`, or says which cap it would pass: `'overall'` or `'key'`.
   * A request that was counted must be released once.
   */
  enter(key: string): 'ok' | 'overall' | 'key' {
    if (this.#total >= this.#max) return 'overall';
    const count = this.#perKey.get(key) ?? 0;
    if (count >= this.#maxPerKey) return 'key';
    this.#perKey.set(key, count + 1);
    this.#total++;
    return 'ok';
  }

  leave(key: string): void {
    const count = this.#perKey.get(key) ?? 0;
    if (count <= 1) this.#perKey.delete(key);
    else this.#perKey.set(key, count - 1);
    this.#total--;
    if (this.#total === 0) for (const wake of this.#idle.splice(0)) wake();
  }

  /** Resolves once nothing is in flight (at once when nothing is). */
  idle(): Promise<void> {
    if (this.#total === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}
