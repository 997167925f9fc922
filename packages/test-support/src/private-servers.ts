// Throwaway servers of a test's own, for the tests that kill, pause or restart their server:
// the shared servers other test files use are never touched.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntil } from './net.js';
import { runServicesScript } from './services-script.js';

/** A server of one test's own, on 127.0.0.1 and a free port. */
export interface PrivateServer {
  readonly host: '127.0.0.1';
  /** Stays the same across `restart()`. */
  readonly port: number;
  /** `redis://127.0.0.1:PORT`, or `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** The folder of its data and its log (`server.log`). */
  readonly dir: string;
  /** The server's pid while it runs. */
  readonly pid: number | undefined;
  /** Stops it the way an operator would (Redis: SIGTERM; PostgreSQL: fast shutdown), and waits. */
  stop(): Promise<void>;
  /** SIGKILL to the server and all its processes at once, as a crash would; waits for the exit. */
  kill(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing until `resume()`. */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
  /**
   * Starts it again on the same port (stopping it first if it runs). PostgreSQL keeps its data
   * (after `kill()` it recovers from its WAL); Redis runs without persistence and starts empty.
   */
  restart(): Promise<void>;
  /** Stops it and deletes its folder. Safe to call twice. */
  close(): Promise<void>;
}

export interface PrivateServerOptions {
  /**
   * How long to wait for the server to answer after a start.
   * @default 30000
   */
  startTimeoutMs?: number;
}

export interface PrivateRedisOptions extends PrivateServerOptions {
  /**
   * More `redis-server` arguments, e.g. `['--maxmemory-policy', 'noeviction']`.
   * @default []
   */
  args?: string[];
}

export interface PrivatePostgresOptions extends PrivateServerOptions {
  /**
   * More server settings (`-c name=value`), e.g. `{ max_connections: '20' }`.
   * @default {}
   */
  settings?: Record<string, string>;
}

// Killed with the test process, however it ends: a private server never outlives its test run.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

interface Launch {
  command: string;
  args: string[];
  uid?: number;
  gid?: number;
}

/** The mechanics both servers share: one detached process group, a log, bounded waits. */
class ManagedServer implements PrivateServer {
  readonly host = '127.0.0.1';
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly port: number,
    readonly url: string,
    readonly dir: string,
    private readonly what: string,
    private readonly launch: () => Launch,
    private readonly ready: () => Promise<boolean>,
    private readonly stopSignal: NodeJS.Signals,
    private readonly startTimeoutMs: number,
    private readonly owner?: { uid: number; gid: number },
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get log(): string {
    return join(this.dir, 'server.log');
  }

  async start(): Promise<void> {
    if (this.closed) throw new Error(`${this.what} was closed`);
    if (this.child) return;
    const { command, args, uid, gid } = this.launch();
    const log = openSync(this.log, 'a');
    if (this.owner) chownSync(this.log, this.owner.uid, this.owner.gid);
    let exit: string | undefined;
    try {
      // detached: its own process group, so kill() reaches every process the server forked.
      const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], uid, gid });
      this.child = child;
      running.add(child);
      this.exited = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          exit = `it exited (${signal ?? `code ${code}`})`;
          running.delete(child);
          if (this.child === child) this.child = undefined;
          resolve();
        });
      });
      child.once('error', (error) => {
        exit = `it could not start (${error.message})`;
      });
    } finally {
      closeSync(log);
    }
    try {
      await waitUntil(`${this.what} on 127.0.0.1:${this.port}`, this.ready, {
        timeoutMs: this.startTimeoutMs,
        hint: `see ${this.log}`,
        failed: () => exit,
      });
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.resume();
    child.kill(this.stopSignal);
    const stopped = await Promise.race([this.exited.then(() => true), sleep(15_000).then(() => false)]);
    if (!stopped) await this.kill();
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    killGroup(child, 'SIGKILL');
    await this.exited;
  }

  pause(): void {
    if (this.child) killGroup(this.child, 'SIGSTOP');
  }

  resume(): void {
    if (this.child) killGroup(this.child, 'SIGCONT');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async close(): Promise<void> {
    await this.stop();
    this.closed = true;
    await rm(this.dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Installs the server with scripts/services.sh when its program is missing. */
async function ensureInstalled(service: 'redis' | 'postgres', present: () => boolean): Promise<void> {
  if (present()) return;
  const run = await runServicesScript(['install', service]);
  if (run.code !== 0 || !present()) {
    throw new Error(
      `the ${service} server is not installed and scripts/services.sh install failed:\n${run.stderr}`,
    );
  }
}

function onPath(program: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    const path = join(dir || '.', program);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** Sends PING over a fresh connection; true on +PONG. */
function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      // A server started with --requirepass answers NOAUTH: it is up all the same.
      const reply = data.toString('latin1');
      resolve(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}

/**
 * Starts a Redis of the caller's own from the installed `redis-server` (installed first when missing),
 * on a free port, without persistence, with DEBUG allowed from loopback.
 */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateServer> {
  await ensureInstalled('redis', () => onPath('redis-server') !== undefined);
  const command = onPath('redis-server')!;
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'memdir-redis-'));
  const server = new ManagedServer(
    port,
    `redis://127.0.0.1:${port}`,
    dir,
    'private redis',
    () => ({
      command,
      args: [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--enable-debug-command', 'local', '--dir', dir, '--daemonize', 'no'],
        ...(options.args ?? []),
      ],
    }),
    () => redisPing(port),
    'SIGTERM',
    options.startTimeoutMs ?? 30_000,
  );
  await server.start();
  return server;
}

function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const latest = versions.at(-1);
  return latest === undefined ? undefined : join(root, latest, 'bin');
}

/** The postgres user's ids when we are root (PostgreSQL refuses to run as root), else none. */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a PostgreSQL of the caller's own from the installed binaries (installed first when missing):
 * a fresh `initdb` (as the postgres user when we are root), on a free port, trust authentication,
 * fsync off (committed data survives `kill()`, not a power cut). Its URL names the database `postgres`.
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivateServer> {
  await ensureInstalled('postgres', () => postgresBinaries() !== undefined);
  const bin = postgresBinaries()!;
  const owner = postgresOwner();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'memdir-postgres-'));
  const data = join(dir, 'data');
  try {
    mkdirSync(data, { mode: 0o700 });
    if (owner) {
      chownSync(dir, owner.uid, owner.gid);
      chownSync(data, owner.uid, owner.gid);
    }
    execFileSync(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
      { stdio: 'pipe', uid: owner?.uid, gid: owner?.gid },
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const output = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb for a private postgres failed: ${output || (error as Error).message}`);
  }
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    // fsync off is safe against a killed server (the kernel keeps what was written); a commit
    // still waits for its WAL write, so kill() never loses a committed transaction.
    fsync: 'off',
    full_page_writes: 'off',
    ...options.settings,
  };
  const server = new ManagedServer(
    port,
    `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    'private postgres',
    () => ({
      command: join(bin, 'postgres'),
      args: [
        '-D',
        data,
        '-p',
        String(port),
        ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ],
      uid: owner?.uid,
      gid: owner?.gid,
    }),
    () => pgIsReady(bin, port),
    // SIGINT is PostgreSQL's fast shutdown: it ends open sessions instead of waiting for them.
    'SIGINT',
    options.startTimeoutMs ?? 30_000,
    owner,
  );
  await server.start();
  return server;
}

function pgIsReady(bin: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'], {
      stdio: 'ignore',
    });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}
