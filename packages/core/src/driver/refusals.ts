// Refusals (a driver's "no" to one call, carrying the path it concerns) and failures (the backend
// could not answer), as the engine expects them from every driver.
import {
  type BackendFailureReason,
  type ChangeOutcome,
  MemoryToolError,
  type MemoryToolErrorCode,
  type QuotaBreach,
} from '../errors.js';
import {
  changeOutcomeUnknown,
  storeMisconfigured,
  storeUnavailable as unavailableMessage,
} from '../messages.js';

function refusal(code: MemoryToolErrorCode, path: string): MemoryToolError {
  // The message is for logs only: the engine writes the model's text from the code and the path.
  return new MemoryToolError(code, `${code} at ${JSON.stringify(path)}`, { path });
}

/** `write`/`move`: `path` is a directory, or the ancestor of the target that is a file. */
export function refusePathConflict(path: string): MemoryToolError {
  return refusal('PATH_CONFLICT', path);
}

/** `write`: the expectation (`{ version }` or `{ absent: true }`) does not hold at `path`. */
export function refuseConflict(path: string): MemoryToolError {
  return refusal('CONFLICT', path);
}

/** `move`: nothing is at the source `path`. */
export function refuseNotFound(path: string): MemoryToolError {
  return refusal('NOT_FOUND', path);
}

/** `move`: a file or directory is already at the destination `path`. */
export function refuseAlreadyExists(path: string): MemoryToolError {
  return refusal('ALREADY_EXISTS', path);
}

/** `restoreVersion`: the content would be larger than `maxFileBytes`. */
export function refuseTooLarge(path: string): MemoryToolError {
  return refusal('TOO_LARGE', path);
}

/**
 * A change that would pass the namespace's quota (SPEC section 3): `write`, `update` and
 * `restoreVersion` refuse with this; the engine writes the model's text from `breach`.
 */
export function refuseQuota(path: string, breach: QuotaBreach): MemoryToolError {
  return new MemoryToolError('QUOTA_EXCEEDED', `QUOTA_EXCEEDED at ${JSON.stringify(path)}`, {
    path,
    quota: breach,
  });
}

/**
 * The backend cannot use `path` because of what lies on it (the filesystem store's symbolic
 * links): the model reads "Path would escape /memories directory via symlink" (SPEC section 8).
 */
export function refuseLink(path: string): MemoryToolError {
  return refusal('INVALID_PATH', path);
}

/** True when `error` is a driver refusal with code `code`. */
export function isRefusal(error: unknown, code: MemoryToolErrorCode): error is MemoryToolError {
  return error instanceof MemoryToolError && error.code === code && error.path !== undefined;
}

/** What {@link backendFailure} needs to say of a failure. */
export interface BackendFailure {
  /** Plain words for the model ("connection to Redis lost"): never a credential, host path or stack. */
  readonly detail: string;
  /** @default 'unavailable' */
  readonly reason?: BackendFailureReason | undefined;
  /** `unknown` when a change was sent and may have been applied. @default 'not-applied' */
  readonly outcome?: ChangeOutcome | undefined;
  /** The backend's own error, for logs and the CLI. */
  readonly cause?: unknown;
}

/**
 * A `BACKEND` failure with its reason and outcome. The model reads "The memory store is
 * unavailable: {detail}." followed by what fits: "The change may or may not have been saved..."
 * for an unknown outcome, "Trying again will not help..." for a misconfigured store, else "Try again."
 */
export function backendFailure({
  detail,
  reason = 'unavailable',
  outcome = 'not-applied',
  cause,
}: BackendFailure): MemoryToolError {
  const message =
    outcome === 'unknown'
      ? changeOutcomeUnknown(detail)
      : reason === 'misconfigured'
        ? storeMisconfigured(detail)
        : unavailableMessage(detail);
  return new MemoryToolError('BACKEND', message, { cause, reason, outcome });
}

/**
 * A storage failure for the model: "The memory store is unavailable: {detail}. Try again." (or,
 * for `misconfigured`, that trying again will not help). Nothing was applied.
 */
export function storeUnavailable(
  detail: string,
  cause?: unknown,
  reason: BackendFailureReason = 'unavailable',
): MemoryToolError {
  return backendFailure({ detail, reason, outcome: 'not-applied', cause });
}

/**
 * A change whose outcome is unknown (the connection was lost after the request was sent): the
 * message tells the model that it may have been saved, and to look before it tries again.
 */
export function outcomeUnknown(
  detail: string,
  cause?: unknown,
  reason: BackendFailureReason = 'unavailable',
): MemoryToolError {
  return backendFailure({ detail, reason, outcome: 'unknown', cause });
}
