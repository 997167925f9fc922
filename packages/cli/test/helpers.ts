import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The built CLI (`pnpm test` builds it first). */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment the CLI runs in: this process's, without the variables of the vitest running
 * these tests (the CLI should run as a user runs it) and without MEMDIR_STORE.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('VITEST') || key === 'MEMDIR_STORE' || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs `memdir ...args` to completion. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; input?: string; env?: Record<string, string>; bin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
      cwd: options.cwd,
      env: cliEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A fresh temporary folder, and a function that removes it. */
export async function tempFolder(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'memdir-cli-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** `stderr` without the progress lines of reading and checking an archive (`memdir import`). */
export function withoutProgress(stderr: string): string {
  return stderr.replace(/^memdir: (read|check): .*\n/gm, '');
}

/**
 * What `stream` (a child's stdout or stderr) printed, once it printed `text`; rejects after
 * `timeoutMs` with what it printed until then.
 */
export function untilOutput(stream: Readable, text: string, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${JSON.stringify(text)} within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes(text)) {
        clearTimeout(timer);
        resolve(output);
      }
    });
  });
}
