// The options of the Redis driver (and so of the store and the admin made from it), their defaults,
// and the checks that turn them into the settings a driver runs with (backend.ts).
import type { MemdirLogger } from '@memdir/core';
import { positiveInteger } from '@memdir/core/driver';
import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { RedisClient } from './connection.js';
import { checkKeyPrefix, DEFAULT_KEY_PREFIX } from './layout.js';

/** Default of {@link RedisDriverOptions.maxSubtreeEntries}. */
export const DEFAULT_MAX_SUBTREE_ENTRIES = 20_000;

/** Options of `createRedisDriver` (index.ts). */
export interface RedisDriverOptions {
  /**
   * Your own ioredis client: a `Redis` or a `Cluster`. The store never closes it and adds no
   * listener to it. Give either this or `url`.
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
   * Prepended to every key the store uses. No `{` or `}`, no glob character, whitespace or control
   * character (see the README's key prefix rule).
   * @default 'memdir:'
   */
  keyPrefix?: string | undefined;
  /**
   * ioredis options for the client made from `url`, over memdir's defaults (2 s connect timeout,
   * one retry per command after a reconnect, reconnects capped at 1 s apart; each request waits at
   * most until its command's deadline).
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
   * The most files and folders one `rename` or `delete` of a folder may move or delete. Each is
   * one script, during which Redis serves nobody else: a rename costs about 15 microseconds per
   * entry whatever the files hold (contents are not copied), a delete about 5 (measured on a busy
   * 2-core machine), so the default keeps either under half a second, a tenth of Redis's 5 s busy
   * threshold. Larger folders are refused with a `BACKEND` error asking to move or delete their
   * subfolders one at a time.
   * @default 20000
   */
  maxSubtreeEntries?: number | undefined;
  /**
   * Where the driver reports connections lost and regained, retries, the server check and slow
   * calls (never a path or content). `createRedisStore` passes the store's `logger`.
   * @default `NODE_DEBUG=memdir` output
   */
  logger?: MemdirLogger | undefined;
}

/** The options a driver runs with beside its connection: checked, defaults filled in. */
export interface RedisSettings {
  readonly prefix: string;
  readonly maxSubtreeEntries: number;
}

/**
 * Checks the key prefix and `maxSubtreeEntries` of `options` (the connection checks the rest).
 * @throws TypeError for invalid options.
 */
export function checkOptions(options: RedisDriverOptions): RedisSettings {
  const prefix = checkKeyPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const maxSubtreeEntries = positiveInteger(
    'redis',
    'maxSubtreeEntries',
    options.maxSubtreeEntries,
    DEFAULT_MAX_SUBTREE_ENTRIES,
  );
  return { prefix, maxSubtreeEntries };
}
