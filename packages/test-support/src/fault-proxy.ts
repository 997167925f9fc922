// A TCP proxy in front of a real server that fails on demand (stalls, resets, latency, a cut
// answer, an S3 SlowDown), for the tests of what a driver does when its network or server
// misbehaves; it also counts what passes (round-trip-counter.ts). http-framer.ts tells its requests.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { HttpRequestFramer, type RequestHead } from './http-framer.js';
import { type Endpoint, endpointOf } from './net.js';

/**
 * What the proxy does to the traffic; `setMode` changes it for open connections too.
 * - `pass`: forwards everything.
 * - `stall`: accepts connections and forwards nothing either way (as a network partition: the
 *   bytes wait in the kernel's buffers and flow again, in order, when the mode changes).
 * - `reset`: drops every connection with a TCP reset, the open ones and each new one.
 * - `latency`: delays every chunk by `ms`, in each direction.
 * - `cut`: forwards the first `afterBytes` bytes the server sends on each connection (counted from
 *   this mode on), then drops that connection.
 * - `slow-down`: answers the `nth` HTTP request (counted from this mode on, over all connections)
 *   itself with `503 SlowDown` and an S3 XML error, and closes that connection; the others pass.
 */
export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'stall' }
  | { kind: 'reset' }
  | { kind: 'latency'; ms: number }
  | { kind: 'cut'; afterBytes: number }
  | { kind: 'slow-down'; nth: number };

/** What went through the proxy since it started or since `resetStats()`. */
export interface TrafficStats {
  /** TCP connections accepted. */
  connections: number;
  /**
   * Round trips: a turn starts whenever a client sends after the server last spoke on that
   * connection (or first sends on it), so a pipeline of commands written at once is one turn.
   */
  turns: number;
  bytesToServer: number;
  bytesToClient: number;
  /** HTTP requests seen (0 for other protocols). */
  httpRequests: number;
}

export interface FaultProxy {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The target URL with the proxy's address in its place (`redis://127.0.0.1:PORT`...). */
  readonly url: string;
  readonly mode: FaultMode;
  setMode(mode: FaultMode | 'pass' | 'stall' | 'reset'): void;
  stats(): TrafficStats;
  resetStats(): void;
  /** Closes the listener and every connection; nothing is left open. */
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /** Where to forward: a URL (`redis://127.0.0.1:6390`, `http://127.0.0.1:7480`...) or an endpoint. */
  target: string | Endpoint;
  /**
   * The mode to start in.
   * @default { kind: 'pass' }
   */
  mode?: FaultMode;
  /**
   * The port to listen on, on 127.0.0.1.
   * @default a free port
   */
  port?: number;
}

interface Lane {
  to: Socket;
  queue: Array<{ due: number; bytes: Buffer }>;
  timer: NodeJS.Timeout | undefined;
  lastDue: number;
  /** Once the queue is empty: end `to` (its peer ended), and drop the link (it closed, or is cut). */
  ending: boolean;
  thenDrop: boolean;
  dropping: boolean;
}

interface Link {
  client: Socket;
  server: Socket;
  toServer: Lane;
  toClient: Lane;
  lastSpeaker: 'client' | 'server' | undefined;
  /** Bytes the server may still send before a `cut` drops the connection. */
  cutBudget: number | undefined;
  framer: HttpRequestFramer;
  /** The request answered with 503: its bytes go nowhere, and the proxy answers once it is whole. */
  slowDown: 'no' | 'swallowing' | 'answered';
  closed: boolean;
}

const SLOW_DOWN_BODY =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
  '<Message>Please reduce your request rate.</Message><RequestId>memdir-fault-proxy</RequestId></Error>';
const SLOW_DOWN = Buffer.from(
  'HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\n' +
    `Content-Length: ${Buffer.byteLength(SLOW_DOWN_BODY)}\r\nConnection: close\r\n\r\n${SLOW_DOWN_BODY}`,
);

const emptyStats = (): TrafficStats => ({
  connections: 0,
  turns: 0,
  bytesToServer: 0,
  bytesToClient: 0,
  httpRequests: 0,
});

/** Starts a loopback TCP proxy to `target` whose faults a test switches on and off. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = typeof options.target === 'string' ? endpointOf(options.target, 80) : options.target;
  const links = new Set<Link>();
  let mode: FaultMode = options.mode ?? { kind: 'pass' };
  let stats = emptyStats();
  let requestsSinceMode = 0;

  const lane = (to: Socket): Lane => ({
    to,
    queue: [],
    timer: undefined,
    lastDue: 0,
    ending: false,
    thenDrop: false,
    dropping: false,
  });

  const drop = (link: Link, reset: boolean) => {
    if (link.closed) return;
    link.closed = true;
    links.delete(link);
    for (const each of [link.toServer, link.toClient]) clearTimeout(each.timer);
    if (reset) link.client.resetAndDestroy();
    else link.client.destroy();
    link.server.destroy();
  };

  const finish = (link: Link, into: Lane) => {
    if (link.closed || !into.ending) return;
    if (!into.to.writableEnded && !into.to.destroyed) into.to.end();
    if (!into.thenDrop || into.dropping) return;
    into.dropping = true;
    if (into.to.writableFinished || into.to.destroyed) drop(link, false);
    else into.to.once('finish', () => drop(link, false));
  };

  const drain = (link: Link, into: Lane) => {
    into.timer = undefined;
    const now = Date.now();
    while (into.queue.length > 0 && into.queue[0]!.due <= now) {
      const { bytes } = into.queue.shift()!;
      if (!link.closed) into.to.write(bytes);
    }
    if (into.queue.length > 0) into.timer = setTimeout(() => drain(link, into), into.queue[0]!.due - now);
    else finish(link, into);
  };

  const idle = (into: Lane) => into.queue.length === 0 && !into.timer;

  // Every chunk goes through its lane's queue, so a change of latency never reorders bytes.
  const deliver = (link: Link, into: Lane, bytes: Buffer) => {
    const delay = mode.kind === 'latency' ? mode.ms : 0;
    if (idle(into) && delay === 0) {
      into.to.write(bytes);
      return;
    }
    into.lastDue = Math.max(Date.now() + delay, into.lastDue);
    into.queue.push({ due: into.lastDue, bytes });
    if (!into.timer) into.timer = setTimeout(() => drain(link, into), Math.max(0, into.lastDue - Date.now()));
  };

  /** Ends `into` once it has sent what it holds, then drops the link. */
  const closeAfterFlush = (link: Link, into: Lane) => {
    into.ending = true;
    into.thenDrop = true;
    if (idle(into)) finish(link, into);
  };

  const answerSlowDown = (link: Link) => {
    link.slowDown = 'answered';
    link.lastSpeaker = 'server';
    link.server.destroy();
    deliver(link, link.toClient, SLOW_DOWN);
    closeAfterFlush(link, link.toClient);
  };

  const onRequest = (link: Link, head: RequestHead) => {
    stats.httpRequests += 1;
    if (mode.kind !== 'slow-down') return;
    requestsSinceMode += 1;
    if (requestsSinceMode !== mode.nth) return;
    link.slowDown = 'swallowing';
    // A client that waits for 100 Continue sends no body: answer now.
    if (head.expectContinue) answerSlowDown(link);
  };

  const fromClient = (link: Link, chunk: Buffer) => {
    stats.bytesToServer += chunk.length;
    if (link.lastSpeaker !== 'client') stats.turns += 1;
    link.lastSpeaker = 'client';
    for (const piece of link.framer.push(chunk)) {
      if (piece.head) onRequest(link, piece.head);
      if (link.slowDown === 'answered' || link.closed) return;
      if (link.slowDown === 'swallowing') {
        if (piece.last) answerSlowDown(link);
      } else if (piece.bytes.length > 0) {
        deliver(link, link.toServer, piece.bytes);
      }
    }
  };

  const fromServer = (link: Link, chunk: Buffer) => {
    stats.bytesToClient += chunk.length;
    link.lastSpeaker = 'server';
    if (link.slowDown !== 'no' || link.toClient.thenDrop) return;
    if (link.cutBudget === undefined || chunk.length < link.cutBudget) {
      if (link.cutBudget !== undefined) link.cutBudget -= chunk.length;
      deliver(link, link.toClient, chunk);
      return;
    }
    const kept = chunk.subarray(0, link.cutBudget);
    link.cutBudget = 0;
    link.server.pause();
    if (kept.length > 0) deliver(link, link.toClient, kept);
    closeAfterFlush(link, link.toClient);
  };

  const applyMode = (link: Link) => {
    if (mode.kind === 'reset') return drop(link, true);
    if (mode.kind === 'stall') {
      link.client.pause();
      link.server.pause();
      return;
    }
    link.client.resume();
    if (!link.toClient.thenDrop) link.server.resume();
    link.cutBudget = mode.kind === 'cut' ? mode.afterBytes : undefined;
  };

  const server: Server = createServer({ noDelay: true }, (client) => {
    stats.connections += 1;
    client.on('error', () => {});
    if (mode.kind === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ ...target, noDelay: true });
    const link: Link = {
      client,
      server: upstream,
      toServer: lane(upstream),
      toClient: lane(client),
      lastSpeaker: undefined,
      cutBudget: undefined,
      framer: new HttpRequestFramer(),
      slowDown: 'no',
      closed: false,
    };
    links.add(link);
    // The server refused or broke the connection: the client sees its connection reset.
    upstream.on('error', () => drop(link, true));
    client.on('data', (chunk: Buffer) => fromClient(link, chunk));
    upstream.on('data', (chunk: Buffer) => fromServer(link, chunk));
    for (const [from, into] of [
      [client, link.toServer],
      [upstream, link.toClient],
    ] as const) {
      from.on('end', () => {
        into.ending = true;
        if (idle(into)) finish(link, into);
      });
      from.on('close', () => closeAfterFlush(link, into));
    }
    applyMode(link);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const url = proxiedUrl(options.target, port);

  return {
    host: '127.0.0.1',
    port,
    url,
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = typeof next === 'string' ? ({ kind: next } as FaultMode) : next;
      requestsSinceMode = 0;
      for (const link of [...links]) applyMode(link);
    },
    stats: () => ({ ...stats }),
    resetStats() {
      stats = emptyStats();
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const link of [...links]) drop(link, false);
      });
    },
  };
}

/** `target` with 127.0.0.1:`port` for its host and port; an endpoint becomes `tcp://127.0.0.1:PORT`. */
function proxiedUrl(target: string | Endpoint, port: number): string {
  if (typeof target !== 'string') return `tcp://127.0.0.1:${port}`;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const text = url.toString();
  // WHATWG URLs write http://host:port as http://host:port/; keep the target's form.
  const addedSlash = text.endsWith('/') && !target.endsWith('/');
  return addedSlash ? text.slice(0, -1) : text;
}
