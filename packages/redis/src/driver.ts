import { randomBytes } from 'node:crypto';
import type {
  DriverCallOptions,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverDropOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListingEntry,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPath,
  DriverPointInTime,
  DriverRestoreOptions,
  DriverSweepOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverUsage,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  DriverWriteOptions,
  MemoryDriver,
} from '@memdir/core';
import {
  AbstractMemoryDriver,
  asDriverPath,
  checkTime,
  type DriverLog,
  deadlineOf,
  driverLog,
  isRefusal,
  positiveInteger,
  sleep,
} from '@memdir/core/driver';
import * as admin from './admin.js';
import { MOVE, REMOVE, WRITE } from './change-scripts.js';
import { Connection } from './connection.js';
import { EDIT } from './edit-script.js';
import { editArgs, editHere, editOutcome, editsOnServer, quotaArgs, receiptOutcome } from './edits.js';
import { arrivedTooLate } from './errors.js';
import * as history from './history.js';
import {
  checkKeyPrefix,
  childChain,
  DEFAULT_KEY_PREFIX,
  fromStored,
  type NamespaceKeys,
  namespaceKeys,
  scriptKeys,
  toStored,
} from './layout.js';
import type { RedisDriverOptions } from './options.js';
import { contentHash, historyBlock } from './records.js';
import { refusalOf } from './refusals.js';
import { registrationOf, registryKeyOf } from './registry.js';
import { DESCRIBE, DESCRIBE_TOUCH, LIST, READ, READ_TOUCH, type Script } from './scripts.js';

/** Default of `maxSubtreeEntries`. */
export const DEFAULT_MAX_SUBTREE_ENTRIES = 20_000;

/** Redis's largest string (its default `proto-max-bulk-len`). */
const REDIS_MAX_VALUE_BYTES = 512 * 1024 * 1024;

/** A call slower than this is logged (it held a command for most of the default deadline). */
const SLOW_CALL_MS = 1_000;

/** The memdir driver over Redis (see {@link createRedisDriver}). */
export interface RedisDriver extends MemoryDriver {
  namespace(name: string): RedisDriver;
  stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null>;
  describe(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null>;
  edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome>;
  /**
   * Connects and checks the server (Redis 7 or later; a `maxmemory-policy` that never evicts memdir's
   * keys; a Cluster client for a Cluster), once per client. Every call waits for it, so calling it
   * is optional: it lets a program fail at startup rather than on the first command.
   * @throws MemoryToolError `BACKEND` when the server cannot be reached or must not be used.
   */
  ready(options?: DriverCallOptions): Promise<void>;
}

/** What a driver shares with its namespaces. */
interface Backend {
  readonly connection: Connection;
  readonly prefix: string;
  readonly maxSubtreeEntries: number;
  readonly log: DriverLog;
  readonly identity: { readonly kind: 'redis'; readonly id: string };
}

function newVersion(): string {
  return randomBytes(12).toString('base64url');
}

const CAPABILITIES = {
  atomicRename: true,
  maxFileBytes: REDIS_MAX_VALUE_BYTES,
  replaySafe: true,
  quotas: true,
  history: true,
  admin: true,
} as const;

/**
 * The driver over one namespace of one Redis backend (made by {@link createRedisDriver}; its
 * namespaces share the backend's client). Exported for `instanceof` and subclassing in tests.
 */
export class RedisMemoryDriver extends AbstractMemoryDriver implements RedisDriver {
  readonly capabilities = CAPABILITIES;
  readonly #backend: Backend;
  readonly #chain: string;
  readonly #root: boolean;
  readonly #keys: NamespaceKeys;
  readonly #readKeys: string[];
  readonly #describeKeys: string[];
  /** The namespace's keys, then its registry key (KEYS[12]), once the server is known. */
  #allKeys: string[] | undefined;
  /** The namespace's registry members (registry.ts). */
  readonly #registration: string;
  readonly #calls: admin.AdminCalls;

  constructor(backend: Backend, chain: string, root: boolean) {
    super();
    this.#backend = backend;
    this.#chain = chain;
    this.#root = root;
    const keys = namespaceKeys(backend.prefix, chain);
    this.#keys = keys;
    this.#readKeys = [keys.files, keys.versions, keys.index];
    this.#describeKeys = [...this.#readKeys, keys.sizes];
    this.#registration = registrationOf(chain);
    this.#calls = {
      read: (script, args, call, change) => this.#runAll(script, args, call, change),
      change: (script, args, call) => this.#change(script, args, call),
      registration: this.#registration,
      refusal: (reply, path) => this.#refusal(reply, path),
      prefix: backend.prefix,
      chain,
      client: async (call) => {
        await backend.connection.ready({ deadline: deadlineOf(call) });
        return backend.connection.client;
      },
      runOn: (script, keys, args, call) => this.#run(script, keys, args, call, true),
      onNode: (node, script, args, call) =>
        backend.connection.runOnNode(node, script, args, { deadline: deadlineOf(call), stats: call?.stats }),
    };
  }

  /**
   * Every key of the namespace, and the registry key of its slot: which one that is depends on
   * whether the server is a Cluster, known once the connection is checked.
   */
  async #keysOfAll(call: DriverCallOptions | undefined): Promise<string[]> {
    if (this.#allKeys) return this.#allKeys;
    const { connection, prefix } = this.#backend;
    await connection.ready({ deadline: deadlineOf(call) });
    const cluster = (connection.client as { isCluster?: boolean }).isCluster === true;
    this.#allKeys = [...scriptKeys(this.#keys), registryKeyOf(prefix, this.#keys.base, cluster)];
    return this.#allKeys;
  }

  /** A script on every key of the namespace. */
  async #runAll(script: Script, args: string[], call: DriverCallOptions | undefined, change: boolean) {
    const keys = this.#allKeys ?? (await this.#keysOfAll(call));
    return this.#run(script, keys, args, call, change);
  }

  /** For telemetry: `redis` and a hash of the address and key prefix (no secret). */
  get identity(): { readonly kind: string; readonly id: string } {
    return this.#backend.identity;
  }

  override namespace(name: string): RedisDriver {
    return super.namespace(name) as RedisDriver;
  }

  protected openNamespace(name: string): RedisDriver {
    return new RedisMemoryDriver(this.#backend, childChain(this.#chain, name), false);
  }

  ready(options?: DriverCallOptions): Promise<void> {
    return this.#backend.connection.ready({ deadline: deadlineOf(options) });
  }

  /** One script, one round trip (two when the node lacks the script), bounded by the deadline. */
  #run(
    script: Script,
    keys: string[],
    args: string[],
    call: DriverCallOptions | undefined,
    change: boolean,
    deadline = deadlineOf(call),
  ): Promise<unknown> {
    const started = Date.now();
    const bounds = { deadline, stats: call?.stats };
    return this.#backend.connection.run(script, keys, args, bounds, change).then((reply) => {
      const ms = Date.now() - started;
      if (ms >= SLOW_CALL_MS) this.#backend.log.warn('slow call', { script: script.name, ms });
      return reply;
    });
  }

  /**
   * Runs a change script with its fence: the call's deadline on the server's clock (as far as it is
   * known: never later), past which the change must not apply. When Redis answers that the fence
   * has passed although the deadline has not, its clock is further ahead than measured: learn it
   * and send again (nothing was applied).
   */
  async #change(
    script: Script,
    args: (fence: string) => string[],
    call: DriverChangeOptions,
  ): Promise<unknown[]> {
    const { connection } = this.#backend;
    const deadline = deadlineOf(call);
    const keys = this.#allKeys ?? (await this.#keysOfAll(call));
    for (let attempt = 0; ; attempt++) {
      const fence = String(Math.floor(deadline + connection.clockOffsetMs));
      const reply = await this.#run(script, keys, args(fence), call, true, deadline);
      if (!Array.isArray(reply) || reply[0] !== 'E' || reply[1] !== 'LATE') return reply as unknown[];
      const received = Date.now();
      if (attempt > 0 || received >= deadline) throw arrivedTooLate();
      // The server's clock then against the moment its answer arrived: again a lower bound.
      connection.clockOffsetMs = Number(reply[2]) - received;
      this.#backend.log.info('the server clock is ahead: corrected, sending again', {
        offsetMs: Math.round(connection.clockOffsetMs),
      });
      if (call.stats) call.stats.retries++;
    }
  }

  async read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    const reply = (
      options?.touch
        ? await this.#runAll(READ_TOUCH, [toStored(path), '1', '1'], options, true)
        : await this.#run(READ, this.#readKeys, [toStored(path), '1'], options, false)
    ) as string[] | null;
    if (reply === null) return null;
    if (reply[0] === 'd') return { kind: 'directory' };
    return { kind: 'file', version: reply[1]!, content: reply[2]! };
  }

  async stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    const reply = (await this.#run(READ, this.#readKeys, [toStored(path), '0'], options, false)) as
      | string[]
      | null;
    if (reply === null) return null;
    return reply[0] === 'd' ? 'directory' : 'file';
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const args = [toStored(path), String(Math.max(0, Math.floor(options.limit)))];
    const reply = (
      options.touch
        ? await this.#runAll(DESCRIBE_TOUCH, [...args, '1'], options, true)
        : await this.#run(DESCRIBE, this.#describeKeys, args, options, false)
    ) as [string, string, string] | [string, string, number, string] | null;
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

  async *list(dir: DriverPath, options?: DriverCallOptions): AsyncIterable<DriverEntry> {
    const packed = (await this.#run(LIST, this.#describeKeys, [toStored(dir)], options, false)) as string;
    if (packed === '') return;
    for (const line of packed.split('\n')) {
      const tab = line.indexOf('\t');
      yield { path: asDriverPath(fromStored(line.slice(tab + 1))), size: Number(line.slice(0, tab)) };
    }
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    return { version: (await this.#write(path, content, options, '')).recorded };
  }

  /**
   * The write script; resolves to what it recorded (the version written, or `receipt` when one
   * was given), and whether that was this call's write or the first one's (a replay).
   */
  async #write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
    receipt: string,
  ): Promise<{ recorded: string; replayed: boolean }> {
    const { expect, op } = options;
    const stored = toStored(path);
    const version = newVersion();
    const kind = expect === undefined ? '' : 'absent' in expect ? 'absent' : 'version';
    const expected = expect !== undefined && 'version' in expect ? expect.version : '';
    const quota = quotaArgs(options.quota);
    const { record } = options;
    // Lua has no SHA-256: the hash of what a version records is sent with it.
    const hash = record ? contentHash(content) : '';
    const block = historyBlock(record, this.#registration);
    const fileId = options.fileId ?? '';
    const reply = await this.#change(
      WRITE,
      (fence) => [
        stored,
        content,
        version,
        op,
        fence,
        kind,
        expected,
        ...quota,
        receipt,
        fileId,
        hash,
        ...block,
      ],
      options,
    );
    if (reply[0] === 'ok') return { recorded: reply[1] as string, replayed: reply[2] !== 'new' };
    throw this.#refusal(reply, path);
  }

  /**
   * `str_replace` and `insert` in one script, one round trip (see edit-script.ts). The few edits
   * the script cannot apply come back with the file; they are applied here and written with a
   * compare-and-swap (two round trips), which starts over on fresh content when another writer got
   * there first. Every round goes through the script, so a replay answers its first outcome.
   */
  async edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    const stored = toStored(path);
    const quota = quotaArgs(options.quota);
    const max = String(options.maxFileBytes);
    const touch = options.touch ? '1' : '';
    const block = historyBlock(options.record, this.#registration);
    let onServer = editsOnServer(edit);
    for (let attempt = 0; ; attempt++) {
      const args = editArgs(edit, onServer);
      const version = newVersion();
      const reply = await this.#change(
        EDIT,
        (fence) => [stored, ...args, max, options.op, fence, version, ...quota, touch, ...block],
        options,
      );
      const outcome = editOutcome(edit, reply);
      if (outcome === 'late') throw arrivedTooLate();
      if ('outcome' in outcome) return outcome;
      if (onServer) this.#backend.log.debug('edit applied in this process: the script would take too long');
      onServer = false;
      const applied = editHere(outcome.content, edit, options.maxFileBytes);
      if (applied.content === null) return applied.outcome;
      const write: DriverWriteOptions = {
        op: options.op,
        deadline: options.deadline,
        stats: options.stats,
        quota: options.quota,
        record: options.record,
        expect: { version: outcome.version },
      };
      try {
        const { recorded, replayed } = await this.#write(path, applied.content, write, applied.receipt);
        return replayed ? receiptOutcome(edit, recorded) : applied.outcome;
      } catch (error) {
        if (isRefusal(error, 'QUOTA_EXCEEDED')) return { outcome: 'quota', breach: error.quota! };
        // The file changed or became a folder since it was read: look again.
        if (!isRefusal(error, 'CONFLICT') && !isRefusal(error, 'PATH_CONFLICT')) throw error;
      }
      checkTime(options);
      if (options.stats) options.stats.retries++;
      await sleep(Math.random() * Math.min(25, 2 ** attempt));
    }
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const { maxSubtreeEntries } = this.#backend;
    const reply = await this.#change(
      REMOVE,
      (fence) => [
        toStored(path),
        options.op,
        fence,
        String(maxSubtreeEntries),
        ...historyBlock(options.record, this.#registration),
      ],
      options,
    );
    if (Array.isArray(reply)) throw this.#refusal(reply, path);
    return (reply as unknown) === 1;
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const { maxSubtreeEntries } = this.#backend;
    const reply = await this.#change(
      MOVE,
      (fence) => [
        toStored(from),
        toStored(to),
        options.op,
        fence,
        String(maxSubtreeEntries),
        ...historyBlock(options.record, this.#registration),
      ],
      options,
    );
    if (reply[0] !== 'ok') throw this.#refusal(reply, from);
  }

  // --- history (history.ts) ----------------------------------------------------------------------

  listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#calls, query, options);
  }

  readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#calls, id, options);
  }

  restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    return history.restoreVersion(this.#calls, id, options);
  }

  redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#calls, id, options);
  }

  treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#calls, at, options);
  }

  importVersions(versions: readonly DriverVersionWithContent[], options: DriverCallOptions): Promise<void> {
    return history.importVersions(this.#calls, versions, options);
  }

  // --- admin (admin.ts) --------------------------------------------------------------------------

  listNamespaces(query: DriverNamespaceQuery, options?: DriverCallOptions): Promise<DriverNamespacePage> {
    return admin.listNamespaces(this.#calls, query, options);
  }

  usage(options?: DriverCallOptions): Promise<DriverUsage> {
    return admin.usage(this.#calls, options);
  }

  dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return admin.dropNamespace(this.#calls, name, options);
  }

  sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    return admin.sweep(this.#calls, options);
  }

  #refusal(reply: unknown[], path: DriverPath): Error {
    return refusalOf(reply, path, this.#backend.maxSubtreeEntries);
  }

  async close(): Promise<void> {
    if (this.#root) await this.#backend.connection.close();
  }
}

/**
 * The memdir driver over Redis or a Redis Cluster, for `createMemoryStore(driver, options)` from
 * `@memdir/core` (or use {@link createRedisStore}). Every call is one Lua script on the keys of one
 * namespace, which share one hash tag (so one Cluster slot).
 *
 * @throws TypeError for invalid options (both `client` and `url`, a `keyPrefix` that breaks the rule).
 */
export function createRedisDriver(options: RedisDriverOptions = {}): RedisDriver {
  const prefix = checkKeyPrefix(options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const maxSubtreeEntries = positiveInteger(
    'redis',
    'maxSubtreeEntries',
    options.maxSubtreeEntries,
    DEFAULT_MAX_SUBTREE_ENTRIES,
  );
  const log = driverLog('redis', options.logger);
  const connection = new Connection(options, log);
  const identity = { kind: 'redis', id: connection.identity(prefix) } as const;
  return new RedisMemoryDriver({ connection, prefix, maxSubtreeEntries, log, identity }, '/', true);
}
