// What an answer of the memory stores API means to memdir: the parts of an SDK error the driver
// branches on (status, `error.type`, memdir's `error_code`, the memory in the way), and every
// failure that is not a refusal of one call turned into a `BACKEND` error with its reason. No
// message made here holds the key, a URL or the server's own words: only the status and the type.
import Anthropic from '@anthropic-ai/sdk';
import type { MemoryToolError } from '@memdir/core';
import { backendFailure } from '@memdir/core/driver';

/** What the driver reads of a refusal the API sent. */
export interface ApiRefusal {
  readonly status: number;
  /** `error.type` (`not_found_error`, `memory_path_conflict_error`...), or '' when the body had none. */
  readonly type: string;
  /** memdir's code in `error.details.error_code` (a memdir server sends it), or ''. */
  readonly code: string;
  /** `memory_path_conflict_error`: the path of the memory in the way, when the API names it. */
  readonly conflictingPath: string | undefined;
  /** `memory_path_conflict_error`: the id of the memory in the way, when the API names it. */
  readonly conflictingId: string | undefined;
}

/** The refusal `error` is, or undefined when it is no answer of the API (a lost connection...). */
export function refusalOf(error: unknown): ApiRefusal | undefined {
  if (!(error instanceof Anthropic.APIError) || typeof error.status !== 'number') return undefined;
  const body = (error.error as { error?: Record<string, unknown> } | undefined)?.error ?? {};
  const conflicting = body['conflicting_path'];
  const conflictingId = body['conflicting_memory_id'];
  return {
    status: error.status,
    type: error.type ?? (typeof body['type'] === 'string' ? body['type'] : ''),
    code: error.errorCode ?? '',
    conflictingPath: typeof conflicting === 'string' ? conflicting : undefined,
    conflictingId: typeof conflictingId === 'string' ? conflictingId : undefined,
  };
}

/** 404: no such memory (or store). */
export const isNotFound = (refusal: ApiRefusal | undefined): boolean => refusal?.status === 404;

/** 409 `memory_precondition_failed_error`: the content's SHA-256 was not the one expected. */
export const isPreconditionFailed = (refusal: ApiRefusal | undefined): boolean =>
  refusal?.status === 409 && refusal.type === 'memory_precondition_failed_error';

/** 409 `memory_path_conflict_error`: the path is taken, or overlaps a memory's. */
export const isPathConflict = (refusal: ApiRefusal | undefined): boolean =>
  refusal?.status === 409 && refusal.type === 'memory_path_conflict_error';

/** Content over the store's limit per memory: 413, or a 400 with memdir's `TOO_LARGE`. */
export const isTooLarge = (refusal: ApiRefusal | undefined): boolean =>
  refusal?.status === 413 || (refusal?.status === 400 && refusal.code === 'TOO_LARGE');

/**
 * How long to wait before sending again a request the API turned away without doing anything
 * (429, 503, 529): its `retry-after` (seconds, at most 5) or else 50 ms doubling up to 1 s, times a
 * random factor from 0.25 to 1, so that requests turned away together do not all come back
 * together. Undefined for any other answer.
 */
export function turnedAway(error: unknown, attempt: number): number | undefined {
  const status = refusalOf(error)?.status;
  if (status !== 429 && status !== 503 && status !== 529) return undefined;
  const after = Number((error as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after'));
  const wait =
    Number.isFinite(after) && after > 0 ? Math.min(after, 5) * 1000 : Math.min(1000, 50 * 2 ** attempt);
  return Math.round(wait * (0.25 + 0.75 * Math.random()));
}

/**
 * `error` (anything a request threw that the caller does not handle as a refusal) as a `BACKEND`
 * failure: a timeout or an abort is `timeout`; 429, 503 and 529 `busy` or `unavailable`; 401, 403,
 * an archived store and a missing store `misconfigured` (trying again will not help); the rest
 * `unexpected`. `change`: the request may have changed something (a change whose answer was lost
 * has an unknown outcome; a refusal the server sent never does).
 */
export function apiFailure(error: unknown, change: boolean): MemoryToolError {
  const cause = new Error(describe(error));
  const refusal = refusalOf(error);
  if (refusal === undefined) {
    const timedOut =
      error instanceof Anthropic.APIConnectionTimeoutError || error instanceof Anthropic.APIUserAbortError;
    return backendFailure({
      detail: timedOut
        ? 'the memory stores API did not answer in time'
        : 'the memory stores API cannot be reached',
      reason: timedOut ? 'timeout' : 'unavailable',
      outcome: change ? 'unknown' : 'not-applied',
      cause,
    });
  }
  const said = `the memory stores API answered ${refusal.status}${refusal.type === '' ? '' : ` ${refusal.type}`}`;
  // The cause says the same in plain words: it is what the CLI prints for an operator.
  const failure = (detail: string, reason: Parameters<typeof backendFailure>[0]['reason']) =>
    backendFailure({ detail, reason, outcome: 'not-applied', cause: new Error(detail) });
  const { status, code } = refusal;
  if (code === 'QUOTA_EXCEEDED') {
    return failure('the memory store is full (its limit of memories or bytes)', 'misconfigured');
  }
  if (status === 401) return failure(`the API key was refused (${said})`, 'misconfigured');
  if (status === 403) return failure(`the API key may not do this (${said})`, 'misconfigured');
  if (code === 'READ_ONLY' || (status === 400 && /archived/i.test(apiMessage(error)))) {
    return failure('the memory store is archived: it can be read, not changed', 'misconfigured');
  }
  if (status === 404) return failure(`the memory store does not exist (${said})`, 'misconfigured');
  if (status === 429 || status === 529) return failure(`the API is busy (${said})`, 'busy');
  if (status === 503) return failure(`the API is unavailable (${said})`, 'unavailable');
  if (status === 504 || status === 408) return failure(`the API did not answer in time (${said})`, 'timeout');
  // A path or content this API does not take (its path rules are stricter than memdir's).
  if (status === 400) return failure(`the API refused the request as invalid (${said})`, 'misconfigured');
  return failure(said, 'unexpected');
}

/** The server's own message, for recognising a refusal (never shown). */
function apiMessage(error: unknown): string {
  return error instanceof Anthropic.APIError ? (error.apiMessage ?? '') : '';
}

/** What failed, for logs and the CLI's cause line: the status and type, never the server's text. */
function describe(error: unknown): string {
  const refusal = refusalOf(error);
  if (refusal !== undefined) return `memory stores API: ${refusal.status} ${refusal.type}`.trim();
  if (error instanceof Anthropic.APIConnectionTimeoutError) return 'memory stores API: request timed out';
  if (error instanceof Anthropic.APIUserAbortError) return 'memory stores API: request aborted';
  if (error instanceof Anthropic.APIConnectionError) return 'memory stores API: connection failed';
  return 'memory stores API: request failed';
}
