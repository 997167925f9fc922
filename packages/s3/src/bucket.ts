// The S3 requests the driver makes. Each is aborted at the time its call has left (one deadline per
// command), sent again while that time allows when it failed for a passing reason (a dropped
// connection, a 5xx, throttling) and the client is the store's own, written with conditions the
// way the server understands them (probe.ts), and turned into memdir errors (errors.ts).
import { createHash } from 'node:crypto';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { isMemoryToolError, type MemoryToolError } from '@memdir/core';
import {
  backendFailure,
  checkTime,
  probeServer,
  raceServerProbe,
  sleep,
  storeUnavailable,
  utf8Length,
  wrongServer,
} from '@memdir/core/driver';
import type { Call } from './call.js';
import { attemptsOf, diagnose, isNotFound, isPreconditionFailed, statusOf } from './errors.js';
import { copySource, decodeListedKey, MAX_KEY_BYTES, xmlSafe } from './keys.js';
import {
  type FileMeta,
  fileMetadata,
  infoOf,
  type ListedObject,
  type ListPage,
  MOVED_HEADER,
  type ObjectContent,
  type ObjectInfo,
  OPS_HEADER,
  type PutOptions,
  type Refused,
  type ServerBehaviour,
  SOURCE_HEADER,
  TEXT,
  unquote,
} from './objects.js';

/** Keys per `ListObjectsV2` page and per `DeleteObjects` call: S3's maximum for both. */
export const PAGE_SIZE = 1000;
/**
 * Waits between the sendings of a request (full jitter): the first up to `baseMs` (`throttledMs`
 * after a 503 SlowDown, as S3 asks), doubling up to `maxMs`, for as long as the deadline allows.
 */
const BACKOFF = { baseMs: 25, throttledMs: 200, maxMs: 1_000 } as const;
/**
 * How long a first request may go without an answer before the endpoint is asked what it is, and
 * how long that question waits: a Redis or PostgreSQL port answers the question within these.
 */
const PROBE_AFTER_MS = 1_000;
const PROBE_WAIT_MS = 1_500;
/** A request that took this long is reported to the log (only reported: the deadline bounds it). */
const SLOW_REQUEST_MS = 1_000;

/** One attempt of a request: its abort signal, and how many went before it. */
interface Attempt {
  readonly abortSignal: AbortSignal;
  readonly number: number;
}

/** Telemetry of what the server or the network did, for the operators' log (never a key). */
interface Health {
  failing: boolean;
}

/** One bucket, through one client. */
export class Bucket {
  behaviour: ServerBehaviour = { quotedIfMatch: true, conditionalDelete: false, md5Etags: false };
  /** The startup probe (probe.ts), once per client and bucket. */
  probing: Promise<ServerBehaviour> | undefined;
  /** Set once the client is destroyed: every request then fails with reason `closed`. */
  closed = false;
  readonly #health: Health = { failing: false };

  /**
   * @param retries send a request again after a passing failure (the store's own client, built
   *   with no retries of its own); false for the application's client, whose retries are its own.
   */
  constructor(
    readonly client: S3Client,
    readonly name: string,
    readonly retries: boolean,
  ) {}

  /** Whether the endpoint has answered a request (with anything HTTP) since the bucket was made. */
  #answered = false;
  /** The one question to the endpoint's address about what listens there (server-probe in core). */
  #probing: Promise<MemoryToolError | undefined> | undefined;

  #probe(): Promise<MemoryToolError | undefined> {
    this.#probing ??= (async () => {
      const endpoint = await this.client.config.endpoint?.();
      if (endpoint === undefined) return undefined;
      const port = endpoint.port ?? (endpoint.protocol === 'https:' ? 443 : 80);
      const found = await probeServer(endpoint.hostname.replace(/^\[|\]$/g, ''), port, PROBE_WAIT_MS);
      // Only a server positively of another kind is named: one that takes the connection and says
      // nothing cannot be told from an S3 too busy to answer yet, so it gets the deadline's answer.
      return found === undefined || found === 'HTTP' || found === 'silent'
        ? undefined
        : wrongServer('S3', found, "the endpoint's port");
    })().catch(() => undefined);
    return this.#probing;
  }

  /** An `If-Match` header value for a version, as this server wants it. */
  match(etag: string): string {
    return this.behaviour.quotedIfMatch ? `"${etag}"` : etag;
  }

  /**
   * Runs one request, each attempt aborted when the call's deadline comes, and sends it again after
   * a passing failure while the deadline leaves room for the wait. A failure of a change that may
   * have reached the server is reported with an unknown outcome.
   */
  async #send<T>(call: Call, change: boolean, run: (attempt: Attempt) => Promise<T>): Promise<T> {
    let sent = false;
    for (let number = 1; ; number++) {
      if (this.closed) throw storeUnavailable('the store is closed', undefined, 'closed');
      if (number > 1 || call.deadline <= Date.now()) {
        try {
          checkTime(call);
        } catch (error) {
          throw sent && change ? backendFailure({ ...timeoutOf(error), outcome: 'unknown' }) : error;
        }
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), call.left);
      const started = Date.now();
      call.started();
      try {
        const attempt = run({ abortSignal: controller.signal, number });
        // Until the endpoint first answers, a wrong port is told apart from a slow server (below).
        const result = await (this.#answered
          ? attempt
          : raceServerProbe(
              attempt,
              () => this.#probe(),
              PROBE_AFTER_MS,
              (late) => {
                controller.abort();
                late.catch(() => {});
              },
            ));
        this.#answered = true;
        const took = Date.now() - started;
        if (took >= SLOW_REQUEST_MS) call.log.debug('slow S3 request', { ms: took });
        if (this.#health.failing) {
          this.#health.failing = false;
          call.log.info('connection to S3 regained');
        }
        return result;
      } catch (error) {
        if (isMemoryToolError(error)) throw error;
        const diagnosis = diagnose(error);
        if (statusOf(error) !== undefined) this.#answered = true;
        // A dropped connection from an endpoint that never answered: "socket hang up" from a Redis
        // port says nothing; the address is asked what it is, once.
        if (!this.#answered && diagnosis.transient && diagnosis.reason === 'unavailable') {
          const other = await this.#probe();
          if (other !== undefined) throw other;
        }
        sent ||= !diagnosis.notApplied;
        call.retried(Math.max(0, attemptsOf(error) - 1));
        const wait = backoff(number, diagnosis.reason === 'busy');
        if (this.retries && diagnosis.transient && !controller.signal.aborted && wait < call.left) {
          if (!this.#health.failing) {
            this.#health.failing = true;
            call.log.warn('S3 request failed; retrying', {
              reason: diagnosis.reason,
              detail: diagnosis.detail,
            });
          }
          call.retried();
          await sleep(wait);
          continue;
        }
        if (diagnosis.reason !== 'misconfigured') this.#health.failing = true;
        throw backendFailure({
          detail: diagnosis.detail,
          reason: diagnosis.reason,
          outcome: change && sent ? 'unknown' : 'not-applied',
          cause: error,
        });
      } finally {
        clearTimeout(timer);
        call.ended();
      }
    }
  }

  /** The object at `key` with its bytes, or null when there is none. */
  get(key: string, call: Call): Promise<ObjectContent | null> {
    return this.#get(key, call, false).then((found) => found?.object ?? null);
  }

  /**
   * The object at `key` with its bytes and the server's clock at the reply (the `Date` header), for
   * judging an object's age by the server's time alone.
   */
  getWithDate(
    key: string,
    call: Call,
  ): Promise<{ object: ObjectContent; serverTime: number | undefined } | null> {
    return this.#get(key, call, true);
  }

  /**
   * The first `length` bytes of the object at `key` (a `Range` GET; history reads the header of a
   * version object this way), or null when there is none. `size` is the whole object's.
   */
  getStart(
    key: string,
    length: number,
    call: Call,
  ): Promise<{ bytes: Uint8Array; size: number; etag: string } | null> {
    return this.#send(call, false, async ({ abortSignal }) => {
      let reply: GetObjectCommandOutput;
      try {
        reply = await this.client.send(
          new GetObjectCommand({ Bucket: this.name, Key: checked(key), Range: `bytes=0-${length - 1}` }),
          { abortSignal },
        );
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
      call.retried(attemptsOf(reply) - 1);
      const bytes = (await reply.Body?.transformToByteArray()) ?? new Uint8Array();
      const total = /\/(\d+)$/.exec(reply.ContentRange ?? '')?.[1];
      return { bytes, size: total === undefined ? bytes.length : Number(total), etag: unquote(reply.ETag) };
    });
  }

  /** What `key` holds, without the bytes, or null when there is no object. */
  head(key: string, call: Call): Promise<ObjectInfo | null> {
    return this.#send(call, false, async ({ abortSignal }) => {
      try {
        const reply = await this.client.send(
          new HeadObjectCommand({ Bucket: this.name, Key: checked(key) }),
          { abortSignal },
        );
        call.retried(attemptsOf(reply) - 1);
        return infoOf(reply);
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  /**
   * A GET, read to its end. The SDK retries a request until its reply's headers arrive, not while
   * the body streams in: a connection lost in the middle of the body is sent again here like any
   * other passing failure (a GET changes nothing).
   */
  #get(
    key: string,
    call: Call,
    withDate: boolean,
  ): Promise<{ object: ObjectContent; serverTime: number | undefined } | null> {
    return this.#send(call, false, async ({ abortSignal }) => {
      const command = new GetObjectCommand({ Bucket: this.name, Key: checked(key) });
      let serverTime: number | undefined;
      if (withDate) {
        command.middlewareStack.add(
          (next) => async (args) => {
            const result = await next(args);
            const date = (result.response as { headers?: Record<string, string> }).headers?.['date'];
            const parsed = date === undefined ? Number.NaN : Date.parse(date);
            if (!Number.isNaN(parsed)) serverTime = parsed;
            return result;
          },
          { step: 'deserialize', name: 'memdirServerTime' },
        );
      }
      let reply: GetObjectCommandOutput;
      try {
        reply = await this.client.send(command, { abortSignal });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
      call.retried(attemptsOf(reply) - 1);
      const bytes = (await reply.Body?.transformToByteArray()) ?? new Uint8Array();
      return { object: { ...infoOf(reply), size: bytes.length, bytes }, serverTime };
    });
  }

  /**
   * A conditional PUT. Resolves to the new version (ETag), or {@link Refused} when the condition
   * did not hold (412; also 404 or 409 on some servers for `If-Match` on a missing key).
   */
  put(key: string, body: Uint8Array | string, options: PutOptions, call: Call): Promise<string | Refused> {
    const metadata: Record<string, string> = { [OPS_HEADER]: options.ops, ...fileMetadata(options.file) };
    if (options.source !== undefined) metadata[SOURCE_HEADER] = options.source;
    if (options.moved !== undefined) metadata[MOVED_HEADER] = options.moved;
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    return this.#send(call, true, async ({ abortSignal, number }) => {
      try {
        const reply = await this.client.send(
          new PutObjectCommand({
            Bucket: this.name,
            Key: checked(key),
            Body: bytes,
            ContentLength: bytes.length,
            ContentType: options.contentType ?? TEXT,
            Metadata: metadata,
            IfMatch: options.ifMatch === undefined ? undefined : this.match(options.ifMatch),
            IfNoneMatch: options.ifNoneMatch ? '*' : undefined,
          }),
          { abortSignal },
        );
        call.retried(attemptsOf(reply) - 1);
        return unquote(reply.ETag);
      } catch (error) {
        if (isPreconditionFailed(error) || (options.ifMatch !== undefined && isNotFound(error))) {
          return { refused: true, resent: number > 1 || attemptsOf(error) > 1 } as const;
        }
        throw error;
      }
    });
  }

  /**
   * A server-side copy of `from` (whose version we believe is `sourceEtag`) to `to`, with fresh
   * metadata. `CopySourceIfMatch` is sent for servers that honour it (radosgw 16 does not, so the
   * caller checks the copy). Resolves to the copy's ETag, `'precondition'` when the source changed,
   * or null when it is gone.
   */
  copy(
    from: string,
    to: string,
    sourceEtag: string,
    ops: string,
    call: Call,
    file?: FileMeta,
  ): Promise<string | 'precondition' | null> {
    return this.#send(call, true, async ({ abortSignal }) => {
      try {
        const reply = await this.client.send(
          new CopyObjectCommand({
            Bucket: this.name,
            Key: checked(to),
            CopySource: copySource(this.name, checked(from)),
            CopySourceIfMatch: `"${sourceEtag}"`,
            MetadataDirective: 'REPLACE',
            ContentType: TEXT,
            Metadata: { [OPS_HEADER]: ops, [SOURCE_HEADER]: sourceEtag, ...fileMetadata(file) },
          }),
          { abortSignal },
        );
        return unquote(reply.CopyObjectResult?.ETag);
      } catch (error) {
        if (isPreconditionFailed(error)) return 'precondition';
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  /**
   * Deletes one object, only while it has version `ifMatch` when given and the server honours it
   * (see {@link ServerBehaviour.conditionalDelete}). Resolves to `'precondition'` when it changed.
   */
  delete(key: string, ifMatch: string | undefined, call: Call): Promise<'deleted' | 'precondition'> {
    return this.#send(call, true, async ({ abortSignal }) => {
      try {
        await this.client.send(
          new DeleteObjectCommand({
            Bucket: this.name,
            Key: checked(key),
            IfMatch: ifMatch === undefined ? undefined : this.match(ifMatch),
          }),
          { abortSignal },
        );
        return 'deleted';
      } catch (error) {
        if (isPreconditionFailed(error)) return 'precondition';
        if (isNotFound(error)) return 'deleted';
        throw error;
      }
    });
  }

  /**
   * Deletes keys, 1000 a request, checking each reply's per-key errors (a 200 reply may still
   * refuse some keys) and deleting those again one by one. Keys XML cannot carry go one by one.
   */
  async deleteMany(keys: readonly string[], call: Call): Promise<void> {
    const batchable = keys.filter(xmlSafe);
    const single = keys.filter((key) => !xmlSafe(key));
    const batches: string[][] = [];
    for (let start = 0; start < batchable.length; start += PAGE_SIZE) {
      batches.push(batchable.slice(start, start + PAGE_SIZE));
    }
    await Promise.all([
      ...batches.map(async (batch) => {
        if (batch.length === 1) {
          await this.delete(batch[0]!, undefined, call);
          return;
        }
        const refused = await this.#send(call, true, async ({ abortSignal }) => {
          const command = new DeleteObjectsCommand({
            Bucket: this.name,
            Delete: { Objects: batch.map((key) => ({ Key: checked(key) })), Quiet: true },
          });
          withContentMd5(command);
          const reply = await this.client.send(command, { abortSignal });
          return (reply.Errors ?? []).map((error) => error.Key).filter((key) => key !== undefined);
        });
        for (const key of refused) await this.delete(key, undefined, call);
      }),
      ...single.map((key) => this.delete(key, undefined, call)),
    ]);
  }

  /**
   * One page of the keys beneath `prefix` after `startAfter`, in S3's order (UTF-8 bytes). Listed
   * with `EncodingType: 'url'`: XML cannot carry every character a name may hold (U+FFFF), and
   * decoding is ours to do.
   */
  list(prefix: string, startAfter: string | undefined, call: Call, maxKeys = PAGE_SIZE): Promise<ListPage> {
    return this.#send(call, false, async ({ abortSignal }) => {
      const reply = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.name,
          Prefix: prefix,
          StartAfter: startAfter,
          MaxKeys: maxKeys,
          EncodingType: 'url',
        }),
        { abortSignal },
      );
      call.retried(attemptsOf(reply) - 1);
      const objects: ListedObject[] = [];
      for (const item of reply.Contents ?? []) {
        if (item.Key === undefined) continue;
        objects.push({
          key: decodeListedKey(item.Key),
          size: item.Size ?? 0,
          etag: unquote(item.ETag),
          modified: item.LastModified?.getTime(),
        });
      }
      return { objects, truncated: reply.IsTruncated === true && objects.length > 0 };
    });
  }

  /**
   * One page of the "folders" directly beneath `prefix` (`Delimiter: '/'`), in S3's order: each a
   * full key prefix ending in `/`, listed once however many keys it holds. `token` continues a page.
   */
  listFolders(
    prefix: string,
    from: { readonly startAfter?: string | undefined; readonly token?: string | undefined },
    call: Call,
    maxKeys = PAGE_SIZE,
  ): Promise<{ folders: string[]; token: string | undefined }> {
    return this.#send(call, false, async ({ abortSignal }) => {
      const reply = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.name,
          Prefix: prefix,
          Delimiter: '/',
          StartAfter: from.token === undefined ? from.startAfter : undefined,
          ContinuationToken: from.token,
          MaxKeys: maxKeys,
          EncodingType: 'url',
        }),
        { abortSignal },
      );
      call.retried(attemptsOf(reply) - 1);
      const folders = (reply.CommonPrefixes ?? []).flatMap((entry) =>
        entry.Prefix === undefined ? [] : [decodeListedKey(entry.Prefix)],
      );
      return { folders, token: reply.IsTruncated === true ? reply.NextContinuationToken : undefined };
    });
  }
}

/** Full jitter over a doubling ceiling (AWS's advice for retries). */
function backoff(attempt: number, throttled: boolean): number {
  const base = throttled ? BACKOFF.throttledMs : BACKOFF.baseMs;
  return Math.random() * Math.min(BACKOFF.maxMs, base * 2 ** (attempt - 1));
}

/** The parts of an out-of-time failure, to report it with an unknown outcome. */
function timeoutOf(error: unknown) {
  return {
    detail: 'the S3 endpoint did not answer in time',
    reason: 'timeout' as const,
    cause: (error as { cause?: unknown }).cause ?? error,
  };
}

/** A key past S3's limit would get an error the SDK retries (a 500 on radosgw): refuse it here. */
function checked(key: string): string {
  if (utf8Length(key) > MAX_KEY_BYTES) {
    throw storeUnavailable(`a key is longer than S3's ${MAX_KEY_BYTES} bytes`, undefined, 'unexpected');
  }
  return key;
}

/**
 * `Content-MD5` on `DeleteObjects`: MinIO requires it and the SDK now sends a CRC32 instead
 * (aws-sdk-js-v3#6920). Added to this one command, never to the user's client.
 */
function withContentMd5(command: DeleteObjectsCommand): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { body?: unknown; headers?: Record<string, string> };
      if (typeof request.body === 'string' && request.headers) {
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'memdirContentMd5' },
  );
}
