// Watching and tampering with a client's HTTP requests, at its request handler: every attempt the
// SDK sends (retries included) goes through `handle`. The requests reach the real server.
import type { S3Client } from '@aws-sdk/client-s3';

interface HttpRequestLike {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
}

type Handle = (
  request: HttpRequestLike,
  options?: unknown,
) => Promise<{ response: { statusCode: number; body?: unknown } }>;

/** One request as the log shows it: `PUT memories/a.md`, `GET ?list-type=2 prefix=...`. */
export interface LoggedRequest {
  readonly method: string;
  /** The key (decoded), without the bucket. */
  readonly key: string;
  readonly query: Record<string, string | string[] | null>;
  readonly headers: Record<string, string>;
  status?: number;
}

export interface Wire {
  readonly requests: LoggedRequest[];
  /** Clears the log. */
  reset(): void;
  /**
   * Lets the next request `matching` reach the server and get its answer, then throws a
   * connection reset instead of returning it: a reply lost after the change landed. The SDK
   * resends it (its retry strategy takes ECONNRESET as transient).
   */
  loseReplyOnce(matching: (request: LoggedRequest) => boolean): void;
  /**
   * Holds every request `matching` after the first `after` of them until `release()`, or until
   * its abort signal fires (then it fails as an aborted request does).
   */
  holdFrom(matching: (request: LoggedRequest) => boolean, after: number, onHold: () => void): void;
  /** Ends {@link holdFrom}: held requests stay failed, new ones go through. */
  release(): void;
}

function describeRequest(request: HttpRequestLike, bucket: string): LoggedRequest {
  const path = decodeURIComponent(request.path);
  const key = path.startsWith(`/${bucket}/`)
    ? path.slice(bucket.length + 2)
    : path.startsWith(`/${bucket}`)
      ? ''
      : path.slice(1);
  return { method: request.method, key, query: request.query ?? {}, headers: request.headers };
}

/** Puts a wire tap on `client` (built with its default request handler). */
export function tap(client: S3Client, bucket: string): Wire {
  const handler = client.config.requestHandler as unknown as { handle: Handle };
  const original = handler.handle.bind(handler);
  const requests: LoggedRequest[] = [];
  let lose: ((request: LoggedRequest) => boolean) | undefined;
  let hold: { matching: (request: LoggedRequest) => boolean; after: number; onHold: () => void } | undefined;
  handler.handle = async (request, options) => {
    const logged = describeRequest(request, bucket);
    requests.push(logged);
    if (hold?.matching(logged)) {
      if (hold.after <= 0) {
        hold.onHold();
        const signal = (options as { abortSignal?: AbortSignal } | undefined)?.abortSignal;
        return new Promise((_, reject) => {
          const abort = () => reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
          if (signal?.aborted) abort();
          signal?.addEventListener('abort', abort, { once: true });
        });
      }
      hold.after--;
    }
    const result = await original(request, options);
    logged.status = result.response.statusCode;
    if (lose?.(logged)) {
      lose = undefined;
      (result.response.body as { destroy?: () => void } | undefined)?.destroy?.();
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    }
    return result;
  };
  return {
    requests,
    reset: () => {
      requests.length = 0;
    },
    loseReplyOnce: (matching) => {
      lose = matching;
    },
    holdFrom: (matching, after, onHold) => {
      hold = { matching, after, onHold };
    },
    release: () => {
      hold = undefined;
    },
  };
}

/** `METHOD kind` for a request: GET, HEAD, PUT, DELETE of an object, LIST, COPY, DELETE-MANY. */
export function kindOf(request: LoggedRequest): string {
  if (request.method === 'GET' && 'list-type' in request.query) return 'LIST';
  if (request.method === 'POST' && 'delete' in request.query) return 'DELETE-MANY';
  if (request.method === 'PUT' && request.headers['x-amz-copy-source'] !== undefined) return 'COPY';
  return request.method;
}
