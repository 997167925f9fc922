// The one error a store raises: `MemoryToolError`, with its stable codes and what a backend failure
// says of itself (why, and whether the change was applied), so callers branch on fields, never on
// message text. The texts the model reads are in `messages.ts`.
import { UNEXPECTED_BACKEND_FAILURE } from './messages.js';

/**
 * The stable codes of a {@link MemoryToolError}. Callers branch on these, never on message text.
 * The order of the first twelve is the order in which SPEC section 1 reports them when several apply.
 */
export type MemoryToolErrorCode =
  /** The tool input is malformed: a missing or ill-typed field, an unknown command, a bad `view_range`. */
  | 'INVALID_INPUT'
  /** A path breaks the path rules (outside `/memories`, `..`, forbidden characters, too long, a symlink out). */
  | 'INVALID_PATH'
  /** The command would delete or rename `/memories` itself. */
  | 'ROOT_PROTECTED'
  /** The path does not exist. */
  | 'NOT_FOUND'
  /** The command needs a file and the path is a directory. */
  | 'NOT_A_FILE'
  /** The path is a directory where a file is needed, a parent is a file, or a move into itself. */
  | 'PATH_CONFLICT'
  /** The file or the destination already exists. */
  | 'ALREADY_EXISTS'
  /** `str_replace` found no occurrence of `old_str`. */
  | 'NO_MATCH'
  /** `str_replace` found more than one occurrence of `old_str`. */
  | 'MULTIPLE_MATCHES'
  /** `insert_line` is outside the file. */
  | 'INVALID_LINE'
  /** The file would exceed `maxFileBytes`, or has too many lines to view. */
  | 'TOO_LARGE'
  /** The change would take the namespace past its quota (`quota.maxBytes`, `quota.maxFiles`). See {@link MemoryToolError.quota}. */
  | 'QUOTA_EXCEEDED'
  /**
   * The storage backend failed (connection lost, disk full, misconfigured...). The original error is
   * on `cause`, and {@link MemoryToolError.reason} and {@link MemoryToolError.outcome} say more.
   */
  | 'BACKEND'
  /** A compare-and-swap kept losing to concurrent writers, or the store stayed locked. Safe to retry. */
  | 'CONFLICT'
  /**
   * The store is read-only by the application's choice (a read-only token, a view of the past made
   * by `asOf`). The change command was not run.
   */
  | 'READ_ONLY'
  /**
   * An operator call the store cannot serve: its driver lacks the capability (history, admin
   * operations, quotas), or the option that enables it is off. Never a model-facing answer.
   */
  | 'UNSUPPORTED';

/**
 * Why a `BACKEND` failure happened, for applications and operators (the model reads the message):
 * - `unavailable`: the server could not be reached or the connection was lost;
 * - `timeout`: the server did not answer within the command's deadline;
 * - `busy`: the store is overloaded or locked by another writer for too long;
 * - `closed`: the store (or its client) was closed;
 * - `misconfigured`: a wrong password, a missing database, bucket or permission: trying again will
 *   not help until someone fixes the configuration;
 * - `unexpected`: anything else (a bug, an answer memdir does not know).
 */
export type BackendFailureReason =
  | 'unavailable'
  | 'timeout'
  | 'busy'
  | 'closed'
  | 'misconfigured'
  | 'unexpected';

/**
 * Whether a failed command may have changed something: `not-applied` (it certainly did not: a read,
 * or a change refused before it was sent) or `unknown` (a change was sent and no answer came).
 */
export type ChangeOutcome = 'not-applied' | 'unknown';

/** The quota a refused change would have passed (code `QUOTA_EXCEEDED`, SPEC section 3). */
export type QuotaBreach =
  /** `total`: the namespace's bytes the change would leave; `max`: `quota.maxBytes`. */
  | { readonly kind: 'bytes'; readonly total: number; readonly max: number }
  /** `count`: the files the namespace holds now; `max`: `quota.maxFiles`. */
  | { readonly kind: 'files'; readonly count: number; readonly max: number };

export interface MemoryToolErrorOptions {
  /** The underlying error, e.g. the backend's. */
  cause?: unknown;
  /**
   * The path the error is about, when there is one. A driver's refusal gives the driver path it
   * concerns (the ancestor that is a file, the path that is a directory), which the engine reads
   * to write the model's message.
   */
  path?: string;
  /** For `BACKEND`: why it failed. @default 'unavailable' for a `BACKEND` error */
  reason?: BackendFailureReason;
  /** For `BACKEND`: whether a change may have been applied. @default 'not-applied' for a `BACKEND` error */
  outcome?: ChangeOutcome;
  /** For `QUOTA_EXCEEDED`: which quota, and the numbers the message gives. */
  quota?: QuotaBreach;
}

/**
 * The one error class of memdir. `message` is the text the model should read (SPEC section 7); the
 * integrations send it back as `"Error: " + message` with `is_error: true`.
 */
export class MemoryToolError extends Error {
  override readonly name = 'MemoryToolError';
  readonly code: MemoryToolErrorCode;
  readonly path: string | undefined;
  /** Set on every `BACKEND` error: why the store failed (see {@link BackendFailureReason}). */
  readonly reason: BackendFailureReason | undefined;
  /** Set on every `BACKEND` error: whether the command may have changed something. */
  readonly outcome: ChangeOutcome | undefined;
  /** Set on `QUOTA_EXCEEDED`: the quota and the numbers of the message. */
  readonly quota: QuotaBreach | undefined;

  constructor(code: MemoryToolErrorCode, message: string, options: MemoryToolErrorOptions = {}) {
    // Most of these are answers, not failures (NOT_FOUND, NO_MATCH...): a stack trace says nothing
    // about them and capturing one costs more than the rest of a command. Storage failures keep it.
    const limit = Error.stackTraceLimit;
    if (code !== 'BACKEND') Error.stackTraceLimit = 0;
    try {
      super(message, options.cause === undefined ? undefined : { cause: options.cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.code = code;
    this.path = options.path;
    const backend = code === 'BACKEND';
    this.reason = options.reason ?? (backend ? 'unavailable' : undefined);
    this.outcome = options.outcome ?? (backend ? 'not-applied' : undefined);
    this.quota = options.quota;
  }
}

/**
 * True for a {@link MemoryToolError}, also one thrown by another copy of this package (which
 * `instanceof` would miss when two versions are installed side by side).
 */
export function isMemoryToolError(value: unknown): value is MemoryToolError {
  return (
    value instanceof MemoryToolError ||
    (value instanceof Error &&
      value.name === 'MemoryToolError' &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}

/**
 * A storage failure memdir knows nothing more about (a driver or custom store threw something that
 * is not a `MemoryToolError`): a fixed message for the model, so no stack trace, host path or secret
 * reaches it, and the original error on `cause` for the application's logs.
 */
export function unexpectedBackendFailure(
  cause: unknown,
  outcome: ChangeOutcome = 'not-applied',
): MemoryToolError {
  return new MemoryToolError('BACKEND', UNEXPECTED_BACKEND_FAILURE, { cause, reason: 'unexpected', outcome });
}
