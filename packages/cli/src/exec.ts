// `memdir exec`: tool inputs as JSON lines on stdin, one JSON result a line on stdout, the text of
// each exactly what the model would read.
import { createInterface } from 'node:readline';
import { executeMemoryToolCall, type MemoryStore, toMemoryToolError } from '@memdir/core';
import { EXIT_FAILED, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';

/**
 * One line of `memdir exec` output. `text` is always exactly what the model reads: the result, or
 * `"Error: " + message` for a failure (docs/protocol.md, section 7), so it can go straight into a tool_result.
 */
export type ExecResult =
  /** The command succeeded. */
  | { ok: true; text: string }
  /** The command failed with the MemoryToolError code `code`; send `text` with `is_error: true`. */
  | { ok: false; code: string; text: string };

/**
 * Runs one tool input, as a JSON text, on `store`. Never rejects: a malformed line and a failed
 * command are both results. A failure that is not a MemoryToolError is reported with memdir's fixed
 * BACKEND text, so no stack trace or host path reaches the output meant for the model.
 */
export async function execLine(store: MemoryStore, line: string, lineNumber: number): Promise<ExecResult> {
  let input: unknown;
  try {
    input = JSON.parse(line);
  } catch (error) {
    return {
      ok: false,
      code: 'INVALID_INPUT',
      text: `Error: Line ${lineNumber} is not valid JSON: ${(error as Error).message}`,
    };
  }
  const result = await executeMemoryToolCall(store, input);
  if (!result.isError) return { ok: true, text: result.content };
  return { ok: false, code: toMemoryToolError(result.error).code, text: result.content };
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
