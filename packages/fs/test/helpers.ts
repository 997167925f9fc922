import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
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

export interface WorkerResult {
  ok?: string;
  code?: string;
  error?: string;
}

/** Runs tool inputs concurrently in a separate Node.js process on the store at `root`. */
export function runInWorker(
  root: string,
  commands: unknown[],
  options: { overwrite?: boolean; lockTimeoutMs?: number } = {},
): Promise<WorkerResult[]> {
  const args = [WORKER, root, 'run', JSON.stringify(commands), JSON.stringify(options)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, (error, stdout, stderr) => {
      if (error) reject(new Error(`worker failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as WorkerResult[]);
    });
  });
}

/** Starts a worker that rewrites files until killed; resolves once it has written each file once. */
export function startChurn(root: string, files: number, size: number) {
  const child = spawn(process.execPath, [WORKER, root, 'churn', String(files), String(size)], {
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
