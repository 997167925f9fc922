// What the memory stores API kit tests (the target given to `describeMemoryStoresApi`) and what its
// groups share: the SDK client, the stores a run made (deleted at the end), and the helpers that
// assert memdir's own fields and texts only when the target says it is memdir.
import { createHash } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';

/** Where the API is and the token the kit works with. */
export interface ApiConnection {
  /** The API's origin, as the SDK's `baseURL` takes it: `http://127.0.0.1:8080` (no `/v1`). */
  baseUrl: string;
  /** A token that may create, list, manage and delete memory stores (memdir: `token add NAME --stores`). */
  token: string;
  /**
   * The `api_key_id` the API shows in `created_by` for changes made with `token` (memdir: the token's
   * name). When given, it is asserted exactly; otherwise any string is taken, and reused in filters.
   */
  apiKeyId?: string;
}

/** Options of a token the kit asks the target for. */
export interface ApiTokenRequest {
  /** A name for it, unique within the run (memdir shows it as `api_key_id`). */
  name: string;
  /** The one store it reaches; absent: every store (it may create and list stores). */
  store?: string;
  /** Reads only: every change is 403. @default false */
  readOnly?: boolean;
}

/** What the kit tests: an implementation of Anthropic's memory stores API at a base URL. */
export interface MemoryStoresApiTarget {
  /** Shown in the test names: describe(`memdir conformance: ${name}`). */
  name: string;
  /** Called once before the first test (start a server here if the target owns one). */
  connect(): ApiConnection | Promise<ApiConnection>;
  /** Called once after the last test, after the kit deleted every store it made. */
  disconnect?(): void | Promise<void>;
  /**
   * Makes a new token. With it, the kit checks what tokens may do (a store's token sees only its
   * store, 404 for another; a read-only token's changes are 403) and syncs with a store's own token;
   * without it those tests are not registered.
   */
  createToken?(request: ApiTokenRequest): string | Promise<string>;
  /**
   * The target is memdir: also check memdir's extensions (`memdir_usage`, `memdir_operation`,
   * `memdir_restore`, `error.details.error_code`) and memdir's exact error messages. Without it, the
   * kit checks only the hosted API's wire: fields, types, statuses and `error.type`s.
   * @default false
   */
  memdir?: boolean;
  /** Per test, in ms. @default 60000 */
  timeout?: number;
}

/** What every group of the kit reads while its tests run. */
export interface ApiKit {
  readonly target: MemoryStoresApiTarget;
  /** The connection, once `connect` has answered (before the first test). */
  connection(): ApiConnection;
  /** The SDK's client with the target's token and no retries (every answer is seen as it is). */
  admin(): Anthropic;
  /** The SDK's client with another token. */
  client(token: string, options?: Partial<ConstructorParameters<typeof Anthropic>[0]>): Anthropic;
  /** Creates a store that the kit deletes after the last test. */
  createStore(
    name: string,
    params?: Partial<Anthropic.Beta.MemoryStores.MemoryStoreCreateParams>,
  ): Promise<Anthropic.Beta.MemoryStores.BetaManagedAgentsMemoryStore>;
  /** `actual` without memdir's `memdir_*` fields unless the target is memdir. */
  wire<T>(actual: T): T;
  /** `fields` when the target is memdir, else nothing: spread into an expected object. */
  memdirFields(fields: Record<string, unknown>): Record<string, unknown>;
  /** The exact text when the target is memdir, else any string. */
  message(text: string): unknown;
  /** The `api_key_id` of the target's token, exactly when it is known. */
  apiKeyId(): unknown;
}

/** An RFC 3339 UTC time with milliseconds, as every time on the wire. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The hex sha256 of `text`'s UTF-8 bytes: what `content_sha256` holds. */
export const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The SDK's error of a request that must fail (the test fails when it succeeds or fails otherwise). */
export async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Anthropic.APIError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but the request succeeded');
}

/** The `error` object of a refusal's body. */
export function errorOf(refused: InstanceType<typeof Anthropic.APIError>): Record<string, unknown> {
  return (refused.error as { error: Record<string, unknown> }).error;
}

/** Strips `memdir_*` keys, deeply through arrays and plain objects. */
function withoutMemdirFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMemdirFields);
  if (value === null || typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (!key.startsWith('memdir_')) kept[key] = withoutMemdirFields(field);
  }
  return kept;
}

/** The kit's shared state for one run: made by `describeMemoryStoresApi`, read by every group. */
export function createApiKit(target: MemoryStoresApiTarget): ApiKit & {
  open(): Promise<void>;
  close(): Promise<void>;
} {
  let connection: ApiConnection | undefined;
  let admin: Anthropic | undefined;
  const made = new Set<string>();
  const memdir = target.memdir === true;
  const kit = {
    target,
    connection() {
      if (connection === undefined) throw new Error('the memory stores API kit is not connected yet');
      return connection;
    },
    client(token: string, options: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) {
      return new Anthropic({ baseURL: kit.connection().baseUrl, apiKey: token, maxRetries: 0, ...options });
    },
    admin() {
      admin ??= kit.client(kit.connection().token);
      return admin;
    },
    async createStore(
      name: string,
      params: Partial<Anthropic.Beta.MemoryStores.MemoryStoreCreateParams> = {},
    ) {
      const store = await kit.admin().beta.memoryStores.create({ ...params, name });
      made.add(store.id);
      return store;
    },
    wire<T>(actual: T): T {
      return (memdir ? actual : withoutMemdirFields(actual)) as T;
    },
    memdirFields: (fields: Record<string, unknown>) => (memdir ? fields : {}),
    message: (text: string) => (memdir ? text : expect.any(String)),
    apiKeyId: () => connection?.apiKeyId ?? expect.any(String),
    async open() {
      connection = await target.connect();
    },
    async close() {
      try {
        // Leave nothing behind: every store this run made is deleted (a store some test deleted is gone).
        if (connection !== undefined && made.size > 0) {
          for await (const store of kit
            .admin()
            .beta.memoryStores.list({ include_archived: true, limit: 100 })) {
            if (made.has(store.id)) await kit.admin().beta.memoryStores.delete(store.id);
          }
        }
      } finally {
        await target.disconnect?.();
      }
    },
  };
  return kit;
}
