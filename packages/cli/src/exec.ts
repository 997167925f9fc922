import { createInterface } from 'node:readline';
import { isMemoryToolError, type MemoryStore } from '@memdir/core';
import { EXIT_FAILED, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';

/** One line of `memdir exec` output. */
export type ExecResult =
  /** The command succeeded; `text` is the result exactly as the model reads it. */
  | { ok: true; text: string }
  /** The command failed; the model would read `"Error: " + error`. */
  | { ok: false; code: string; error: string };

/**
 * Runs one tool input, as a JSON text, on `store`. Never rejects: a malformed line and a failed
 * command are both results.
 */
export async function execLine(store: MemoryStore, line: string, lineNumber: number): Promise<ExecResult> {
  let input: unknown;
  try {
    input = JSON.parse(line);
  } catch (error) {
    return {
      ok: false,
      code: 'INVALID_INPUT',
      error: `Line ${lineNumber} is not valid JSON: ${(error as Error).message}`,
    };
  }
  try {
    return { ok: true, text: await store.execute(input) };
  } catch (error) {
    if (isMemoryToolError(error)) return { ok: false, code: error.code, error: error.message };
    return { ok: false, code: 'BACKEND', error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * `memdir exec`: reads tool inputs as JSON lines from stdin and runs them one after another, in
 * order (as the model issued them), writing one JSON result line each. Keeps going after a failure.
 * @returns 1 when any line failed, else 0.
 */
export async function runExec(store: MemoryStore, io: CliIo): Promise<number> {
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  let failed = false;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    const result = await execLine(store, line, lineNumber);
    if (!result.ok) failed = true;
    await write(io.stdout, `${JSON.stringify(result)}\n`);
  }
  return failed ? EXIT_FAILED : EXIT_OK;
}
