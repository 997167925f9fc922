// One pass at a time per folder, across processes (a `memdir sync` service and a `--once` from cron):
// the lock is a listening Unix socket named after DIR's real path. The kernel closes a socket when
// its process ends, however it ends (SIGKILL too), so a lock is never left behind and never judged by
// a pid or an age. On Linux the name is in the abstract namespace (no file); elsewhere it is a socket
// file in the temporary folder, removed when a connection to it is refused (its holder is gone;
// best effort: two waiters that find a dead holder at the same moment may both go on).
import { createHash } from 'node:crypto';
import { realpathSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncError } from './state.js';

/** How often a pass that waits for another's lock looks again. */
const POLL_MS = 50;

function socketName(dir: string): string {
  const id = createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 32);
  const name = `memdir-sync-${id}`;
  return process.platform === 'linux' ? `\0${name}` : join(tmpdir(), `${name}.sock`);
}

function listen(server: Server, name: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(error);
    });
    server.listen(name, () => resolve(true));
  });
}

/** Whether a socket file's holder still listens (a refused connection means it is gone). */
function alive(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(name);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Takes DIR's lock, waiting up to `waitMs` for another process's pass to end.
 * @returns the release.
 * @throws SyncError BUSY when another pass still holds it after `waitMs`.
 */
export async function lockFolder(dir: string, waitMs: number): Promise<() => Promise<void>> {
  const name = socketName(dir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const server = createServer((socket) => socket.destroy());
    if (await listen(server, name)) {
      server.unref(); // the lock never keeps the process alive
      return () => new Promise<void>((resolve) => server.close(() => resolve()));
    }
    server.close();
    if (!name.startsWith('\0') && !(await alive(name))) {
      try {
        unlinkSync(name);
      } catch {
        // another waiter removed it first
      }
      continue;
    }
    if (Date.now() >= deadline) {
      throw new SyncError('BUSY', 'another memdir sync is running a pass on this folder');
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
