// How a command fails: a usage error (exit 2, `memdir: ...`) apart from a memory command that ran
// and failed (exit 1, the model's `Error: ...` text), the exit codes, and the store's own words for
// the operator.
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

/**
 * What an operator needs to hear about a store's failure, in the store's own words: the innermost
 * cause of a `BACKEND` error (`password authentication failed for user "app"`, `connect ECONNREFUSED
 * 127.0.0.1:6379`), or `undefined` when the error carries none. The model never reads this text;
 * the CLI scrubs the secrets of its store URLs from it before printing.
 */
export function operatorCause(error: unknown): string | undefined {
  if (!isMemoryToolError(error) || error.code !== 'BACKEND') return undefined;
  let cause: unknown = error.cause;
  let words: string | undefined;
  // A bounded walk: a cause chain is a few links long, and a cycle must not hang the CLI.
  for (let depth = 0; depth < 8 && cause !== undefined && cause !== null; depth++) {
    words = plainWords(cause) ?? words;
    cause = (cause as { cause?: unknown }).cause;
  }
  return words;
}

function plainWords(error: unknown): string | undefined {
  if (!(error instanceof Error)) return typeof error === 'string' && error !== '' ? error : undefined;
  // The abort of a request at the command's deadline ("This operation was aborted") says less than
  // the store's own words for it ("the S3 endpoint did not answer in time").
  if (error.name === 'AbortError') return undefined;
  // An SDK's placeholder ("UnknownError" for an answer without a body) says less than the store did.
  if (error.message !== '' && error.message !== error.name && !/^unknown ?error$/i.test(error.message)) {
    return error.message.split('\n', 1)[0];
  }
  // Node's connection attempt to each address of a host fails as an AggregateError with no message.
  if (error instanceof AggregateError && error.errors.length > 0) {
    const each = error.errors.map(plainWords).filter((words) => words !== undefined);
    if (each.length > 0) return [...new Set(each)].join('; ');
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
