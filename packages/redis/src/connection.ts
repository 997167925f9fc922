// The client a store talks through: the user's own, or one made from a URL with timeouts that keep
// every call bounded; and the one-time check of the server before the first command.

import { storeUnavailable } from '@memdir/core/driver';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { redisFailure, unusableServer } from './errors.js';

/** An ioredis client: a single connection (`Redis`) or a `Cluster`. */
export type RedisClient = Redis | Cluster;

/** Default of `url`. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Options for the connections the store makes itself. A silent server costs each call at most
 * `commandTimeout`; the store then drops that connection and makes a new one (a dead peer can
 * otherwise keep a TCP connection open for many minutes), which costs nothing while all is well,
 * unlike ioredis's `socketTimeout` (a timer and a listener per command). Commands are tried once
 * more after a reconnect, then fail. None of this applies to a client passed in.
 */
export const REDIS_DEFAULTS: Readonly<RedisOptions> = {
  connectTimeout: 2_000,
  commandTimeout: 3_000,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
  keepAlive: 10_000,
  lazyConnect: true,
};

/** The same for a Cluster: redirections and failovers are retried, within the same bounds. */
export const CLUSTER_DEFAULTS: Readonly<ClusterOptions> = {
  clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
  retryDelayOnFailover: 200,
  retryDelayOnClusterDown: 300,
  retryDelayOnTryAgain: 100,
  maxRedirections: 16,
  slotsRefreshTimeout: 2_000,
  lazyConnect: true,
};

/** What {@link Connection} needs to know about the client to use. */
export interface ConnectionOptions {
  client?: RedisClient | undefined;
  url?: string | undefined;
  redisOptions?: RedisOptions | undefined;
  clusterOptions?: ClusterOptions | undefined;
}

const ignore = () => {};

function isCluster(client: RedisClient): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
}

/** `INFO` as fields. */
function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** The connection options a `redis://` or `rediss://` URL gives, for the nodes of a Cluster. */
function nodeOptionsOf(url: string): { host: string; port: number; options: RedisOptions } {
  const parsed = new URL(url);
  const options: RedisOptions = {};
  if (parsed.username) options.username = decodeURIComponent(parsed.username);
  if (parsed.password) options.password = decodeURIComponent(parsed.password);
  if (parsed.protocol === 'rediss:') options.tls = {};
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    options,
  };
}

/**
 * One client, shared by a driver and every namespace made from it. `ready()` runs before the first
 * command: it connects, switches a client made from a URL to a `Cluster` when the server is a
 * Cluster node, and refuses a server that could lose memory files or cannot run the scripts.
 */
export class Connection {
  #client: RedisClient;
  readonly #owned: boolean;
  readonly #options: ConnectionOptions;
  #ready: Promise<void> | undefined;
  #refused: Error | undefined;
  #closed = false;
  /** True once the check passed: calls then go straight to the client. */
  checked = false;
  /** Server clock minus this process's clock, in ms, as last measured. */
  clockOffsetMs = 0;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    if (options.client !== undefined) {
      if (options.url !== undefined) {
        throw new TypeError('memdir Redis: give either `client` or `url`, not both');
      }
      this.#client = options.client;
      this.#owned = false;
      checkClientPrefix(options.client);
    } else {
      const url = options.url ?? DEFAULT_REDIS_URL;
      if (!/^rediss?:\/\//i.test(url)) {
        throw new TypeError('memdir Redis: `url` must start with redis:// or rediss://');
      }
      this.#client = new Redis(url, { ...REDIS_DEFAULTS, ...options.redisOptions });
      this.#owned = true;
      checkClientPrefix(this.#client);
      this.#client.on('error', ignore);
    }
  }

  get client(): RedisClient {
    return this.#client;
  }

  /** Connects and checks the server, once; a failure to connect is retried on the next call. */
  ready(): Promise<void> {
    if (this.#refused) return Promise.reject(this.#refused);
    this.#ready ??= this.#check().then(
      () => {
        this.checked = true;
      },
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  async #check(): Promise<void> {
    const started = Date.now();
    let info: Map<string, string>;
    try {
      info = parseInfo(await this.#client.info());
    } catch (error) {
      throw (error as Error).name === 'ReplyError'
        ? redisFailure(error, false)
        : storeUnavailable('cannot connect to Redis', error);
    }
    const serverTime = Number(info.get('server_time_usec')) / 1000;
    if (Number.isFinite(serverTime)) this.clockOffsetMs = serverTime - (started + Date.now()) / 2;

    const nodes = [info];
    if (info.get('cluster_enabled') === '1' && !isCluster(this.#client)) {
      if (!this.#owned) {
        this.#refuse(
          'it is a Redis Cluster node, and the client given is a single connection: pass an ioredis Cluster instead',
        );
      }
      await this.#becomeCluster();
    }
    if (isCluster(this.#client)) {
      try {
        await this.#client.info();
        nodes.length = 0;
        const masters = this.#client.nodes('master');
        for (const node of await Promise.all(masters.map((master) => master.info()))) {
          nodes.push(parseInfo(node));
        }
      } catch (error) {
        throw redisFailure(error, false);
      }
    }
    for (const node of nodes) this.#checkNode(node);
  }

  #checkNode(info: Map<string, string>): void {
    const version = info.get('redis_version') ?? '';
    const major = Number.parseInt(version, 10);
    if (!(major >= 7)) {
      this.#refuse(
        `memdir needs Redis 7.0 or later, and this server runs ${version || 'an unknown version'}`,
      );
    }
    const policy = info.get('maxmemory_policy') ?? '';
    if (policy.startsWith('allkeys-')) {
      this.#refuse(
        `its maxmemory-policy is ${policy}, so when memory runs short Redis may evict a key of a namespace and lose or corrupt memory files; set maxmemory-policy to noeviction (or a volatile-* policy)`,
      );
    }
  }

  #refuse(reason: string): never {
    this.#refused = unusableServer(reason);
    throw this.#refused;
  }

  /** Replaces the single connection made from the URL by a Cluster seeded with the same node. */
  async #becomeCluster(): Promise<void> {
    const standalone = this.#client as Redis;
    const { host, port, options } = nodeOptionsOf(this.#options.url ?? DEFAULT_REDIS_URL);
    const { lazyConnect: _, ...nodeDefaults } = REDIS_DEFAULTS;
    const cluster = new Cluster([{ host, port }], {
      ...CLUSTER_DEFAULTS,
      ...this.#options.clusterOptions,
      redisOptions: {
        ...nodeDefaults,
        ...options,
        ...this.#options.redisOptions,
        ...this.#options.clusterOptions?.redisOptions,
      },
    });
    cluster.on('error', ignore);
    checkClientPrefix(cluster);
    this.#client = cluster;
    standalone.disconnect();
  }

  /**
   * After a command timed out on a client the store made: drop its connection and reconnect, since
   * a connection that stays silent may be dead. Commands still in flight are resent on the new one
   * (harmless: receipts and fences). A client passed in is left to its owner.
   */
  timedOut(): void {
    if (!this.#owned || this.#closed) return;
    // On a Cluster, only the nodes still waiting for answers. The socket is destroyed, not ended:
    // ending it would wait for a peer that may never answer.
    const nodes = isCluster(this.#client) ? this.#client.nodes('all') : [this.#client];
    for (const node of nodes) {
      const { stream, commandQueue } = node as unknown as {
        stream?: { destroy(): void };
        commandQueue?: { length: number };
      };
      if (node.status === 'ready' && (commandQueue?.length ?? 1) > 0) stream?.destroy();
    }
  }

  /** Closes the client if the store made it. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#owned) return;
    const client = this.#client;
    if (client.status === 'wait' || client.status === 'end') {
      client.disconnect();
      return;
    }
    await client.quit().catch(() => client.disconnect());
  }
}

/** A client-side key prefix with `{` or `}` would put the hash tag in the wrong place. */
function checkClientPrefix(client: RedisClient): void {
  const options = client.options as { keyPrefix?: string; redisOptions?: { keyPrefix?: string } };
  for (const prefix of [options.keyPrefix, options.redisOptions?.keyPrefix]) {
    if (prefix !== undefined && (prefix.includes('{') || prefix.includes('}'))) {
      throw new TypeError(
        `memdir Redis: the client's keyPrefix ${JSON.stringify(prefix)} contains "{" or "}", which would move memdir's hash tags`,
      );
    }
  }
}
