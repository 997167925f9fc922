import { createHash, randomBytes } from 'node:crypto';
import {
  DEFAULT_TIMEOUT_MS,
  type DriverCallOptions,
  type DriverChangeOptions,
  type DriverDescribeOptions,
  type DriverDirectory,
  type DriverEntry,
  type DriverFile,
  type DriverListing,
  type DriverListingEntry,
  type DriverPath,
  type DriverWriteOptions,
  type MemoryDriver,
  validateNamespace,
} from '@memdir/core';
import {
  asDriverPath,
  isRefusal,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  storeUnavailable,
} from '@memdir/core/driver';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import { Connection, type RedisClient } from './connection.js';
import { arrivedTooLate, redisFailure, subtreeTooLarge } from './errors.js';
import {
  checkKeyPrefix,
  childChain,
  DEFAULT_KEY_PREFIX,
  fromStored,
  type NamespaceKeys,
  namespaceKeys,
  toStored,
} from './layout.js';
import { DESCRIBE, LIST, MOVE, READ, REMOVE, type Script, WRITE } from './scripts.js';

/** Default of `maxSubtreeEntries`. */
export const DEFAULT_MAX_SUBTREE_ENTRIES = 20_000;

/** Redis's largest string (its default `proto-max-bulk-len`). */
const REDIS_MAX_VALUE_BYTES = 512 * 1024 * 1024;

/** Options of {@link createRedisDriver}. */
export interface RedisDriverOptions {
  /**
   * Your own ioredis client: a `Redis` or a `Cluster`. The store never closes it. Give either this
   * or `url`.
   * @default undefined (a client is made from `url`)
   */
  client?: RedisClient | undefined;
  /**
   * Where the store connects when it makes its own client (closed by the store's `close()`):
   * `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. When the server is a
   * Cluster node the store connects to the whole Cluster through it.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string | undefined;
  /**
   * Prepended to every key the store uses. It must not contain `{` or `}`.
   * @default 'memdir:'
   */
  keyPrefix?: string | undefined;
  /**
   * ioredis options for the client made from `url`, over memdir's defaults (2 s connect timeout,
   * 3 s command timeout, after which the store reconnects; one retry per command, reconnects
   * capped at 1 s apart).
   * @default undefined
   */
  redisOptions?: RedisOptions | undefined;
  /**
   * ioredis Cluster options, when the server at `url` turns out to be a Cluster node (`natMap`,
   * `scaleReads`...), over memdir's defaults.
   * @default undefined
   */
  clusterOptions?: ClusterOptions | undefined;
  /**
   * How long after it was sent a change may still be applied: Redis refuses a change that reaches
   * it later (by its own clock), so a request resent after a long outage cannot land after the
   * model was told that its command may not have been saved. Keep it equal to the store's
   * `timeoutMs` (`createRedisStore` does).
   * @default 5000
   */
  timeoutMs?: number | undefined;
  /**
   * The most files and folders one `rename` or `delete` of a folder may move or delete. Each is
   * one script, during which Redis serves nobody else: a rename costs about 15 microseconds per
   * entry whatever the files hold (contents are not copied), a delete about 5 (measured on a busy
   * 2-core machine), so the default keeps either under half a second, a tenth of Redis's 5 s busy
   * threshold. Larger folders are refused with a `BACKEND` error asking to move or delete their
   * subfolders one at a time.
   * @default 20000
   */
  maxSubtreeEntries?: number | undefined;
}

/** The memdir driver over Redis (see {@link createRedisDriver}). */
export interface RedisDriver extends MemoryDriver {
  namespace(name: string): RedisDriver;
  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null>;
  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null>;
  /**
   * Connects and checks the server (Redis 7 or later; a `maxmemory-policy` that never evicts memdir's
   * keys; a Cluster client for a Cluster). Every call waits for it, so calling it is optional: it
   * lets a program fail at startup rather than on the first command.
   * @throws MemoryToolError `BACKEND` when the server cannot be reached or must not be used.
   */
  ready(): Promise<void>;
}

/**
 * Runs tasks with the same key one after another (in this process). Edits of one file queue here,
 * so that a process sends one compare-and-swap per file at a time: with many concurrent edits in
 * several processes, each round has as many contenders as processes, not as many as edits.
 */
class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => turn);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}

/** How many times `update` reads and writes again before it gives up, when no deadline stops it. */
const MAX_EDIT_ATTEMPTS = 1_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Shared {
  readonly connection: Connection;
  readonly edits: KeyedQueue;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly maxSubtreeEntries: number;
}

type Reply = unknown;

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `Invalid memdir Redis option ${name}: expected a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

function newVersion(): string {
  return randomBytes(12).toString('base64url');
}

/** EVALSHA, and EVAL once when this node does not have the script yet (never SCRIPT LOAD). */
async function evaluate(client: RedisClient, script: Script, keys: string[], args: string[]): Promise<Reply> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
      return client.eval(script.source, keys.length, ...keys, ...args);
    }
    throw error;
  }
}

class RedisMemoryDriver implements RedisDriver {
  readonly capabilities = {
    atomicRename: true,
    maxFileBytes: REDIS_MAX_VALUE_BYTES,
    replaySafe: true,
  } as const;
  /** For telemetry: the store kind and a short hash of the key prefix (no address, no secret). */
  readonly identity: { readonly kind: 'redis'; readonly id: string };
  readonly #shared: Shared;
  readonly #chain: string;
  readonly #root: boolean;
  readonly #readKeys: string[];
  readonly #describeKeys: string[];
  readonly #changeKeys: string[];

  constructor(shared: Shared, chain: string, root: boolean) {
    this.identity = {
      kind: 'redis',
      id: `redis-${createHash('sha256').update(shared.prefix).digest('hex').slice(0, 12)}`,
    };
    this.#shared = shared;
    this.#chain = chain;
    this.#root = root;
    const keys: NamespaceKeys = namespaceKeys(shared.prefix, chain);
    this.#readKeys = [keys.files, keys.versions, keys.index];
    this.#describeKeys = [...this.#readKeys, keys.sizes];
    this.#changeKeys = [...this.#describeKeys, keys.receipts, keys.receiptTimes];
  }

  namespace(name: string): RedisDriver {
    return new RedisMemoryDriver(this.#shared, childChain(this.#chain, validateNamespace(name)), false);
  }

  ready(): Promise<void> {
    return this.#shared.connection.ready();
  }

  async #run(script: Script, keys: string[], args: string[], change: boolean): Promise<Reply> {
    const { connection } = this.#shared;
    if (!connection.checked) await connection.ready();
    try {
      return await evaluate(connection.client, script, keys, args);
    } catch (error) {
      if (error instanceof Error && error.message === 'Command timed out') connection.timedOut();
      throw redisFailure(error, change);
    }
  }

  /**
   * Runs a change script with its fence (the server time past which it must not apply). When
   * Redis answers at once that the fence has passed, its clock is ahead of the one measured: learn
   * it and send again (nothing was applied). A late answer to a late request stays a refusal.
   */
  async #change(script: Script, args: (fence: string) => string[], signal?: AbortSignal): Promise<Reply> {
    const { connection, timeoutMs } = this.#shared;
    for (let attempt = 0; ; attempt++) {
      const sent = Date.now();
      const fence = String(Math.ceil(sent + connection.clockOffsetMs + timeoutMs));
      const reply = await this.#run(script, this.#changeKeys, args(fence), true);
      if (!Array.isArray(reply) || reply[0] !== 'E' || reply[1] !== 'LATE') return reply;
      const received = Date.now();
      if (attempt > 0 || signal?.aborted || received - sent > timeoutMs / 2) throw arrivedTooLate();
      connection.clockOffsetMs = Number(reply[2]) - (sent + received) / 2;
    }
  }

  async read(path: DriverPath, _options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    const reply = (await this.#run(READ, this.#readKeys, [toStored(path), '1'], false)) as string[] | null;
    if (reply === null) return null;
    if (reply[0] === 'd') return { kind: 'directory' };
    return { kind: 'file', version: reply[1]!, content: reply[2]! };
  }

  async stat(path: DriverPath, _options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    const reply = (await this.#run(READ, this.#readKeys, [toStored(path), '0'], false)) as string[] | null;
    if (reply === null) return null;
    return reply[0] === 'd' ? 'directory' : 'file';
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const args = [toStored(path), String(Math.max(0, Math.floor(options.limit)))];
    const reply = (await this.#run(DESCRIBE, this.#describeKeys, args, false)) as
      | [string, string, string]
      | [string, string, number, string]
      | null;
    if (reply === null) return null;
    if (reply[0] === 'f') return { kind: 'file', version: reply[1], content: reply[2] as string };
    const entries: DriverListingEntry[] = [];
    const packed = reply[3] as string;
    if (packed !== '') {
      for (const line of packed.split('\n')) {
        const tab = line.indexOf('\t');
        entries.push({
          path: fromStored(line.slice(tab + 1)),
          directory: line[0] === 'd',
          size: Number(line.slice(1, tab)),
        });
      }
    }
    return { kind: 'directory', size: Number(reply[1]), count: Number(reply[2]), entries };
  }

  async *list(dir: DriverPath, _options?: DriverCallOptions): AsyncIterable<DriverEntry> {
    const packed = (await this.#run(LIST, this.#describeKeys, [toStored(dir)], false)) as string;
    if (packed === '') return;
    for (const line of packed.split('\n')) {
      const tab = line.indexOf('\t');
      yield { path: asDriverPath(fromStored(line.slice(tab + 1))), size: Number(line.slice(0, tab)) };
    }
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const { expect, op, signal } = options;
    const stored = toStored(path);
    const version = newVersion();
    const kind = expect === undefined ? '' : 'absent' in expect ? 'absent' : 'version';
    const expected = expect !== undefined && 'version' in expect ? expect.version : '';
    const reply = (await this.#change(
      WRITE,
      (fence) => [stored, content, version, op, fence, kind, expected],
      signal,
    )) as string[];
    if (reply[0] === 'ok') return { version: reply[1]! };
    throw this.#refusal(reply);
  }

  /**
   * A read-modify-write: read the file with its version, edit it here, write it back with the
   * version as its condition (two round trips), and start over on fresh content when another
   * writer got there first, until the engine's deadline aborts `signal`. Edits of one file in this
   * process wait for each other (see {@link KeyedQueue}); nothing is sent once `signal` is aborted.
   */
  async update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    const { op, signal } = options;
    return this.#shared.edits.run(`${this.#chain}\u0000${path}`, async () => {
      for (let attempt = 0; ; attempt++) {
        if (signal?.aborted) throw signal.reason;
        // Without a deadline (a driver used on its own), still give up some day.
        if (attempt === MAX_EDIT_ATTEMPTS) throw storeUnavailable('the file kept changing under this edit');
        const node = await this.read(path);
        if (node === null || node.kind === 'directory') return node?.kind ?? null;
        const content = edit(node.content);
        if (signal?.aborted) throw signal.reason;
        try {
          await this.write(path, content, { op, signal, expect: { version: node.version } });
          return 'file';
        } catch (error) {
          // The file changed or became a folder since it was read: look again.
          if (!isRefusal(error, 'CONFLICT') && !isRefusal(error, 'PATH_CONFLICT')) throw error;
        }
        if (attempt > 0) await sleep(Math.random() * Math.min(4, attempt));
      }
    });
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const { maxSubtreeEntries } = this.#shared;
    const reply = await this.#change(
      REMOVE,
      (fence) => [toStored(path), options.op, fence, String(maxSubtreeEntries)],
      options.signal,
    );
    if (Array.isArray(reply)) throw this.#refusal(reply);
    return reply === 1;
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const { maxSubtreeEntries } = this.#shared;
    const reply = (await this.#change(
      MOVE,
      (fence) => [toStored(from), toStored(to), options.op, fence, String(maxSubtreeEntries)],
      options.signal,
    )) as unknown[];
    if (reply[0] !== 'ok') throw this.#refusal(reply);
  }

  #refusal(reply: unknown[]): Error {
    const [, code, subject] = reply;
    const path = typeof subject === 'string' ? fromStored(subject) : '';
    switch (code) {
      case 'PATH_CONFLICT':
        return refusePathConflict(path);
      case 'CONFLICT':
        return refuseConflict(path);
      case 'NOT_FOUND':
        return refuseNotFound(path);
      case 'ALREADY_EXISTS':
        return refuseAlreadyExists(path);
      case 'TOO_MANY':
        return subtreeTooLarge(Number(subject), this.#shared.maxSubtreeEntries);
      default:
        return redisFailure(new Error(`unexpected reply from a memdir script: ${String(code)}`), true);
    }
  }

  async close(): Promise<void> {
    if (this.#root) await this.#shared.connection.close();
  }
}

/**
 * The memdir driver over Redis or a Redis Cluster, for `createMemoryStore(driver, options)` from
 * `@memdir/core` (or use {@link createRedisStore}). Every call is one Lua script on the keys of one
 * namespace, which share one hash tag (so one Cluster slot).
 *
 * @throws TypeError for invalid options (both `client` and `url`, a `keyPrefix` with `{` or `}`).
 */
export function createRedisDriver(options: RedisDriverOptions = {}): RedisDriver {
  const prefix = checkKeyPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const timeoutMs = positive(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS);
  const maxSubtreeEntries = positive(
    options.maxSubtreeEntries,
    'maxSubtreeEntries',
    DEFAULT_MAX_SUBTREE_ENTRIES,
  );
  const connection = new Connection(options);
  return new RedisMemoryDriver(
    { connection, edits: new KeyedQueue(), prefix, timeoutMs, maxSubtreeEntries },
    '/',
    true,
  );
}
