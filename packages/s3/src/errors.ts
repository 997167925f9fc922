// S3 failures in plain words (SPEC section 7): what the model reads says what failed, never a
// credential, a host or a bucket name; the SDK's error stays on `cause`.
import { isMemoryToolError, type MemoryToolError } from '@memdir/core';
import { outcomeUnknown, storeUnavailable } from '@memdir/core/driver';

interface SdkError {
  name?: unknown;
  code?: unknown;
  Code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  cause?: unknown;
}

/** The HTTP status of an S3 error reply, when the server answered. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as SdkError | undefined)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
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
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    current = (current as SdkError).cause;
  }
  return '';
}

/** True when S3 answered that the key does not exist. */
export function isNotFound(error: unknown): boolean {
  const code = codeOf(error);
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

interface Diagnosis {
  reason: string;
  /** The request certainly did not change anything (it was refused or never sent). */
  notApplied: boolean;
}

function diagnose(error: unknown): Diagnosis {
  const status = statusOf(error);
  const code = codeOf(error);
  const errno = errnoOf(error);
  const message = String((error as SdkError | undefined)?.message ?? '');
  if (code === 'AbortError') return { reason: 'the request was cancelled', notApplied: false };
  if (errno === 'ECONNREFUSED') return { reason: 'the S3 endpoint refused the connection', notApplied: true };
  if (errno === 'ENOTFOUND' || errno === 'EAI_AGAIN') {
    return { reason: "the S3 endpoint's host name could not be resolved", notApplied: true };
  }
  if (code === 'TimeoutError' || errno === 'ETIMEDOUT' || code === 'RequestTimeout') {
    return { reason: 'the S3 endpoint did not answer in time', notApplied: false };
  }
  if (errno === 'ECONNRESET' || errno === 'EPIPE' || /socket hang up/i.test(message)) {
    return { reason: 'the connection to S3 was lost', notApplied: false };
  }
  if (code === 'CredentialsProviderError')
    return { reason: 'no S3 credentials were found', notApplied: true };
  if (/region is missing/i.test(message)) return { reason: 'no S3 region is configured', notApplied: true };
  if (code === 'NoSuchBucket') return { reason: 'the bucket does not exist', notApplied: true };
  if (status === 503 || code === 'SlowDown') {
    return { reason: 'S3 is throttling requests (503 SlowDown)', notApplied: false };
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return { reason: `S3 refused the request (${status}${code ? ` ${code}` : ''})`, notApplied: true };
  }
  if (status !== undefined) {
    return { reason: `S3 answered with an error (${status}${code ? ` ${code}` : ''})`, notApplied: false };
  }
  return { reason: 'the request to S3 failed', notApplied: false };
}

/**
 * The `BACKEND` error for a failed S3 request. For a request that changes something and may have
 * reached the server, the model is told the change may have been saved (SPEC section 7).
 */
export function s3Failure(error: unknown, change: boolean): MemoryToolError {
  if (isMemoryToolError(error)) return error;
  const { reason, notApplied } = diagnose(error);
  return change && !notApplied ? outcomeUnknown(reason, error) : storeUnavailable(reason, error);
}
