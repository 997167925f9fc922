// Running the repository's scripts/services.sh from a test setup: its path from src/ or dist/, its
// progress lines, and the variables its `env` prints.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's `scripts/services.sh`, from `src/` as from `dist/` (both sit two levels down). */
export function servicesScriptPath(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env['MEMDIR_SERVICES_SCRIPT'] ?? fileURLToPath(new URL('../../../scripts/services.sh', import.meta.url))
  );
}

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `scripts/services.sh ARGS...` and hands each progress line it writes on stderr to `log`.
 * Rejects only when the script cannot be run at all; a non-zero exit is in `code`.
 */
export function runServicesScript(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; timeoutMs?: number } = {},
): Promise<ScriptRun> {
  const env = options.env ?? process.env;
  const script = servicesScriptPath(env);
  if (!existsSync(script)) {
    return Promise.reject(new Error(`scripts/services.sh is not at ${script} (set MEMDIR_SERVICES_SCRIPT)`));
  }
  return new Promise((resolve, reject) => {
    // The servers the script starts detach from these pipes, so 'close' comes when the script ends.
    const child = spawn('bash', [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line) options.log?.(line);
    });
    // The script bounds each wait itself; this only guards against a script that hangs outright.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (pending) options.log?.(pending);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

/** Parses the `export NAME='value'` lines of `scripts/services.sh env`. */
export function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^export ([A-Z0-9_]+)='([^']*)'$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}
