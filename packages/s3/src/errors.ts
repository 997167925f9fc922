// S3 failures in plain words (SPEC section 7) and with a reason (core's BackendFailureReason): what
// the model reads says what failed, never a credential, a host or a bucket name; the SDK's error,
// with the server's own message, stays on `cause`.
import { type BackendFailureReason, isMemoryToolError, type MemoryToolError } from '@memdir/core';
import { backendFailure } from '@memdir/core/driver';

interface SdkError {
  name?: unknown;
  code?: unknown;
  Code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown; attempts?: unknown };
  cause?: unknown;
}

/** The HTTP status of an S3 error reply, when the server answered. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as SdkError | undefined)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/** How many times the SDK sent the request (its own retries; 1 for a client that retries nothing). */
export function attemptsOf(error: unknown): number {
  const attempts = (error as SdkError | undefined)?.$metadata?.attempts;
  return typeof attempts === 'number' ? attempts : 1;
}

/** An S3 error code (`AccessDenied`, `SlowDown`...), or the SDK's or Node's error name or code. */
function codeOf(error: unknown): string {
  const { Code, code, name } = (error ?? {}) as SdkError;
  for (const candidate of [Code, code, name]) {
    if (typeof candidate === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(candidate)) return candidate;
  }
  return '';
}

/** Node's errno code, looking through the SDK's wrapping. */
function errnoOf(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as SdkError).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as SdkError).cause;
  }
  return '';
}

/** True when S3 answered that the key does not exist. */
export function isNotFound(error: unknown): boolean {
  const code = codeOf(error);
  if (code === 'NoSuchBucket') return false;
  return statusOf(error) === 404 || code === 'NoSuchKey' || code === 'NotFound';
}

/**
 * True when a conditional request's condition did not hold: 412, or 409 `ConditionalRequestConflict`
 * (AWS, when another conditional write to the key is in progress).
 */
export function isPreconditionFailed(error: unknown): boolean {
  const status = statusOf(error);
  return status === 412 || (status === 409 && codeOf(error) === 'ConditionalRequestConflict');
}

/** Credentials or permissions the server refuses: trying again will not help. */
const REFUSED_IDENTITY = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'AuthorizationHeaderMalformed',
  'AllAccessDisabled',
  'AccountProblem',
]);

/** What went wrong, in the words the model reads, and what it means for a retry. */
export interface Diagnosis {
  readonly detail: string;
  readonly reason: BackendFailureReason;
  /** The request certainly changed nothing (it was refused, or never reached the server). */
  readonly notApplied: boolean;
  /** Worth sending again while the deadline allows (a dropped connection, a 5xx, throttling). */
  readonly transient: boolean;
}

export function diagnose(error: unknown): Diagnosis {
  const status = statusOf(error);
  const code = codeOf(error);
  const errno = errnoOf(error);
  const message = String((error as SdkError | undefined)?.message ?? '');
  const failure = (detail: string, reason: BackendFailureReason, notApplied: boolean, transient = false) => ({
    detail,
    reason,
    notApplied,
    transient,
  });
  if (code === 'AbortError' || code === 'TimeoutError') {
    return failure('the S3 endpoint did not answer in time', 'timeout', false);
  }
  if (errno === 'ECONNREFUSED') return failure('the S3 endpoint refused the connection', 'unavailable', true);
  if (errno === 'ENOTFOUND') {
    return failure("the S3 endpoint's host name does not exist", 'misconfigured', true);
  }
  if (errno === 'EAI_AGAIN') {
    return failure("the S3 endpoint's host name could not be resolved", 'unavailable', true, true);
  }
  if (errno === 'ETIMEDOUT' || code === 'RequestTimeout') {
    return failure('the S3 endpoint did not answer in time', 'timeout', false, true);
  }
  if (errno === 'ECONNRESET' || errno === 'EPIPE' || /socket hang up|aborted/i.test(message)) {
    return failure('the connection to S3 was lost', 'unavailable', false, true);
  }
  if (code === 'CredentialsProviderError') {
    return failure('no S3 credentials were found', 'misconfigured', true);
  }
  if (/region is missing/i.test(message)) return failure('no S3 region is configured', 'misconfigured', true);
  if (code === 'NoSuchBucket') return failure('the bucket does not exist', 'misconfigured', true);
  if (REFUSED_IDENTITY.has(code) || status === 401 || status === 403) {
    return failure(
      `S3 refused the credentials or permissions (${status ?? 403}${code ? ` ${code}` : ''})`,
      'misconfigured',
      true,
    );
  }
  if (status === 503 || status === 429 || code === 'SlowDown' || code === 'Throttling') {
    return failure('S3 is throttling requests (503 SlowDown)', 'busy', false, true);
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return failure(`S3 refused the request (${status}${code ? ` ${code}` : ''})`, 'unexpected', true);
  }
  if (status !== undefined) {
    return failure(
      `S3 answered with an error (${status}${code ? ` ${code}` : ''})`,
      'unavailable',
      false,
      true,
    );
  }
  return failure('the request to S3 failed', 'unexpected', false);
}

/**
 * The `BACKEND` error for a failed S3 request. For a request that changes something and may have
 * reached the server, the model is told the change may have been saved (SPEC section 7).
 */
export function s3Failure(error: unknown, change: boolean): MemoryToolError {
  if (isMemoryToolError(error)) return error;
  const { detail, reason, notApplied } = diagnose(error);
  return backendFailure({
    detail,
    reason,
    outcome: change && !notApplied ? 'unknown' : 'not-applied',
    cause: error,
  });
}
