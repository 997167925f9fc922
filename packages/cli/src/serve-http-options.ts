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
  /** `Host` values answered (`--allowed-host`); empty answers any. @default [] */
  allowedHosts: string[];
  /** `Origin` values allowed to call (`--allowed-origin`); a request without `Origin` always is. @default [] */
  allowedOrigins: string[];
  /** Connections open at once; past it the longest idle one is closed, else the new one. @default 512 */
  maxConnections: number;
  /** How long a request's headers may take to arrive, in milliseconds. @default 10000 */
  headersTimeoutMs: number;
  /** How long a whole request (headers and body) may take to arrive, in milliseconds. @default 120000 */
  requestTimeoutMs: number;
  /**
   * How long a connection whose request is being answered may go without a byte moving, in
   * milliseconds: a client that does not read its response is cut. @default 30000
   */
  writeTimeoutMs: number;
  /**
   * The quota of each token's namespace (`--quota-bytes`, `--quota-files`), judged by the store in
   * the same step as each change; the tokens sharing a namespace share it. @default no quota
   */
  quota: { maxBytes?: number; maxFiles?: number } | undefined;
  /**
   * The limits of each memory store of the memory stores API (`--store-max-memories`,
   * `--store-max-bytes`, `--store-max-memory-bytes`): its namespace's quota and file limit, for
   * the API's writes and the memory tool's alike. @default the hosted API's: 2,000 memories,
   * 100 MB, 102,400 bytes per memory
   */
  storeLimits: { maxFiles: number; maxBytes: number; maxFileBytes: number };
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
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'max-connections': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'write-timeout': { type: 'string' },
  'quota-bytes': { type: 'string' },
  'quota-files': { type: 'string' },
  'store-max-memories': { type: 'string' },
  'store-max-bytes': { type: 'string' },
  'store-max-memory-bytes': { type: 'string' },
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

/** A host name, IPv4 address or `[IPv6]` address, with an optional `:PORT`, as a `Host` header says it. */
const HOST_HEADER =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

function listOf(values: Record<string, unknown>, flag: string): string[] {
  const value = values[flag];
  return value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);
}

/** `--allowed-host HOST[:PORT]`, each as given (the check ignores case). */
export function allowedHosts(values: Record<string, unknown>): string[] {
  return listOf(values, 'allowed-host').map((host) => {
    const v6 = /^\[(.*)\]/.exec(host)?.[1];
    const port = /:(\d+)$/.exec(host)?.[1];
    if (
      !HOST_HEADER.test(host) ||
      (v6 !== undefined && isIP(v6) !== 6) ||
      (port !== undefined && Number(port) > 65535)
    ) {
      throw new CliUsageError(
        `serve: --allowed-host expects a host name as clients send it in Host (memory.example.com, memory.example.com:8443, [::1]:8787), got ${JSON.stringify(host)}`,
      );
    }
    return host;
  });
}

/**
 * `--allowed-origin SCHEME://HOST[:PORT]`, exactly as a browser sends it in `Origin` (lower case, no
 * path, no default port), since the check compares the two as strings.
 */
export function allowedOrigins(values: Record<string, unknown>): string[] {
  return listOf(values, 'allowed-origin').map((origin) => {
    let serialized: string | undefined;
    try {
      const url = new URL(origin);
      if (url.protocol === 'http:' || url.protocol === 'https:') serialized = url.origin;
    } catch {
      serialized = undefined;
    }
    if (serialized !== origin) {
      const hint = serialized === undefined ? '' : ` (did you mean ${JSON.stringify(serialized)}?)`;
      throw new CliUsageError(
        `serve: --allowed-origin expects an origin as browsers send it, http(s)://HOST[:PORT] with no path (https://app.example.com), got ${JSON.stringify(origin)}${hint}`,
      );
    }
    return origin;
  });
}

function quotaOf(
  values: Record<string, unknown>,
  integer: (flag: string, fallback: number) => number,
): HttpServeConfig['quota'] {
  const quota: NonNullable<HttpServeConfig['quota']> = {};
  if (values['quota-bytes'] !== undefined) quota.maxBytes = integer('quota-bytes', 0);
  if (values['quota-files'] !== undefined) quota.maxFiles = integer('quota-files', 0);
  return Object.keys(quota).length === 0 ? undefined : quota;
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
  const headersTimeoutMs = positive(values, 'headers-timeout', 10, 1000);
  const requestTimeoutMs = positive(values, 'request-timeout', 120, 1000);
  if (headersTimeoutMs > requestTimeoutMs) {
    // Node refuses it too: the headers are part of the request.
    throw new CliUsageError(
      `serve: --headers-timeout (${headersTimeoutMs / 1000}) must not be longer than --request-timeout (${requestTimeoutMs / 1000})`,
    );
  }
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
    allowedHosts: allowedHosts(values),
    allowedOrigins: allowedOrigins(values),
    maxConnections: integer('max-connections', 512),
    headersTimeoutMs,
    requestTimeoutMs,
    writeTimeoutMs: positive(values, 'write-timeout', 30, 1000),
    quota: quotaOf(values, integer),
    storeLimits: {
      maxFiles: integer('store-max-memories', 2_000),
      maxBytes: integer('store-max-bytes', 104_857_600),
      maxFileBytes: integer('store-max-memory-bytes', 102_400),
    },
  };
}
