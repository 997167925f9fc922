// A server of the wrong kind on 127.0.0.1, for the tests of what a store says when its URL's port
// reaches one: an HTTP server (it answers anything with `400 Bad Request`) or a silent one (it takes
// connections and never sends a byte). Real Redis and PostgreSQL come from the servers setup.
import { createServer, type Socket } from 'node:net';

/** A listening impostor: its port, and `close()`, which also drops the connections it holds. */
export interface Impostor {
  readonly port: number;
  close(): Promise<void>;
}

export function startImpostor(kind: 'http' | 'silent'): Promise<Impostor> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (kind === 'http') {
      socket.once('data', () =>
        socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
      );
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
