// `memdir serve --http`: the memory tool over MCP's Streamable HTTP transport, for a team. This file
// only runs the process: it reads the tokens file (again on SIGHUP), mounts @memdir/server's
// handlers (health, readiness, metrics, the MCP door and every shared step: authentication, rate
// and in-flight limits, bounded bodies, the access log) on a Node HTTP server, and stops on SIGTERM
// once the calls in flight are answered. Nothing a client needs lives in this process: any number of
// them behind a round-robin balancer serve the same store.
import { stat } from 'node:fs/promises';
import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import {
  createMemoryAdmin,
  isMemoryToolError,
  type MemdirStore,
  type MemoryStore,
  mcpRequestTooLarge,
  readOnlyStore,
  storeDriver,
} from '@memdir/core';
import {
  createMemdirServer,
  type DoorContext,
  TokenTable as GrantTable,
  mcpDoor,
  mountInspector,
  mountMemoryStores,
  SessionLabels,
  type TokenGrant,
} from '@memdir/server';
import { type AccessRecord, accessLine } from './access-log.js';
import { EXIT_OK } from './errors.js';
import { boundConnections } from './http-connections.js';
import { healthCheck } from './http-health.js';
import type { CliIo } from './io.js';
import { callMemoryTool, createMcpServer, MAX_MCP_MESSAGE_BYTES } from './serve.js';
import { type HttpServeConfig, isLoopback } from './serve-http-options.js';
import { readTokensFile, TokenTable } from './tokens.js';

/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
/** A body over the limit is read to its end (to answer it as stdio does) up to this many bytes. */
const BODY_CEILING = MAX_MCP_MESSAGE_BYTES * 4;
/** How a read-only token's changes are refused, in core's READ_ONLY text: "read-only (this...)". */
const READ_ONLY_REASON = 'this token may only read';

/** What `serveHttp` needs besides its configuration. */
export interface HttpServeContext {
  io: CliIo;
  /** The store URL, password hidden, for the log. */
  storeLabel: string;
  /** The store opened at start (no namespace): `/readyz` asks it. */
  healthStore: MemoryStore;
  /** Opens the store of one namespace; called once per namespace, closed when the server stops. */
  openNamespace(namespace: string): Promise<MemoryStore>;
}

/**
 * A store that reports the outcome of each call (`ok` or the error's code) into the request's
 * access record. Each request gets its own, so requests run side by side, as sessions did.
 */
function reportingStore(store: MemoryStore, record: AccessRecord): MemoryStore {
  const execute: MemoryStore['execute'] = async (input, options) => {
    try {
      const result = await store.execute(input, options);
      record.outcomes.push('ok');
      return result;
    } catch (error) {
      record.outcomes.push(isMemoryToolError(error) ? error.code : 'BACKEND');
      throw error;
    }
  };
  return {
    view: (command) => execute(command),
    create: (command) => execute(command),
    str_replace: (command) => execute(command),
    insert: (command) => execute(command),
    delete: (command) => execute(command),
    rename: (command) => execute(command),
    execute,
    close: async () => {},
    capabilities: store.capabilities,
  };
}

/** A warning when others than the owner may read the tokens file (hashes only, but still a list of who may call). */
async function tokensFileWarning(path: string): Promise<string | undefined> {
  const mode = await stat(path).then(
    (stats) => stats.mode & 0o777,
    () => undefined,
  );
  if (mode === undefined || (mode & 0o077) === 0) return undefined;
  return `warning: others may read the tokens file ${path} (mode ${mode.toString(8).padStart(3, '0')}): chmod 600 it`;
}

/**
 * Counts the responses of `http` not yet written: a graceful stop waits for these (a call is
 * answered once its bytes are out, not when the handler returns them).
 */
function unanswered(http: HttpServer): { readonly total: number; idle(): Promise<void> } {
  let total = 0;
  const waiting: Array<() => void> = [];
  http.on('request', (_request, response: ServerResponse) => {
    total++;
    response.once('close', () => {
      total--;
      if (total === 0) for (const wake of waiting.splice(0)) wake();
    });
  });
  return {
    get total() {
      return total;
    },
    idle: () => (total === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))),
  };
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
  let grants = new GrantTable(tokens.entries);
  const stores = new Map<string, Promise<MemoryStore>>();
  const readOnly = new WeakMap<MemoryStore, MemoryStore>();

  function namespaceStore(grant: TokenGrant): Promise<MemoryStore> {
    let opened = stores.get(grant.namespace);
    if (opened === undefined) {
      opened = context.openNamespace(grant.namespace);
      stores.set(grant.namespace, opened);
      // A store that failed to open (the backend was down) is tried again by the next request.
      opened.catch(() => stores.delete(grant.namespace));
    }
    if (grant.mode === 'read-write') return opened;
    return opened.then((store) => {
      let wrapped = readOnly.get(store);
      if (wrapped === undefined) {
        wrapped = readOnlyStore(store, READ_ONLY_REASON);
        readOnly.set(store, wrapped);
      }
      return wrapped;
    });
  }

  const storeAnswers = healthCheck(context.healthStore, log);
  const sessions = new SessionLabels({
    idleMs: config.sessionIdleMs,
    onEnd: (name, why) => log(`closed a session of ${name} (${why})`),
  });
  const memdir = createMemdirServer({
    tokens: () => grants,
    // /healthz: the process is up; /readyz: the store answers (what a load balancer checks).
    ready: storeAnswers,
    ratePerSecond: config.ratePerSecond,
    burst: config.burst,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    maxInFlight: config.maxInFlight,
    maxInFlightPerToken: config.maxInFlightPerToken,
    log: (_line, { record, status, ms }) => {
      log(`${accessLine(record, status, ms)} client=${record.client} door=${record.door}`);
    },
  });
  memdir.door(
    MCP_PATH,
    mcpDoor({
      server: async (grant: TokenGrant, request: DoorContext) =>
        createMcpServer(reportingStore(await toolStore(grant), request.record), {
          actor: { type: 'user', id: grant.name },
        }),
      // A single tools/call, past the SDK: the same store, actor and answer as the server above.
      toolCaller: async (grant: TokenGrant, request: DoorContext) => {
        const store = reportingStore(await toolStore(grant), request.record);
        const actor = { type: 'user', id: grant.name } as const;
        return (call) => callMemoryTool(store, call, actor);
      },
      limits: { maxBytes: BODY_CEILING, maxBatch: 100, maxDepth: 64 },
      maxMessageBytes: MAX_MCP_MESSAGE_BYTES,
      // As on stdio: the model reads why nothing ran, and how to send large content.
      tooLarge: (bytes) => mcpRequestTooLarge(bytes, MAX_MCP_MESSAGE_BYTES),
      sessions,
    }),
  );
  // The inspector at /ui, over the same stores and tokens (it keeps read-only tokens read-only).
  const driver = storeDriver(context.healthStore);
  mountInspector(memdir, {
    tokens: () => grants,
    store: (namespace) =>
      namespaceStore({ name: '', namespace, mode: 'read-write', sha256: '' }) as Promise<MemdirStore>,
    admin: driver?.capabilities.admin === true ? createMemoryAdmin(driver) : undefined,
  });

  // The memory stores API (/v1/memory_stores) on the same stores as MCP: one store, two doors.
  const memoryStores = mountMemoryStores(memdir, {
    open: (namespace) =>
      namespaceStore({ namespace, mode: 'read-write' } as TokenGrant) as Promise<MemdirStore>,
    erase: async (namespace) => {
      if (driver?.dropNamespace !== undefined) await createMemoryAdmin(driver).dropNamespace(namespace);
      const opened = stores.get(namespace);
      stores.delete(namespace);
      await opened?.then((store) => store.close()).catch(() => {});
    },
  });

  // An archived memory store is read-only to the memory tool too.
  async function toolStore(grant: TokenGrant): Promise<MemoryStore> {
    const store = await namespaceStore(grant);
    return (await memoryStores.archived(grant.namespace))
      ? readOnlyStore(store, 'this memory store is archived')
      : store;
  }

  // --- the server's life ---------------------------------------------------------------------------
  const http: HttpServer = createServer(
    {
      // Against slowloris: a request's headers, then the whole request, must arrive in time; Node
      // checks every connection for it this often (its default, 30 s, would let them linger).
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    getRequestListener(
      (request, env) => memdir.fetch(request, { clientAddress: env.incoming.socket.remoteAddress }),
      // A request without Host (HTTP/1.0, as HAProxy's default health check) is not refused.
      { hostname: 'localhost' },
    ),
  );
  const pending = unanswered(http);
  boundConnections(http, {
    max: config.maxConnections,
    silentTimeoutMs: config.headersTimeoutMs,
    writeTimeoutMs: config.writeTimeoutMs,
    onStalled: (client) =>
      log(`cut a connection of ${client}: its response did not move for ${config.writeTimeoutMs / 1000} s`),
  });
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
  const readable = await tokensFileWarning(config.tokensFile);
  if (readable !== undefined) log(readable);

  const reload = () => {
    readTokensFile(config.tokensFile).then(
      async (file) => {
        const table = new TokenTable(file ?? { version: 1, tokens: [] });
        tokens = table;
        grants = new GrantTable(table.entries);
        const closed = sessions.rebind((grant) => table.same(grant) !== undefined);
        log(`reloaded ${table.entries.length} tokens from ${config.tokensFile}; closed ${closed} sessions`);
        const warning = await tokensFileWarning(config.tokensFile);
        if (warning !== undefined) log(warning);
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
  memdir.drain();
  process.off('SIGHUP', reload);
  log(`${signal}: finishing ${pending.total} requests in flight, then stopping`);
  const closedListener = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    pending.idle().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), config.shutdownGraceMs);
    }),
  ]);
  clearTimeout(timer);
  const unfinished = pending.total;
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
