// The flags of `memdir serve --http`, checked and turned into the server's configuration.
import { isIP } from 'node:net';
import { CliUsageError } from './errors.js';

/** How `memdir serve --http` runs. */
export interface HttpServeConfig {
  /** The address to listen on. @default '127.0.0.1' */
  host: string;
  /** The port; 0 takes a free one (the log line says which). @default 8787 */
  port: number;
  /** The tokens file (absolute). */
  tokensFile: string;
  /** Requests per second one token may make, on average. @default 20 */
  ratePerSecond: number;
  /** Requests one token may make at once before the rate applies. @default 60 */
  burst: number;
  /** Requests being answered at once, over all tokens; past it, 503. @default 256 */
  maxInFlight: number;
  /** Requests being answered at once for one token; past it, 429. @default 32 */
  maxInFlightPerToken: number;
  /** A session with no request for this long is closed, in milliseconds. @default 1800000 (30 min) */
  sessionIdleMs: number;
  /** How long SIGTERM waits for requests in flight, in milliseconds. @default 10000 */
  shutdownGraceMs: number;
}

/** The address `--http` listens on when given no value. */
export const DEFAULT_HTTP_ADDRESS = '127.0.0.1:8787';

/** The flags `memdir serve` takes for HTTP, besides `--http` itself. */
export const HTTP_FLAGS = {
  http: { type: 'string' },
  tokens: { type: 'string' },
  rate: { type: 'string' },
  burst: { type: 'string' },
  'max-inflight': { type: 'string' },
  'max-inflight-per-token': { type: 'string' },
  'session-idle': { type: 'string' },
  'shutdown-grace': { type: 'string' },
} as const;

/**
 * `--http` may come without a value (`memdir serve --http --store ...`): the default address is
 * put in, since `parseArgs` has no optional values.
 */
export function withDefaultHttpAddress(args: readonly string[]): string[] {
  const out = [...args];
  for (let index = 0; index < out.length; index++) {
    if (out[index] !== '--http') continue;
    const next = out[index + 1];
    if (next === undefined || next.startsWith('-')) out.splice(index + 1, 0, DEFAULT_HTTP_ADDRESS);
  }
  return out;
}

/** `HOST:PORT`, `[IPv6]:PORT` or `PORT`. */
export function parseHttpAddress(value: string): { host: string; port: number } {
  const match = /^(?:(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  const v6 = match?.[1];
  const host = v6 ?? (match?.[2] || '127.0.0.1');
  if (!match || port > 65535 || (v6 !== undefined && isIP(v6) !== 6)) {
    throw new CliUsageError(
      `serve: --http expects HOST:PORT (e.g. 127.0.0.1:8787, 0.0.0.0:8787, [::1]:8787), got ${JSON.stringify(value)}`,
    );
  }
  return { host, port };
}

/** True for an address only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function positive(values: Record<string, unknown>, flag: string, fallback: number, scale = 1): number {
  const value = values[flag];
  if (value === undefined) return fallback * scale;
  const number = Number(value);
  if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value) || !(number > 0)) {
    throw new CliUsageError(`serve: --${flag} expects a positive number, got ${JSON.stringify(value)}`);
  }
  return number * scale;
}

/** The configuration from the flags; throws {@link CliUsageError} for a bad one. */
export function httpServeConfig(values: Record<string, unknown>, tokensFile: string): HttpServeConfig {
  const { host, port } = parseHttpAddress(String(values['http']));
  const integer = (flag: string, fallback: number) => {
    const number = positive(values, flag, fallback);
    if (!Number.isInteger(number)) {
      throw new CliUsageError(`serve: --${flag} expects a whole number, got ${JSON.stringify(values[flag])}`);
    }
    return number;
  };
  return {
    host,
    port,
    tokensFile,
    ratePerSecond: positive(values, 'rate', 20),
    burst: integer('burst', 60),
    maxInFlight: integer('max-inflight', 256),
    maxInFlightPerToken: integer('max-inflight-per-token', 32),
    sessionIdleMs: positive(values, 'session-idle', 1800, 1000),
    shutdownGraceMs: positive(values, 'shutdown-grace', 10, 1000),
  };
}
