// The requests the driver sends, through Anthropic's SDK (`client.beta.memoryStores.memories`): each
// with the time left of its command as its timeout, the command's abort signal, no retry of the
// SDK's own (the engine retries a lost compare-and-swap; a create sent twice would be refused as a
// path conflict), and the telemetry counters filled in.
import type Anthropic from '@anthropic-ai/sdk';
import type { DriverCallOptions } from '@memdir/core';
import { checkTime, sleep, timeLeft } from '@memdir/core/driver';
import { apiFailure, refusalOf, turnedAway } from './errors.js';

/** A memory as the API sends it (`view=basic` leaves `content` null). */
export interface ApiMemory {
  readonly type: 'memory';
  readonly id: string;
  readonly path: string;
  readonly content?: string | null | undefined;
  readonly content_sha256: string;
  readonly content_size_bytes: number;
}

/** A folder in a listing by depth. */
export interface ApiPrefix {
  readonly type: 'memory_prefix';
  readonly path: string;
}

/** A page of a listing. */
export interface ApiPage {
  readonly data: readonly (ApiMemory | ApiPrefix)[];
  readonly next: string | null;
}

/** The most memories a page of `view=basic` holds (API.md section 2). */
const PAGE_LIMIT = 100;

/** One memory store of one API, and how every request to it is sent. */
export class MemoriesApi {
  readonly #client: Anthropic;
  readonly #storeId: string;
  readonly #headers: Readonly<Record<string, string>>;

  constructor(client: Anthropic, storeId: string, headers: Readonly<Record<string, string>> = {}) {
    this.#client = client;
    this.#storeId = storeId;
    this.#headers = headers;
  }

  get storeId(): string {
    return this.#storeId;
  }

  /**
   * Sends one request. A refusal of the API is thrown as the SDK's error, for the caller to read
   * with `refusalOf`; anything else (no answer, a timeout) as a `BACKEND` failure. A request the
   * API turned away before doing anything (429 rate limited, 529 overloaded, 503 unavailable) is
   * sent again after its `retry-after` (or a short backoff) while the command has time left.
   */
  async #send<T>(
    options: DriverCallOptions | undefined,
    change: boolean,
    send: (request: object) => Promise<T>,
  ) {
    const stats = options?.stats;
    for (let attempt = 0; ; attempt += 1) {
      checkTime(options);
      if (stats) {
        stats.roundTrips += 1;
        stats.requests += 1;
        if (attempt > 0) stats.retries += 1;
      }
      const request = {
        timeout: Math.max(1, timeLeft(options)),
        maxRetries: 0,
        signal: options?.signal,
        headers: this.#headers,
      };
      try {
        return await send(request);
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal === undefined) throw apiFailure(error, change);
        const wait = turnedAway(error, attempt);
        if (wait === undefined || wait >= timeLeft(options)) throw error;
        await sleep(wait, options?.signal);
      }
    }
  }

  /** The store itself (its `archived_at` says whether it still takes changes). */
  retrieveStore(options?: DriverCallOptions): Promise<{ archived_at: string | null }> {
    return this.#send(options, false, (request) =>
      this.#client.beta.memoryStores.retrieve(this.#storeId, {}, request),
    );
  }

  /** A page of the memories under `prefix` (`/` or `/a/b/`), `depth` levels deep (0: all). */
  async list(
    prefix: string,
    depth: number,
    page: string | null,
    options?: DriverCallOptions,
  ): Promise<ApiPage> {
    const result = await this.#send(options, false, (request) =>
      this.#client.beta.memoryStores.memories.list(
        this.#storeId,
        {
          path_prefix: prefix,
          depth,
          view: 'basic',
          limit: PAGE_LIMIT,
          ...(page === null ? {} : { page }),
        },
        request,
      ),
    );
    return { data: result.data as readonly (ApiMemory | ApiPrefix)[], next: result.next_page ?? null };
  }

  /** One memory, with its content when `full`. */
  retrieve(id: string, full: boolean, options?: DriverCallOptions): Promise<ApiMemory> {
    return this.#send(options, false, (request) =>
      this.#client.beta.memoryStores.memories.retrieve(
        id,
        { memory_store_id: this.#storeId, view: full ? 'full' : 'basic' },
        request,
      ),
    ) as Promise<ApiMemory>;
  }

  /** Creates a memory at `path` (never overwrites: a taken path is a 409 path conflict). */
  create(path: string, content: string, options?: DriverCallOptions): Promise<ApiMemory> {
    return this.#send(options, true, (request) =>
      this.#client.beta.memoryStores.memories.create(
        this.#storeId,
        { path, content, view: 'basic' },
        request,
      ),
    ) as Promise<ApiMemory>;
  }

  /** Changes memory `id`'s content, path or both, under `expectSha256` when given. */
  update(
    id: string,
    change: { content?: string; path?: string },
    expectSha256: string | undefined,
    options?: DriverCallOptions,
  ): Promise<ApiMemory> {
    return this.#send(options, true, (request) =>
      this.#client.beta.memoryStores.memories.update(
        id,
        {
          memory_store_id: this.#storeId,
          view: 'basic',
          ...change,
          ...(expectSha256 === undefined
            ? {}
            : { precondition: { type: 'content_sha256', content_sha256: expectSha256 } }),
        },
        request,
      ),
    ) as Promise<ApiMemory>;
  }

  /** Deletes memory `id`, under `expectSha256` when given. */
  async delete(id: string, expectSha256: string | undefined, options?: DriverCallOptions): Promise<void> {
    await this.#send(options, true, (request) =>
      this.#client.beta.memoryStores.memories.delete(
        id,
        {
          memory_store_id: this.#storeId,
          ...(expectSha256 === undefined ? {} : { expected_content_sha256: expectSha256 }),
        },
        request,
      ),
    );
  }
}
