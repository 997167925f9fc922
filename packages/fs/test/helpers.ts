import { execFile, spawn } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

/** A fresh temporary folder, removed by the returned cleanup. */
export async function tempFolder(
  prefix = 'memdir-fs-',
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** Store options a worker takes (JSON), and `startAt`: the `Date.now()` at which its commands start. */
export interface WorkerOptions {
  overwrite?: boolean;
  lockTimeoutMs?: number;
  timeoutMs?: number;
  namespace?: string;
  quota?: { maxBytes?: number; maxFiles?: number };
  startAt?: number;
}

export interface WorkerResult {
  ok?: string;
  code?: string;
  error?: string;
}

/** Runs tool inputs concurrently in a separate Node.js process on the store at `root`. */
export function runInWorker(
  root: string,
  commands: unknown[],
  options: WorkerOptions = {},
): Promise<WorkerResult[]> {
  const args = [WORKER, root, 'run', JSON.stringify(commands), JSON.stringify(options)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`worker failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as WorkerResult[]);
    });
  });
}

/**
 * Starts a worker that rewrites files until killed (`churn`: `files` files of `size` bytes; or
 * `churn-sizes`: files of changing sizes, created, edited, moved and deleted); `ready` resolves once
 * it is under way.
 */
export function startChurn(
  root: string,
  files: number,
  size: number,
  mode: 'churn' | 'churn-sizes' = 'churn',
) {
  const args = mode === 'churn' ? [String(files), String(size)] : [];
  const child = spawn(process.execPath, [WORKER, root, mode, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`churn worker exited early (${code ?? signal}): ${stderr}`)),
    );
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, ready, exited };
}

/**
 * The command line that runs the worker with `args`: directly, or in a new PID namespace as a
 * container would (`unshare -p -f --mount-proc`, as root). `pid42` starts it after forty short-lived
 * processes, so that it is pid 42 there instead of pid 1: two containers need not give their
 * processes the same pid, and in a pid-1 process's namespace the low pids are its own threads
 * (kill(2) answers for a thread id too), so only a higher pid is "nobody" there.
 */
function workerCommand(args: string[], namespace: 'none' | 'pid1' | 'pid42'): [string, string[]] {
  const node = [process.execPath, WORKER, ...args];
  if (namespace === 'none') return [process.execPath, node.slice(1)];
  const forks = 'i=0; while [ $i -lt 40 ]; do /bin/true; i=$((i+1)); done; "$0" "$@"; exit $?';
  const inner = namespace === 'pid1' ? node : ['/bin/sh', '-c', forks, ...node];
  return ['unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', ...inner]];
}

/** {@link runInWorker}, in a new PID namespace. */
export function runInNamespace(
  root: string,
  commands: unknown[],
  options: { lockTimeoutMs?: number } = {},
  namespace: 'pid1' | 'pid42' = 'pid1',
): Promise<WorkerResult[]> {
  const [file, args] = workerCommand(
    [root, 'run', JSON.stringify(commands), JSON.stringify(options)],
    namespace,
  );
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`worker failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as WorkerResult[]);
    });
  });
}

/**
 * Starts a process that takes the store's lock and then hangs, event loop and all (in a new PID
 * namespace with `namespace`), forever or for `holdMs`. `held` resolves with its pid (as its own
 * namespace numbers it) once it holds the lock; `kill` ends it with SIGKILL and resolves once it is
 * gone.
 */
export function startHolder(root: string, namespace: 'none' | 'pid1' = 'none', holdMs?: number) {
  const [file, args] = workerCommand(
    [root, 'hold', ...(holdMs === undefined ? [] : [String(holdMs)])],
    namespace,
  );
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // When the lock was taken, on the holder's clock (Date.now(), the same clock as this process's).
  let heldAt = Number.NaN;
  const held = new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const match = /held (\d+) (\d+)\n/.exec(stdout);
      if (match) {
        heldAt = Number(match[2]);
        resolve(Number(match[1]));
      }
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`holder exited early (${code ?? signal}): ${stderr}`)),
    );
  });
  held.catch(() => {});
  return {
    /** The holder's pid once it holds the lock. */
    held,
    /** When it took the lock (ms since the epoch), once {@link held} resolved. */
    get heldAt() {
      return heldAt;
    },
    exited,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Every regular file beneath `dir` on disk (hidden ones included): what the totals must say. */
export async function diskTotals(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile()) {
      bytes += (await lstat(path)).size;
      files++;
    } else if (entry.isDirectory()) {
      const inner = await diskTotals(path);
      bytes += inner.bytes;
      files += inner.files;
    }
  }
  return { bytes, files };
}

/** The totals record of the store folder `base`, parsed. */
export async function totalsRecord(
  base: string,
): Promise<{ state: string; bytes: number; files: number } | null> {
  const text = await readFile(join(base, '.memdir', 'totals'), 'latin1').catch(() => null);
  const match =
    text && /^memdir-totals 1 (clean|changing) [0-9a-f]{16} (\d+) (\d+) \d+:\d+:\d+ *\n$/.exec(text);
  return match ? { state: match[1]!, bytes: Number(match[2]), files: Number(match[3]) } : null;
}
