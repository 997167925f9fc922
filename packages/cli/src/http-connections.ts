// The connections of `memdir serve --http`, bounded against clients that hold them without using
// them (../shared/research wave 4, findings 6 and 7): at most `max` open at once, where a new connection past
// the cap closes the one idle longest (as nginx reuses its keep-alive connections when short), so
// thousands of idle or half-open connections cannot keep a health check or a real client out; and a
// connection whose response is not read is cut once no byte has moved for `writeTimeoutMs`, so a
// client that never reads cannot hold the response's memory; a connection that sends nothing is cut
// after `silentTimeoutMs`. Slow headers and bodies (slowloris) are cut by Node's own `headersTimeout`
// and `requestTimeout`, set by the caller.
import type { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';

/** The bounds of `boundConnections`. */
export interface ConnectionBounds {
  /** Connections open at once. */
  max: number;
  /**
   * How long a new connection may stay silent, in milliseconds (Node's `headersTimeout` starts at a
   * request's first byte, so it never ends a connection that sends none).
   */
  silentTimeoutMs: number;
  /** How long a connection with a response to write may go without a byte moving, in milliseconds. */
  writeTimeoutMs: number;
  /** Told of each connection cut by the write timeout, with the client's address. */
  onStalled?: (client: string) => void;
}

/** Applies `bounds` to the connections of `http`, before it listens. */
export function boundConnections(http: HttpServer, bounds: ConnectionBounds): void {
  // Open connections in the order they last became idle (a Map keeps insertion order), each with
  // the number of its requests being answered (more than one when a client pipelines).
  const open = new Map<Socket, number>();
  http.on('connection', (socket: Socket) => {
    open.set(socket, 0);
    socket.once('close', () => open.delete(socket));
    // Node's HTTP server destroys a socket whose timeout passes while no request is being answered.
    socket.setTimeout(bounds.silentTimeoutMs);
    if (open.size <= bounds.max) return;
    for (const [candidate, answering] of open) {
      if (answering === 0 && candidate !== socket) {
        candidate.destroy();
        open.delete(candidate);
        return;
      }
    }
    // Every connection is being answered: the new one waits for none of them.
    socket.destroy();
    open.delete(socket);
  });
  http.on('request', (request, response) => {
    const socket = request.socket;
    open.set(socket, (open.get(socket) ?? 0) + 1);
    // Node's own keep-alive timer is off while a request is answered; this one is replaced by it once
    // the response is written (and no longer reaches this response).
    response.setTimeout(bounds.writeTimeoutMs, () => {
      socket.destroy();
      bounds.onStalled?.(socket.remoteAddress ?? '-');
    });
    response.once('close', () => {
      const answering = (open.get(socket) ?? 1) - 1;
      if (!open.has(socket)) return;
      // Idle again: to the end of the order, the last to be closed for a newcomer.
      open.delete(socket);
      open.set(socket, answering);
    });
  });
}
