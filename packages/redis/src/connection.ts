// The client a store talks through: the user's own, or one made from a URL; each request bounded by
// the call's deadline; and the one-time check of the server before the first command, cached per
// client so that a thousand stores on one client check it once.

import { createHash } from 'node:crypto';
import { type DriverCallStats, MemoryToolError } from '@memdir/core';
import {
  type DriverLog,
  type ProbedServer,
  probeServer,
  storeUnavailable,
  wrongServer,
} from '@memdir/core/driver';
import { Cluster, type ClusterOptions, Command, Redis, type RedisOptions } from 'ioredis';
import { redisFailure, TIMED_OUT, unusableServer } from './errors.js';
import type { Script } from './scripts.js';

/** An ioredis client: a single connection (`Redis`) or a `Cluster`. */
export type RedisClient = Redis | Cluster;

/** Default of `url`. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Options for the connections the store makes itself. No command timeout of its own: each request
 * gets the time left before its call's deadline, after which the store drops that connection and
 * makes a new one (a dead peer can otherwise keep a TCP connection open for many minutes).
 * Commands are tried once more after a reconnect, then fail. None of this applies to a client
 * passed in, except the per-request deadline.
 */
export const REDIS_DEFAULTS: Readonly<RedisOptions> = {
  connectTimeout: 2_000,
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
  keepAlive: 10_000,
  lazyConnect: true,
  // A socket that is being closed and has not closed by then is destroyed (ioredis waits 2 s, and
  // its timer keeps a process alive that has nothing else left to do, after close() resolved).
  disconnectTimeout: 250,
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

/** What is learnt of a server once, for every store on the same client. */
interface ServerState {
  /** The check under way, or passed (then `checked`). */
  pending: Promise<void> | undefined;
  checked: boolean;
  /** Set when the server must not be used: every later call gets it. */
  refused: Error | undefined;
  /**
   * Server clock minus this process's clock, in ms, as last measured: a lower bound (the server's
   * time against the moment its answer arrived), so that fences err early, never late.
   */
  clockOffsetMs: number;
}

/** The state of each client passed in, shared by every store made on it. */
const sharedStates = new WeakMap<RedisClient, ServerState>();

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

/** One call's bounds: its deadline (`Date.now()` ms) and the telemetry counters to fill, if any. */
export interface CallBounds {
  readonly deadline: number;
  readonly stats?: DriverCallStats | undefined;
}

/**
 * How long after the deadline a request gives up: a moment after the engine, which reports the
 * command at the deadline in its own words (the request's own failure then only drops the
 * connection); a driver called on its own fails at once after it.
 */
const REQUEST_GRACE_MS = 20;

/**
 * A request of ioredis that gives up at the deadline ("Command timed out"), counted in `stats`.
 * Nothing is sent once the deadline passed. (The deadline is read, never the engine's signal:
 * reading that would make an AbortController for every call.)
 */
function request(name: string, args: ReadonlyArray<string | number>, bounds: CallBounds): Command {
  const left = bounds.deadline - Date.now();
  if (left <= 0) throw storeUnavailable('the command ran out of time', undefined, 'timeout');
  const command = new Command(name, args as Array<string | number>, { replyEncoding: 'utf8' });
  command.setTimeout(left + REQUEST_GRACE_MS);
  if (bounds.stats) {
    bounds.stats.roundTrips++;
    bounds.stats.requests++;
  }
  return command;
}

/**
 * One client, shared by a driver and every namespace made from it. The first call checks the
 * server: it connects, switches a client made from a URL to a `Cluster` when the server is a
 * Cluster node, and refuses a server that could lose memory files or cannot run the scripts.
 */
export class Connection {
  #client: RedisClient;
  readonly #owned: boolean;
  readonly #options: ConnectionOptions;
  readonly #state: ServerState;
  readonly #log: DriverLog;
  #closed = false;
  /** What the socket last said on a client the store made: the cause an operator needs. */
  #socketError: Error | undefined;

  constructor(options: ConnectionOptions, log: DriverLog) {
    this.#options = options;
    this.#log = log;
    if (options.client !== undefined) {
      if (options.url !== undefined) {
        throw new TypeError('Invalid @memdir/redis option client: give either client or url, not both');
      }
      this.#client = options.client;
      this.#owned = false;
      checkClientPrefix(options.client);
      let state = sharedStates.get(options.client);
      if (!state) {
        state = { pending: undefined, checked: false, refused: undefined, clockOffsetMs: 0 };
        sharedStates.set(options.client, state);
      }
      this.#state = state;
    } else {
      const url = options.url ?? DEFAULT_REDIS_URL;
      if (!/^rediss?:\/\//i.test(url)) {
        throw new TypeError('Invalid @memdir/redis option url: it must start with redis:// or rediss://');
      }
      this.#client = new Redis(url, { ...REDIS_DEFAULTS, ...options.redisOptions });
      this.#owned = true;
      checkClientPrefix(this.#client);
      this.#watch(this.#client);
      this.#state = { pending: undefined, checked: false, refused: undefined, clockOffsetMs: 0 };
    }
  }

  get client(): RedisClient {
    return this.#client;
  }

  /**
   * A stable, secret-free name of the server and key prefix, for telemetry: a hash of the address
   * (host, port and database; the first node of a Cluster) and the prefix.
   */
  identity(prefix: string): string {
    const options = this.#client.options as RedisOptions;
    const where = isCluster(this.#client)
      ? `cluster ${JSON.stringify((this.#client as unknown as { startupNodes?: unknown[] }).startupNodes?.[0] ?? null)}`
      : `${options.host}:${options.port}/${options.db ?? 0}`;
    return `redis-${createHash('sha256').update(`${where}\u0000${prefix}`).digest('hex').slice(0, 12)}`;
  }

  get clockOffsetMs(): number {
    return this.#state.clockOffsetMs;
  }

  set clockOffsetMs(value: number) {
    this.#state.clockOffsetMs = value;
  }

  /** Logs what happens to a client the store made (a client passed in gets no listener). */
  #watch(client: RedisClient): void {
    let lost = false;
    client.on('error', (error: Error) => {
      this.#socketError = error;
    });
    client.on('reconnecting', () => {
      if (!lost && !this.#closed) this.#log.warn('connection lost, reconnecting');
      lost = true;
    });
    client.on('ready', () => {
      if (lost && !this.#closed) this.#log.info('connection regained');
      lost = false;
    });
  }

  /**
   * Runs `script` on `keys`: EVALSHA, and EVAL once when this node does not have the script yet
   * (never SCRIPT LOAD), checking the server first on the first call. Each request gets the time
   * left before the call's deadline; nothing is sent once it passed.
   */
  run(
    script: Script,
    keys: readonly string[],
    args: readonly string[],
    bounds: CallBounds,
    change: boolean,
  ): Promise<unknown> {
    // Plain promises, no async layers: this is every call's path, and each layer costs.
    if (!this.#state.checked)
      return this.ready(bounds).then(() => this.run(script, keys, args, bounds, change));
    const fail = (error: unknown) => {
      throw this.#failure(error, change);
    };
    try {
      return this.#send('evalsha', [script.sha, keys.length, ...keys, ...args], bounds).catch(
        (error: unknown) => {
          if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) return fail(error);
          return this.#send('eval', [script.source, keys.length, ...keys, ...args], bounds).catch(fail);
        },
      );
    } catch (error) {
      return Promise.reject(this.#failure(error, change));
    }
  }

  /**
   * Runs `script` with no keys on one node of its own choosing (the one server, or a Cluster
   * master: the registry scripts read keys of that node's slots), bounded as {@link run} is.
   */
  runOnNode(node: Redis, script: Script, args: readonly string[], bounds: CallBounds): Promise<unknown> {
    const send = (name: string, rest: ReadonlyArray<string | number>) =>
      node.sendCommand(request(name, rest, bounds)) as Promise<unknown>;
    const fail = (error: unknown) => {
      throw this.#failure(error, false);
    };
    try {
      return send('evalsha', [script.sha, 0, ...args]).catch((error: unknown) => {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) return fail(error);
        return send('eval', [script.source, 0, ...args]).catch(fail);
      });
    } catch (error) {
      return Promise.reject(this.#failure(error, false));
    }
  }

  #send(name: string, args: ReadonlyArray<string | number>, bounds: CallBounds): Promise<unknown> {
    return this.#client.sendCommand(request(name, args, bounds)) as Promise<unknown>;
  }

  #failure(error: unknown, change: boolean): Error {
    if (error instanceof Error && error.message === TIMED_OUT) this.#timedOut();
    return redisFailure(error, change);
  }

  /** Connects and checks the server, once per client; a failure to connect is retried on the next call. */
  ready(bounds: CallBounds): Promise<void> {
    const state = this.#state;
    if (state.refused) return Promise.reject(state.refused);
    if (state.checked) return Promise.resolve();
    state.pending ??= this.#check(bounds).then(
      () => {
        state.checked = true;
      },
      (error: unknown) => {
        state.pending = undefined;
        throw error;
      },
    );
    return state.pending;
  }

  async #check(bounds: CallBounds): Promise<void> {
    let info: Map<string, string>;
    let session = '';
    try {
      // Both at once (one round trip): the server, and this connection's database, since ioredis
      // carries on in database 0 when the URL's database does not exist.
      const [text, client] = await Promise.all([
        this.#send('info', [], bounds),
        this.#send('client', ['info'], bounds).catch(() => ''),
      ]);
      info = parseInfo(text as string);
      session = client as string;
    } catch (error) {
      if (error instanceof Error && error.message === TIMED_OUT) this.#timedOut();
      const failure = error as Error;
      if (
        failure instanceof MemoryToolError ||
        failure.name === 'ReplyError' ||
        failure.message === TIMED_OUT
      ) {
        throw redisFailure(error, false);
      }
      // A wrong port reaches another server, and ioredis's words ("Unknown RESP type 72") do not
      // say which: ask the address what it is, once, before saying the connection failed.
      const other = await this.#otherServer(bounds);
      if (other !== undefined) throw wrongServer('Redis', other);
      // ioredis gives up with "max retries per request"; the socket's own error says why.
      throw storeUnavailable('cannot connect to Redis', this.#socketError ?? error);
    }
    // The server read its clock at some moment between `started` and now: taking the latest, the
    // offset is never overestimated, so a fence (the deadline on the server's clock) is never late.
    const serverTime = Number(info.get('server_time_usec')) / 1000;
    if (Number.isFinite(serverTime)) this.clockOffsetMs = serverTime - Date.now();

    const selected = /(?:^| )db=(\d+)/.exec(session)?.[1];
    const wanted = (this.#client.options as RedisOptions).db ?? 0;
    if (selected !== undefined && Number(selected) !== wanted && !isCluster(this.#client)) {
      this.#refuse(
        `it has no database ${wanted} (the number after the address): use one of the databases its databases setting allows`,
      );
    }
    const nodes = [info];
    if (info.get('cluster_enabled') === '1' && !isCluster(this.#client)) {
      if (!this.#owned) {
        this.#refuse(
          'it is a Redis Cluster node, and the client given is a single connection: pass an ioredis Cluster instead',
        );
      }
      this.#becomeCluster();
    }
    const client = this.#client;
    if (isCluster(client)) {
      try {
        // The first command connects the Cluster and loads its slots; then every master is asked.
        await this.#send('info', ['server'], bounds);
        nodes.length = 0;
        const masters = client.nodes('master');
        const infos = await Promise.all(
          masters.map((master) => master.sendCommand(request('info', [], bounds)) as Promise<string>),
        );
        for (const node of infos) nodes.push(parseInfo(node));
      } catch (error) {
        throw this.#failure(error, false);
      }
    }
    for (const node of nodes) this.#checkNode(node);
    this.#log.debug('server checked', {
      version: info.get('redis_version'),
      cluster: isCluster(client),
      masters: nodes.length,
    });
  }

  /** The kind of server at the address of a single connection, when it is not Redis. */
  async #otherServer(bounds: CallBounds): Promise<ProbedServer | undefined> {
    if (isCluster(this.#client)) return undefined;
    const { host, port, tls } = this.#client.options as RedisOptions;
    // Through TLS (rediss://) the raw probes hear nothing useful.
    if (tls || host === undefined || port === undefined) return undefined;
    const found = await probeServer(host, port, Math.min(1_000, bounds.deadline - Date.now()));
    return found === 'Redis' || found === 'silent' ? undefined : found;
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
    // The cause says the same for operators (the CLI shows causes), as what the check found.
    this.#state.refused = unusableServer(
      reason,
      new Error(`the Redis server check refused the server: ${reason}`),
    );
    this.#log.error('server refused', { reason });
    throw this.#state.refused;
  }

  /** Replaces the single connection made from the URL by a Cluster seeded with the same node. */
  #becomeCluster(): void {
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
    this.#watch(cluster);
    checkClientPrefix(cluster);
    this.#client = cluster;
    standalone.disconnect();
  }

  /**
   * After a request ran out of time on a client the store made: drop its connection and reconnect,
   * since a connection that stays silent may be dead. Commands still in flight are resent on the
   * new one (harmless: receipts and fences). A client passed in is left to its owner.
   */
  #timedOut(): void {
    if (!this.#owned || this.#closed) return;
    this.#log.warn('no answer before the deadline: dropping the connection');
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

  /**
   * Closes the client if the store made it. Idempotent. Resolves within {@link CLOSE_WAIT_MS}
   * whatever the server does: a server that accepts connections and never answers would keep QUIT
   * (and with it `memdir view`, `serve` or `copy`) waiting forever, so past that wait the sockets
   * are destroyed, not ended (ending one waits for a peer that may never answer).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#owned) return;
    const client = this.#client;
    if (client.status === 'wait' || client.status === 'end') {
      client.disconnect();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), CLOSE_WAIT_MS);
    });
    const quit = client.quit().then(
      () => 'quit' as const,
      () => 'failed' as const,
    );
    const outcome = await Promise.race([quit, late]);
    clearTimeout(timer);
    if (outcome === 'quit') return;
    const nodes = isCluster(client) ? client.nodes('all') : [client];
    client.disconnect();
    for (const node of [client, ...nodes])
      (node as unknown as { stream?: { destroy(): void } }).stream?.destroy();
  }
}

/** How long `close()` waits for the server to acknowledge QUIT before it drops the connections. */
export const CLOSE_WAIT_MS = 1_000;

/** A client-side key prefix with `{` or `}` would put the hash tag in the wrong place. */
function checkClientPrefix(client: RedisClient): void {
  const options = client.options as { keyPrefix?: string; redisOptions?: { keyPrefix?: string } };
  for (const prefix of [options.keyPrefix, options.redisOptions?.keyPrefix]) {
    if (prefix !== undefined && (prefix.includes('{') || prefix.includes('}'))) {
      throw new TypeError(
        `Invalid @memdir/redis option client: its keyPrefix ${JSON.stringify(prefix)} contains "{" or "}", which would move memdir's hash tags`,
      );
    }
  }
}
