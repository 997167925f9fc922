// The TCP plumbing the other files share: a free port, a connection tried, a URL's host and port,
// and waiting until something is true.
import { createConnection, createServer } from 'node:net';

/** A host and a TCP port. */
export interface Endpoint {
  host: string;
  port: number;
}

/**
 * A TCP port nobody listens on at the moment of the call, on 127.0.0.1 (the kernel picks it).
 * Another program may take it before the caller does; the callers bind it within milliseconds.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('the kernel gave no port'));
      });
    });
  });
}

/** Resolves with null once a TCP connection to `endpoint` opens, or with the error that stopped it. */
export function tryConnect(endpoint: Endpoint, timeoutMs = 2000): Promise<Error | null> {
  return new Promise((resolve) => {
    const socket = createConnection(endpoint);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      resolve(error);
    });
  });
}

/** The host and port of a URL (`redis://h:p`, `postgres://u@h:p/db`, `http://h:p`). */
export function endpointOf(url: string, defaultPort: number): Endpoint {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host: host || '127.0.0.1', port: parsed.port ? Number(parsed.port) : defaultPort };
}

/** Sleeps `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `check` every 100 ms until it resolves true. Fails with `what` and `hint` (say, the log file
 * to read) after `timeoutMs`, or at once when `failed` returns a reason (the process exited).
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; hint: string; failed?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const reason = options.failed?.();
    if (reason) throw new Error(`${what}: ${reason}; ${options.hint}`);
    if (await check().catch(() => false)) return;
    if (Date.now() >= deadline) {
      throw new Error(`${what}: no answer within ${options.timeoutMs} ms; ${options.hint}`);
    }
    await delay(100);
  }
}
