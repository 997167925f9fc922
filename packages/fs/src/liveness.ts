// Telling whether the process that left a lock or a temporary file is still alive, without
// trusting its pid: in another PID namespace (a container sharing the volume) the same pid names
// a different process, and a restarted container gets its predecessor's pid again.
//
// Each process that writes listens on a Unix socket in the store's own folder,
// `{base}/.memdir/live-{token}`. The kernel closes a listening socket when its process dies, however
// it dies (SIGKILL included), so connecting to it answers for the process itself: a connection
// means alive, ECONNREFUSED (or no socket file) means gone. This holds across PID, mount and
// network namespaces: a socket file is found by its inode, like any file on the shared volume.
// It does not hold across kernels (a folder shared with a VM or another machine): a socket bound by
// another kernel refuses every connection. So every record also names its kernel (the boot id on
// Linux), and a record from another kernel is judged by its age instead (`staleLockMs`).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import type { Dir } from './dir.js';
import { errno, rename, unlink } from './sys.js';

/** This kernel: a hash of Linux's boot id, or of the host name where there is none. */
export const KERNEL = (() => {
  let identity: string;
  try {
    identity = `boot:${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`;
  } catch {
    identity = `host:${hostname()}`;
  }
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
})();

/** Longest socket path the platforms accept (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
/**
 * A connection that neither opens nor fails within this long is taken as a live, busy holder (a
 * dead process's socket refuses at once). A caller with less time left passes less.
 */
const CONNECT_TIMEOUT_MS = 1_000;

/** Who wrote a record: its kernel and its token (`s…`: it listens on a socket; `p{pid}-…`: it could not). */
export interface Owner {
  readonly kernel: string;
  readonly token: string;
}

/** What a liveness check can say; `unknown` for a process on another kernel. */
export type Verdict = 'alive' | 'gone' | 'unknown';

/**
 * What this process removes when it exits normally: its socket files, and a lock it still keeps for
 * a next command. A crash leaves them; the next process finds them abandoned and clears them.
 */
const removeAtExit = new Set<string>();
let exitHook = false;

/** Removes `path` (a path through a folder handle) when the process exits, until {@link keepAtExit}. */
export function removeWhenExiting(path: string): void {
  removeAtExit.add(path);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const leftover of removeAtExit) {
      try {
        unlinkSync(leftover);
      } catch {}
    }
  });
}

/** Undoes {@link removeWhenExiting}: before the folder handle in `path` is closed. */
export function keepAtExit(path: string): void {
  removeAtExit.delete(path);
}

/** The suffix of a socket being bound, before it is renamed to its name (see {@link Liveness.start}). */
export const BINDING = '.binding';

/** Whether a name in `.memdir` is a liveness socket, and whose (not one still being bound). */
export function socketToken(name: string): string | undefined {
  if (!name.startsWith('live-') || name.endsWith(BINDING)) return undefined;
  return name.slice('live-'.length);
}

/** This process's presence in one store folder, and the checks of others' presence. */
export class Liveness {
  readonly owner: Owner;
  readonly #dir: Dir;
  readonly #server: Server | undefined;
  readonly #path: string | undefined;

  private constructor(dir: Dir, token: string, server?: Server, path?: string) {
    this.#dir = dir;
    this.owner = { kernel: KERNEL, token };
    this.#server = server;
    this.#path = path;
  }

  /**
   * Starts listening in `dir` (the store's `.memdir`). Where no socket can be made (a path too long
   * for a socket on a platform without /proc, or a filesystem that refuses sockets), the process
   * is known by its pid instead, which only holds without PID namespaces.
   */
  static async start(dir: Dir): Promise<Liveness> {
    const token = `s${randomBytes(8).toString('hex')}`;
    const path = dir.at(`live-${token}`);
    if (path.length + BINDING.length <= MAX_SOCKET_PATH) {
      // Bound and listening under a name nobody asks, then renamed into place in one step: a
      // socket file that is there but not listening yet would refuse a connection, and a process
      // that asked in between would take this one for dead (and break its lock).
      const binding = `${path}${BINDING}`;
      const server = createServer({ pauseOnConnect: true }, (socket) => socket.destroy());
      const listening = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(binding, () => resolve(true));
      });
      const placed =
        listening &&
        (await rename(binding, path).then(
          () => true,
          () => false,
        ));
      if (placed) {
        // A listening socket must not keep the process alive.
        server.unref();
        server.on('error', () => {});
        removeWhenExiting(path);
        return new Liveness(dir, token, server, path);
      }
      if (listening) server.close();
    }
    return new Liveness(dir, `p${process.pid}-${randomBytes(6).toString('hex')}`);
  }

  /**
   * Whether `owner` (from a record in the same `.memdir`) is alive; one that does not answer within
   * `patienceMs` (at most {@link CONNECT_TIMEOUT_MS}) counts as alive.
   */
  async check(owner: Owner, patienceMs = CONNECT_TIMEOUT_MS): Promise<Verdict> {
    if (owner.kernel !== KERNEL) return 'unknown';
    if (owner.token === this.owner.token) return 'alive';
    if (owner.token.startsWith('p')) return pidVerdict(Number(owner.token.slice(1).split('-')[0]));
    if (!/^s[0-9a-f]{16}$/.test(owner.token)) return 'unknown';
    return socketVerdict(this.#dir.at(`live-${owner.token}`), Math.min(patienceMs, CONNECT_TIMEOUT_MS));
  }

  /** Stops listening and removes the socket file (libuv would remove only the name it was bound at). */
  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    if (this.#path) {
      keepAtExit(this.#path);
      await unlink(this.#path).catch(() => {});
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function pidVerdict(pid: number): Verdict {
  if (!Number.isSafeInteger(pid) || pid <= 0) return 'unknown';
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (error) {
    return errno(error) === 'ESRCH' ? 'gone' : 'alive';
  }
}

function socketVerdict(path: string, patienceMs: number): Promise<Verdict> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (verdict: Verdict) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(verdict);
    };
    const timer = setTimeout(() => done('alive'), patienceMs);
    socket.once('connect', () => done('alive'));
    socket.once('error', (error) => {
      const code = errno(error);
      // No listener (its process died), or no socket at all (it was never made or was removed).
      done(code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ENOTSOCK' ? 'gone' : 'alive');
    });
  });
}
