// The server as one web-standard handler, `fetch(Request) -> Response`, routed by Hono: health
// (`/healthz`: the process is up), readiness (`/readyz`: the store answers), Prometheus metrics
// (`/metrics`), the OAuth protected resource metadata (so MCP clients report a wrong token), and the
// doors (`server.door(path, handler)`: MCP today, the memory stores API and the inspector next),
// each behind the shared steps: Host/Origin check, authentication, access log and metrics. Rate and
// in-flight limits are charged by the door per call (`context.charge(n)`), since only the door
// knows how many calls a request holds.
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { type AccessRecord, accessLine } from './access-log.js';
import { challenge, presentedToken, type TokenGrant, type TokenTable } from './auth.js';
import { checkHostAndOrigin, type HostCheckOptions } from './host-check.js';
import { InFlight, RateLimiter } from './limits.js';
import { Metrics } from './metrics.js';

/** What a door receives besides the request. */
export interface DoorContext {
  /** The authenticated token's grant: its name, namespace and mode. */
  readonly grant: TokenGrant;
  /** The access log's record of this request: a door adds methods, commands and its refusal. */
  readonly record: AccessRecord;
  /**
   * Charges `calls` against the token's rate and in-flight caps, all or none: a release function to
   * call once the calls are answered, or the refusal to send (429 or 503, with `Retry-After`).
   */
  charge(calls: number): (() => void) | Response;
}

/** A door: the handler of the requests of one path, after the shared steps. */
export type Door = (request: Request, context: DoorContext) => Promise<Response>;

/** How a door is mounted: how a door for browsers (the inspector) authenticates besides the bearer header, and the shape of its refusals. */
export interface DoorOptions {
  /** The token a request carries where a browser keeps it (a cookie), when its headers carry none. */
  token?: (request: Request) => string | undefined;
  /** The answer to a request without a valid token (a sign-in page), instead of the 401. */
  anonymous?: (request: Request) => Promise<Response>;
  /**
   * Whether a request whose `Origin` is the server's own passes the Origin check: the door checks
   * its own changes (a CSRF token). @default false
   */
  sameOrigin?: boolean;
  /**
   * The response of a request the shared steps turn away (401, 429, 503) in the door's own error
   * shape. @default MCP's JSON-RPC error
   */
  refusal?: (status: number, message: string, headers: Record<string, string>) => Response;
}

/** The options of `createMemdirServer`. */
export interface MemdirServerOptions extends HostCheckOptions {
  /** The tokens accepted now (read again per request, so a reload takes effect at once). */
  tokens: () => TokenTable;
  /** Whether the store answers, for `/readyz`. */
  ready: () => Promise<boolean>;
  /**
   * Receives one access log line per request, with what it was made of (to log in a format of
   * your own). @default no log
   */
  log?: (line: string, entry: AccessEntry) => void;
  /**
   * Whether the process can serve, for `/healthz`: a runtime that wants a balancer to stop sending
   * work when the store does not answer passes the same check as `ready`. @default always true
   */
  healthy?: () => Promise<boolean>;
  /**
   * Whether a 401 names the OAuth protected resource metadata and says `invalid_token` for a wrong
   * token (RFC 6750, RFC 9728), so MCP clients report a bad token instead of starting an OAuth flow.
   * `false` sends a bare `WWW-Authenticate: Bearer`. @default true
   */
  oauthChallenge?: boolean;
  /** Calls per second per token. @default 20 */
  ratePerSecond?: number;
  /** Calls one token may make at once above its rate. @default 40 */
  burst?: number;
  /** Calls in flight, overall. @default 256 */
  maxInFlight?: number;
  /** Calls in flight per token. @default 32 */
  maxInFlightPerToken?: number;
}

/** The environment a runtime passes with each request (`fetch(request, env)`). */
export interface RequestEnv {
  /** The client's address, for the access log. */
  clientAddress?: string;
}

/** One answered request, as the access log sees it. */
export interface AccessEntry {
  readonly record: AccessRecord;
  readonly status: number;
  readonly ms: number;
}

/** The server: a fetch handler and a way to add doors. */
export interface MemdirServer {
  fetch(request: Request, env?: RequestEnv): Promise<Response>;
  /**
   * Mounts `door` at `path` (any method), behind the shared steps; a path ending in `/*` also takes
   * every path beneath it.
   */
  door(path: string, door: Door, options?: DoorOptions): void;
  /**
   * From now on every door answers 503 with `Retry-After: 1` and `Connection: close` (a graceful
   * stop: the runtime stops listening, then waits until the responses in flight are written;
   * `inFlight.idle()` resolves when the handlers have returned them, which may be a little earlier).
   */
  drain(): void;
  /** Calls in flight now; resolves `idle()` once there are none (for a graceful stop). */
  readonly inFlight: { readonly total: number; idle(): Promise<void> };
  readonly metrics: Metrics;
}

/**
 * The body's message of a refused token, the same for a missing, malformed, unknown or revoked one
 * (the `WWW-Authenticate` header tells them apart). A client that prints the server's message, as the
 * MCP Inspector does, tells its user what to mend.
 */
const UNAUTHORIZED = 'Unauthorized: the token is missing, wrong, expired or revoked';

/** The protected resource metadata path (RFC 9728). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

function jsonError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** What a browser on an allowed origin may send and read: MCP's headers and the token's. */
const CORS = {
  allowMethods: ['GET', 'HEAD', 'POST', 'DELETE'],
  allowHeaders: [
    'authorization',
    'x-api-key',
    'content-type',
    'accept',
    'mcp-session-id',
    'mcp-protocol-version',
    'last-event-id',
  ],
  exposeHeaders: ['mcp-session-id', 'www-authenticate', 'retry-after'],
  maxAge: 600,
};

/** Makes the server. */
export function createMemdirServer(options: MemdirServerOptions): MemdirServer {
  const metrics = new Metrics();
  const limiter = new RateLimiter(options.ratePerSecond ?? 20, options.burst ?? 40);
  const inFlight = new InFlight(options.maxInFlight ?? 256, options.maxInFlightPerToken ?? 32);
  // The door label of the log and metrics is one of the routes, never a path the client made up
  // (which would grow the metrics without bound).
  const routes = new Set(['/healthz', '/readyz', '/metrics', RESOURCE_METADATA_PATH]);
  // The doors mounted at `PATH/*`: their label is `PATH`, and those that check their own origin.
  const prefixes: Array<{ path: string; sameOrigin: boolean }> = [];
  const prefixOf = (path: string) =>
    prefixes.find((prefix) => path === prefix.path || path.startsWith(`${prefix.path}/`));
  const app = new Hono<{ Bindings: RequestEnv; Variables: { record: AccessRecord } }>();

  app.use('*', async (c, next) => {
    const started = performance.now();
    const stop = metrics.start();
    const record: AccessRecord = {
      client: c.env?.clientAddress ?? '-',
      token: '-',
      door: routes.has(c.req.path) ? c.req.path : (prefixOf(c.req.path)?.path ?? 'not-found'),
      methods: [c.req.method],
      commands: [],
      outcomes: [],
      refusal: undefined,
    };
    c.set('record', record);
    let refusal = checkHostAndOrigin(c.req.raw, options);
    if (refusal === 'origin' && prefixOf(c.req.path)?.sameOrigin) {
      if (c.req.header('origin') === new URL(c.req.url).origin) refusal = undefined;
    }
    if (refusal !== undefined) {
      record.refusal = refusal;
      c.res = jsonError(403, -32000, 'Forbidden');
    } else {
      await next();
    }
    stop();
    const ms = performance.now() - started;
    metrics.observe(record.door, record.refusal ?? 'ok', ms / 1000);
    options.log?.(accessLine(record, c.res.status, ms), { record, status: c.res.status, ms });
  });

  const origins = options.allowedOrigins ?? [];
  if (origins.length > 0) {
    // CORS opens only to the allowed origins (the step above refused the others): a browser page
    // there may call, its preflight answered before authentication since browsers send it bare.
    app.use('*', cors({ origin: [...origins], ...CORS }));
  }

  app.on(['GET', 'HEAD'], '/healthz', async (c) => {
    const ok = options.healthy === undefined || (await options.healthy().catch(() => false));
    if (!ok) c.get('record').refusal = 'store-unavailable';
    return c.json({ status: ok ? 'ok' : 'unavailable' }, ok ? 200 : 503);
  });
  app.on(['GET', 'HEAD'], '/readyz', async (c) => {
    const ok = await options.ready().catch(() => false);
    if (!ok) c.get('record').refusal = 'store-unavailable';
    return c.json({ status: ok ? 'ok' : 'unavailable' }, ok ? 200 : 503);
  });
  app.get('/metrics', (c) => c.text(metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4' }));
  app.get(RESOURCE_METADATA_PATH, (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json({ resource: origin, authorization_servers: [], bearer_methods_supported: ['header'] });
  });

  let draining = false;
  const server: MemdirServer = {
    fetch: (request, env) => Promise.resolve(app.fetch(request, env ?? {})),
    door(path, door, doorOptions = {}) {
      if (path.endsWith('/*')) {
        prefixes.push({ path: path.slice(0, -2), sameOrigin: doorOptions.sameOrigin === true });
      } else {
        routes.add(path);
      }
      const refuse = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
        doorOptions.refusal === undefined
          ? jsonError(status, code, message, headers)
          : doorOptions.refusal(status, message, headers);
      app.all(path, async (c) => {
        const record = c.get('record');
        if (draining) {
          record.refusal = 'stopping';
          return refuse(503, -32000, 'The server is stopping', {
            'retry-after': '1',
            connection: 'close',
          });
        }
        const presented = presentedToken(c.req.raw.headers) ?? doorOptions.token?.(c.req.raw);
        const grant = presented === undefined ? undefined : options.tokens().find(presented);
        if (grant === undefined && doorOptions.anonymous !== undefined) {
          return doorOptions.anonymous(c.req.raw);
        }
        if (grant === undefined) {
          // The same body for a missing, malformed, unknown or revoked token; the header says which.
          record.refusal = 'unauthorized';
          const metadata = new URL(RESOURCE_METADATA_PATH, c.req.url).href;
          return refuse(401, -32001, UNAUTHORIZED, {
            'www-authenticate':
              options.oauthChallenge === false ? 'Bearer' : challenge(presented !== undefined, metadata),
          });
        }
        record.token = grant.name;
        const charge = (calls: number): (() => void) | Response => {
          if (calls <= 0) return () => {};
          const wait = limiter.take(grant.name, Date.now(), calls);
          if (wait > 0) {
            metrics.rateLimited(grant.name);
            record.refusal = 'rate-limited';
            return refuse(429, -32000, 'Too many requests', { 'retry-after': String(wait) });
          }
          const gate = inFlight.enter(grant.name, calls);
          if (gate !== 'ok') {
            metrics.rateLimited(grant.name);
            record.refusal = 'busy';
            return gate === 'overall'
              ? refuse(503, -32000, 'The server is busy', { 'retry-after': '1' })
              : refuse(429, -32000, 'Too many requests at once', { 'retry-after': '1' });
          }
          let released = false;
          return () => {
            if (!released) inFlight.leave(grant.name, calls);
            released = true;
          };
        };
        return door(c.req.raw, { grant, record, charge });
      });
    },
    drain() {
      draining = true;
    },
    inFlight,
    metrics,
  };
  return server;
}
