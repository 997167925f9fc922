// `memdir serve --http`: the memory tool over MCP's Streamable HTTP transport, for a team. Each
// bearer token decides the namespace and the mode of everything done with it; the client never
// names a namespace. What keeps the server up: bodies bounded as on stdio, a cap on requests in
// flight (per token and overall), a rate per token (429 with Retry-After), sessions that expire,
// /healthz, SIGTERM that lets commands in flight finish, SIGHUP that reloads the tokens.
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type MemoryStore, mcpRequestTooLarge, readOnlyStore } from '@memdir/core';
import { checkJsonShape, RateLimiter } from '@memdir/server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  type AccessRecord,
  accessLine,
  commandLabel,
  isToolCall,
  METHOD_NAME,
  methodLabel,
} from './access-log.js';
import { EXIT_OK } from './errors.js';
import { readBody } from './http-body.js';
import { healthCheck } from './http-health.js';
import { InFlight } from './http-limits.js';
import { relay, rpcError } from './http-relay.js';
import { type Session, SessionTable, sessionStore } from './http-sessions.js';
import type { CliIo } from './io.js';
import { createMcpServer, MAX_MCP_MESSAGE_BYTES } from './serve.js';
import { type HttpServeConfig, isLoopback } from './serve-http-options.js';
import { readTokensFile, type TokenEntry, TokenTable } from './tokens.js';

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
/** The path of the health check (no token needed; it says only whether the store answers). */
export const HEALTH_PATH = '/healthz';

/** A body over the limit is read to its end (to answer it as stdio does) up to this many bytes. */
const BODY_CEILING = MAX_MCP_MESSAGE_BYTES * 4;
/** A refused request's body is read and dropped, keeping the connection, when at most this long. */
const DRAIN_BYTES = 64 * 1024;
/** Sessions one token may hold, and all tokens together. */
const SESSIONS_PER_TOKEN = 64;
const SESSIONS_TOTAL = 4096;
/** How a read-only token's changes are refused, in core's READ_ONLY text: "read-only (this...)". */
const READ_ONLY_REASON = 'this token may only read';
/** The most messages of one JSON-RPC batch (the MCP SDK's own cap), checked before any work on them. */
const MAX_BATCH = 100;

/** What `serveHttp` needs besides its configuration. */
export interface HttpServeContext {
  io: CliIo;
  /** The store URL, password hidden, for the log. */
  storeLabel: string;
  /** The store opened at start (no namespace): `/healthz` asks it. */
  healthStore: MemoryStore;
  /** Opens the store of one namespace; called once per namespace, closed when the server stops. */
  openNamespace(namespace: string): Promise<MemoryStore>;
}

/**
 * Serves MCP over HTTP until SIGTERM or SIGINT; resolves to the exit code. The tokens file must
 * exist (the caller checked), and is read again on SIGHUP.
 */
export async function serveHttp(config: HttpServeConfig, context: HttpServeContext): Promise<number> {
  const { io } = context;
  // Log lines of one turn of the event loop go out in one write: under load, a write per request
  // costs more than the request's own work.
  let pendingLines = '';
  const flushLog = () => {
    if (pendingLines === '') return;
    io.stderr.write(pendingLines);
    pendingLines = '';
  };
  const log = (line: string) => {
    if (pendingLines === '') setImmediate(flushLog);
    pendingLines += `memdir: ${line}\n`;
  };
  let tokens = new TokenTable((await readTokensFile(config.tokensFile)) ?? { version: 1, tokens: [] });
  const limiter = new RateLimiter(config.ratePerSecond, config.burst);
  const inFlight = new InFlight(config.maxInFlight, config.maxInFlightPerToken);
  const sessions = new SessionTable(
    { idleMs: config.sessionIdleMs, perToken: SESSIONS_PER_TOKEN, total: SESSIONS_TOTAL },
    (session, why) => {
      log(`closed a session of ${session.token.name} (${why})`);
      void session.server.close().catch(() => {});
    },
  );
  const stores = new Map<string, Promise<MemoryStore>>();
  const readOnly = new WeakMap<MemoryStore, MemoryStore>();
  let draining = false;

  function namespaceStore(entry: TokenEntry): Promise<MemoryStore> {
    let opened = stores.get(entry.namespace);
    if (opened === undefined) {
      opened = context.openNamespace(entry.namespace);
      stores.set(entry.namespace, opened);
      // A store that failed to open (the backend was down) is tried again by the next session.
      opened.catch(() => stores.delete(entry.namespace));
    }
    if (entry.mode === 'read-write') return opened;
    return opened.then((store) => {
      let wrapped = readOnly.get(store);
      if (wrapped === undefined) {
        wrapped = readOnlyStore(store, READ_ONLY_REASON);
        readOnly.set(store, wrapped);
      }
      return wrapped;
    });
  }

  const healthy = healthCheck(context.healthStore, log);

  // --- answering -----------------------------------------------------------------------------------
  function send(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ): void {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    // A body left unread would be read by Node into nowhere: close the connection instead.
    if (!request.complete || draining) response.setHeader('connection', 'close');
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...headers,
    });
    response.end(body);
  }

  /** Refuses a request before reading its body: a short body is dropped first, keeping the connection. */
  async function refuse(
    request: IncomingMessage,
    response: ServerResponse,
    record: AccessRecord,
    refusal: string,
    status: number,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<void> {
    record.refusal = refusal;
    const declared = Number(request.headers['content-length'] ?? 0);
    if (!request.complete && Number.isFinite(declared) && declared <= DRAIN_BYTES) {
      await new Promise<void>((resolve) => {
        request.once('end', resolve);
        request.once('close', resolve);
        request.resume();
      });
    }
    send(request, response, status, body, headers);
  }

  function authenticate(request: IncomingMessage): TokenEntry | undefined {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +([!-~]{1,256}) *$/i.exec(header) : null;
    return match ? tokens.find(match[1]!) : undefined;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    const record: AccessRecord = {
      token: '-',
      methods: [request.method ?? '-'],
      commands: [],
      outcomes: [],
      refusal: undefined,
    };
    const started = performance.now();
    response.once('close', () => {
      const status = response.writableFinished ? response.statusCode : 'aborted';
      log(accessLine(record, status, performance.now() - started));
    });
    if (path === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
      record.methods = ['healthz'];
      const ok = await healthy();
      if (!ok) record.refusal = 'store-unavailable';
      send(request, response, ok ? 200 : 503, JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
      return;
    }
    if (path !== MCP_PATH) {
      return refuse(request, response, record, 'not-found', 404, rpcError(-32000, 'Not found'));
    }
    if (draining) {
      return refuse(request, response, record, 'stopping', 503, rpcError(-32000, 'The server is stopping'), {
        'retry-after': '1',
      });
    }
    const token = authenticate(request);
    if (token === undefined) {
      // The same answer for a missing, malformed, unknown or revoked token.
      return refuse(request, response, record, 'unauthorized', 401, rpcError(-32001, 'Unauthorized'), {
        'www-authenticate': 'Bearer',
      });
    }
    record.token = token.name;
    const wait = limiter.take(token.name, Date.now());
    if (wait > 0) {
      return refuse(request, response, record, 'rate-limited', 429, rpcError(-32000, 'Too many requests'), {
        'retry-after': String(wait),
      });
    }
    const gate = inFlight.enter(token.name);
    if (gate !== 'ok') {
      const [status, message] =
        gate === 'overall' ? [503, 'The server is busy'] : [429, 'Too many requests at once'];
      return refuse(request, response, record, 'busy', status, rpcError(-32000, message), {
        'retry-after': '1',
      });
    }
    response.once('close', () => inFlight.leave(token.name));
    await handleMcp(request, response, token, record);
  }

  async function handleMcp(
    request: IncomingMessage,
    response: ServerResponse,
    token: TokenEntry,
    record: AccessRecord,
  ): Promise<void> {
    if (request.method !== 'POST' && request.method !== 'DELETE') {
      // No stream of server-sent messages: this server never speaks first (MCP allows a 405).
      return refuse(request, response, record, 'method', 405, rpcError(-32000, 'Method not allowed'), {
        allow: 'POST, DELETE',
      });
    }
    const header = request.headers['mcp-session-id'];
    const sessionId = typeof header === 'string' ? header : undefined;
    const session = sessionId === undefined ? undefined : sessions.find(sessionId, token);
    if (sessionId !== undefined && session === undefined) {
      // Unknown, expired, or another token's: the client starts a new session (MCP's rule for 404).
      return refuse(request, response, record, 'no-session', 404, rpcError(-32001, 'Session not found'));
    }
    if (session) track(session, response);
    if (request.method === 'DELETE') {
      if (session === undefined) {
        return refuse(
          request,
          response,
          record,
          'no-session',
          400,
          rpcError(-32000, 'Mcp-Session-Id header is required'),
        );
      }
      await relay(session.transport, request, response, MCP_PATH);
      return;
    }

    const body = await readBody(request, MAX_MCP_MESSAGE_BYTES, BODY_CEILING);
    if (body.kind === 'aborted') {
      record.refusal = 'aborted';
      response.destroy();
      return;
    }
    if (body.kind === 'refused') {
      record.refusal = 'too-large';
      send(request, response, 413, rpcError(-32600, `Request body over ${BODY_CEILING} bytes`));
      return;
    }
    if (body.kind === 'too-large') {
      const { id, method, bytes } = body.message;
      record.methods = [method !== undefined && METHOD_NAME.test(method) ? method : 'other'];
      record.refusal = 'too-large';
      if (session !== undefined && method === 'tools/call' && id !== undefined) {
        // As on stdio: the model reads why nothing ran, and how to send large content.
        const result = mcpRequestTooLarge(bytes, MAX_MCP_MESSAGE_BYTES);
        send(request, response, 200, JSON.stringify({ jsonrpc: '2.0', id, result }));
        return;
      }
      const message = `Request of ${bytes} bytes is larger than the ${MAX_MCP_MESSAGE_BYTES} bytes this server reads`;
      send(request, response, 413, rpcError(ErrorCode.InvalidRequest, message, id ?? null));
      return;
    }
    // A huge array costs one scan here, not a parse, a schema check and a log word per element.
    if (
      checkJsonShape(body.text, { maxBatch: MAX_BATCH, maxDepth: Number.POSITIVE_INFINITY }) !== undefined
    ) {
      record.refusal = 'batch-too-large';
      send(
        request,
        response,
        400,
        rpcError(ErrorCode.InvalidRequest, `Batch of more than ${MAX_BATCH} messages`),
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      record.refusal = 'bad-json';
      send(request, response, 400, rpcError(-32700, 'Parse error: Invalid JSON'));
      return;
    }
    const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
    record.methods = messages.map(methodLabel);
    for (const message of messages) if (isToolCall(message)) record.commands.push(commandLabel(message));
    // The rate is charged per tool call: the request paid for one, a batch pays for the rest.
    const extra = record.commands.length - 1;
    const wait = extra > 0 ? limiter.take(token.name, Date.now(), extra) : 0;
    if (wait > 0) {
      record.refusal = 'rate-limited';
      send(request, response, 429, rpcError(-32000, 'Too many requests'), { 'retry-after': String(wait) });
      return;
    }

    if (session !== undefined) {
      for (const message of messages) {
        if (!isToolCall(message)) continue;
        const id = String(message.id);
        session.calls.set(id, (outcome) => record.outcomes.push(outcome));
        response.once('close', () => session.calls.delete(id));
      }
      await relay(session.transport, request, response, MCP_PATH, parsed);
      return;
    }
    if (!messages.some((message) => isInitializeRequest(message))) {
      record.refusal = 'no-session';
      send(request, response, 400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
      return;
    }
    await openSession(request, response, token, parsed as JSONRPCMessage, record);
  }

  /** Counts a request against its session, for idle expiry. */
  function track(session: Session, response: ServerResponse): void {
    session.inFlight++;
    session.lastActive = Date.now();
    response.once('close', () => {
      session.inFlight--;
      session.lastActive = Date.now();
    });
  }

  async function openSession(
    request: IncomingMessage,
    response: ServerResponse,
    token: TokenEntry,
    initialize: JSONRPCMessage,
    record: AccessRecord,
  ): Promise<void> {
    if (!sessions.makeRoom(token)) {
      record.refusal = 'too-many-sessions';
      send(request, response, 429, rpcError(-32000, 'Too many sessions open'), { 'retry-after': '5' });
      return;
    }
    let store: MemoryStore;
    try {
      store = await namespaceStore(token);
    } catch (error) {
      log(`cannot open the store of namespace ${token.namespace}: ${(error as Error).message}`);
      record.refusal = 'store-unavailable';
      send(request, response, 503, rpcError(-32000, 'The memory store is unavailable'), {
        'retry-after': '5',
      });
      return;
    }
    const calls = new Map<string, (outcome: string) => void>();
    let session: Session | undefined;
    const server = createMcpServer(sessionStore(store, calls), {
      actor: () => ({ type: 'user', id: session?.token.name ?? token.name }),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        session = { id, token, server, transport, calls, lastActive: Date.now(), inFlight: 0 };
        sessions.add(session);
        track(session, response);
      },
      onsessionclosed: (id) => sessions.remove(id),
    });
    server.onclose = () => {
      if (session) sessions.remove(session.id);
    };
    await server.connect(transport);
    await relay(transport, request, response, MCP_PATH, initialize);
    // An initialize the transport refused (an unsupported protocol version...) opened nothing.
    if (session === undefined) await server.close().catch(() => {});
  }

  // --- the server's life ---------------------------------------------------------------------------
  const http: HttpServer = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`unexpected failure answering a request: ${(error as Error)?.message ?? String(error)}`);
      if (io.env.MEMDIR_DEBUG) log(String((error as Error)?.stack ?? ''));
      send(request, response, 500, rpcError(-32603, 'Internal error'));
    });
  });
  http.headersTimeout = 20_000;
  http.requestTimeout = 120_000;
  // A client reuses an idle connection until shortly before the server's Keep-Alive timeout; with
  // Node's 5 s, a client's request and the server's close cross on a busy machine ("other side
  // closed"). With 65 s, as load balancers use, a busy client's connections are not closed under it.
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  log(
    `serving ${context.storeLabel} over MCP on http://${shown}:${address.port}${MCP_PATH} ` +
      `(tool "memory", ${tokens.entries.length} token${tokens.entries.length === 1 ? '' : 's'} from ${config.tokensFile})`,
  );
  if (!isLoopback(config.host)) {
    log(
      `warning: listening on ${shown}, beyond this machine. Bearer tokens and memory travel in clear ` +
        'text over plain HTTP: put TLS in front (a reverse proxy such as Caddy or nginx; see the README).',
    );
  }
  if (tokens.entries.length === 0) log('warning: the tokens file has no tokens; every request gets 401');

  const reload = () => {
    readTokensFile(config.tokensFile).then(
      (file) => {
        tokens = new TokenTable(file ?? { version: 1, tokens: [] });
        const closed = sessions.rebind(tokens);
        log(`reloaded ${tokens.entries.length} tokens from ${config.tokensFile}; closed ${closed} sessions`);
      },
      (error: unknown) =>
        log(`kept the old tokens: cannot reload ${config.tokensFile}: ${(error as Error).message}`),
    );
  };
  process.on('SIGHUP', reload);

  const stopped = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const signal = await stopped;
  draining = true;
  process.off('SIGHUP', reload);
  log(`${signal}: finishing ${inFlight.total} requests in flight, then stopping`);
  const closedListener = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    inFlight.idle().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), config.shutdownGraceMs);
    }),
  ]);
  clearTimeout(timer);
  const unfinished = inFlight.total;
  sessions.closeAll('server stopping');
  http.closeAllConnections();
  await closedListener;
  for (const opened of stores.values()) {
    await opened.then((store) => store.close()).catch(() => {});
  }
  log(
    finished
      ? 'stopped'
      : `stopped after ${config.shutdownGraceMs} ms with ${unfinished} requests unfinished`,
  );
  await new Promise<void>((resolve) => io.stderr.write(pendingLines, () => resolve()));
  pendingLines = '';
  return EXIT_OK;
}
