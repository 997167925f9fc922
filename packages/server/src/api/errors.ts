// The API's errors: one class for every refusal, memdir's outcomes mapped to the hosted API's
// statuses and `error.type`s (API.md section 2), and the one JSON shape every error is sent in. No
// message holds a host path, a credential, a stack or another store's data: a backend failure is
// sent as a fixed sentence, whatever the driver said.
import { isMemoryToolError } from '@memdir/core';

/** The `error.type`s the API sends (those of `@anthropic-ai/sdk`'s error objects). */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error'
  | 'conflict_error'
  | 'memory_path_conflict_error'
  | 'memory_precondition_failed_error';

/** A refusal, as sent: its status, type, message, the fields beside them, and whether to retry. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly retry: boolean;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    type: ApiErrorType,
    message: string,
    options: { fields?: Record<string, unknown>; retry?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.type = type;
    this.fields = options.fields ?? {};
    this.retry = options.retry ?? false;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message: string, code?: string): ApiError =>
  new ApiError(400, 'invalid_request_error', message, {
    fields: code === undefined ? {} : { details: { error_code: code } },
  });
export const notFound = (message: string): ApiError => new ApiError(404, 'not_found_error', message);
export const forbidden = (message: string): ApiError => new ApiError(403, 'permission_error', message);

const BACKEND: Record<string, [number, ApiErrorType, string]> = {
  timeout: [504, 'timeout_error', 'The store did not answer in time.'],
  busy: [529, 'overloaded_error', 'The store is busy; try again shortly.'],
  unavailable: [503, 'overloaded_error', 'The store is unavailable; try again shortly.'],
  closed: [503, 'overloaded_error', 'The store is closing; try again shortly.'],
  misconfigured: [500, 'api_error', "The server's store is misconfigured."],
  unexpected: [500, 'api_error', 'The store failed unexpectedly.'],
};

/**
 * Core's message in the API's paths: core words its texts for the memory tool, whose paths start
 * with `/memories`; the API's `/a.md` is the tool's `/memories/a.md`. Only a `/memories` that starts a
 * word is the tool's root (a folder named memories inside the store is `/memories/memories/...` there).
 */
export function inApiPaths(message: string): string {
  return message
    .replace(/(^|[\s"'(])\/memories\//g, '$1/')
    .replace(/(^|[\s"'(])\/memories(?=$|[\s"'),.:;])/g, '$1the store');
}

/**
 * `error` as the API sends it. A MemoryToolError keeps its message (core's operator texts, which
 * name only paths of the store the caller reaches), in the API's paths, except a backend failure,
 * which gets a fixed one.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (!isMemoryToolError(error)) return new ApiError(500, 'api_error', 'The server failed unexpectedly.');
  const code = error.code;
  const message = inApiPaths(error.message);
  const details = { details: { error_code: code } };
  switch (code) {
    case 'NOT_FOUND':
      return new ApiError(404, 'not_found_error', message, { fields: details });
    case 'CONFLICT':
      return new ApiError(409, 'memory_precondition_failed_error', message, { fields: details });
    case 'READ_ONLY':
      return new ApiError(403, 'permission_error', 'This token may only read.', { fields: details });
    case 'BACKEND': {
      const reason = error.reason ?? 'unexpected';
      const [status, type, message] = BACKEND[reason] ?? BACKEND['unexpected']!;
      return new ApiError(status, type, message, {
        fields: { details: { error_code: code, reason } },
        retry: reason !== 'misconfigured',
      });
    }
    default:
      return new ApiError(400, 'invalid_request_error', message, { fields: details });
  }
}

/** The response of `error`, with the request's id. */
export function errorResponse(error: ApiError, requestId: string): Response {
  const body = {
    type: 'error',
    error: { type: error.type, message: error.message, ...error.fields },
    request_id: requestId,
  };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: {
      'content-type': 'application/json',
      'request-id': requestId,
      'x-should-retry': String(error.retry),
      ...error.headers,
    },
  });
}
