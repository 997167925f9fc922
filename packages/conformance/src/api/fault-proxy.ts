// A small HTTP proxy for the worker tests: forwards every request to the API, and for the requests a
// test picks, lets the API handle them in full and then drops the answer (the client's connection is
// cut before a byte of the response reaches it): a response lost on the way.
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultProxy {
  /** The proxy's origin, to use as the SDK's `baseURL`. */
  readonly origin: string;
  /** Drops the response of the next request for which `pick` is true (once). */
  dropNextResponse(pick: (method: string, path: string) => boolean): void;
  /** How many responses were dropped so far. */
  dropped(): number;
  /** The requests forwarded since the last `clear()`, as `METHOD /path?query`. */
  requests(): string[];
  clear(): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 in front of `target` (an http origin). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  if (upstream.protocol !== 'http:')
    throw new Error(`the fault proxy forwards to http only, not ${upstream.protocol}`);
  let pick: ((method: string, path: string) => boolean) | undefined;
  let dropped = 0;
  let requests: string[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing) => {
    requests.push(`${incoming.method} ${incoming.url}`);
    const drop = pick?.(incoming.method ?? 'GET', incoming.url ?? '/') === true;
    if (drop) pick = undefined;
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        if (drop) {
          // The API has answered, so it has handled the request: read the answer to its end, then cut.
          answer.resume();
          answer.on('end', () => {
            dropped++;
            incoming.socket.destroy();
          });
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => incoming.socket.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    dropNextResponse(next) {
      pick = next;
    },
    dropped: () => dropped,
    requests: () => [...requests],
    clear() {
      requests = [];
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
