import { isMemoryToolError } from '@memdir/core';

/**
 * A problem that stops the CLI before a memory command runs: a bad flag, a bad store URL, an adapter
 * that is not installed, a store that cannot be opened. The CLI prints `memdir: {message}` on stderr
 * and exits with code 2. (A memory command that runs and fails is a `MemoryToolError` instead: exit
 * code 1 and `Error: {message}`, the text the model would read.)
 */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
  /** A line to print after the message, e.g. `Run "memdir view --help" for usage.` */
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint;
  }
}

/** Exit codes of the `memdir` command (documented in the README). */
export const EXIT_OK = 0;
/** A memory command failed (or, for `exec`, at least one line failed; for `conformance`, a test failed). */
export const EXIT_FAILED = 1;
/** The CLI could not run the command: usage error, bad store URL, missing adapter, store not opened. */
export const EXIT_USAGE = 2;

/** The message the model would read after `Error: `, for anything a store throws. */
export function errorText(error: unknown): string {
  if (isMemoryToolError(error)) return error.message;
  // Stores built on the engine only throw MemoryToolError; a hand-written store may not. Its
  // message is still the best text to show.
  return error instanceof Error ? error.message : String(error);
}
