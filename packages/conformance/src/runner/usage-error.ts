// The runner's usage error: a bad flag, a missing module, vitest or fast-check not installed. The
// command prints its message and hint on stderr and exits with code 2; the memdir CLI turns it
// into its own usage error, which it prints the same way.

/** A problem that stops the runner before any test runs. */
export class ConformanceUsageError extends Error {
  override readonly name = 'ConformanceUsageError';
  /** A line to print after the message, e.g. `Run "memdir-conformance --help" for usage.` */
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string } = {}) {
    super(message);
    this.hint = options.hint;
  }
}
