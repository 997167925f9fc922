// Prometheus metrics of the server, in the text exposition format (version 0.0.4). Content-free by
// construction: the only labels are the door, the outcome (a fixed word), and the token's name for
// rate-limit refusals; never a token, a path, a namespace's content or a client address.

/** Latency buckets in seconds, from a cached health check to a slow store. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const LABEL_VALUE = /^[A-Za-z0-9/._@+-]{1,64}$/;

function label(value: string): string {
  return LABEL_VALUE.test(value) ? value : 'other';
}

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/** The server's counters, histograms and gauges. */
export class Metrics {
  readonly #requests = new Map<string, number>();
  readonly #latency = new Map<string, Histogram>();
  readonly #rateLimited = new Map<string, number>();
  #inFlight = 0;

  /** Counts a request as it starts; call the returned function once it is answered. */
  start(): () => void {
    this.#inFlight++;
    let done = false;
    return () => {
      if (!done) this.#inFlight--;
      done = true;
    };
  }

  /** Records one answered request of `door` with its `outcome` and its duration. */
  observe(door: string, outcome: string, seconds: number): void {
    const key = `door="${label(door)}",outcome="${label(outcome)}"`;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    const doorKey = `door="${label(door)}"`;
    let histogram = this.#latency.get(doorKey);
    if (histogram === undefined) {
      histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.#latency.set(doorKey, histogram);
    }
    for (let index = 0; index < BUCKETS.length; index++)
      if (seconds <= BUCKETS[index]!) histogram.counts[index]!++;
    histogram.sum += seconds;
    histogram.count++;
  }

  /** Counts a refusal of `token` (its name) by the rate limit or its in-flight cap. */
  rateLimited(token: string): void {
    const key = `token="${label(token)}"`;
    this.#rateLimited.set(key, (this.#rateLimited.get(key) ?? 0) + 1);
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [
      '# HELP memdir_http_requests_total HTTP requests answered, by door and outcome.',
      '# TYPE memdir_http_requests_total counter',
    ];
    for (const [key, value] of this.#requests) lines.push(`memdir_http_requests_total{${key}} ${value}`);
    lines.push(
      '# HELP memdir_http_request_duration_seconds Time to answer a request, by door.',
      '# TYPE memdir_http_request_duration_seconds histogram',
    );
    for (const [key, histogram] of this.#latency) {
      BUCKETS.forEach((bound, index) => {
        lines.push(
          `memdir_http_request_duration_seconds_bucket{${key},le="${bound}"} ${histogram.counts[index]}`,
        );
      });
      lines.push(`memdir_http_request_duration_seconds_bucket{${key},le="+Inf"} ${histogram.count}`);
      lines.push(`memdir_http_request_duration_seconds_sum{${key}} ${histogram.sum}`);
      lines.push(`memdir_http_request_duration_seconds_count{${key}} ${histogram.count}`);
    }
    lines.push(
      '# HELP memdir_http_requests_in_flight Requests being answered now.',
      '# TYPE memdir_http_requests_in_flight gauge',
      `memdir_http_requests_in_flight ${this.#inFlight}`,
      '# HELP memdir_rate_limited_total Calls refused by a token rate limit or in-flight cap, by token name.',
      '# TYPE memdir_rate_limited_total counter',
    );
    for (const [key, value] of this.#rateLimited) lines.push(`memdir_rate_limited_total{${key}} ${value}`);
    return `${lines.join('\n')}\n`;
  }
}
