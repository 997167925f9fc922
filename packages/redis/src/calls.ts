// How every call of the Redis driver reaches the server: one script on the namespace's keys, one
// round trip (two when the node lacks the script), bounded by the call's deadline; a change sent
// with its fence, and sent again once when the server's clock turns out to be further ahead than
// measured; the registry scripts on each node; and a slow call logged. The history (history.ts) and
// admin (admin.ts) methods reach the server through the same calls. A call that meets a large folder
// move or delete under way in its namespace runs that change's steps to the end, then is sent again
// (step-scripts.ts).
import type { DriverCallOptions, DriverChangeOptions, DriverPath } from '@memdir/core';
import { deadlineOf, sleep } from '@memdir/core/driver';
import type { Cluster, Redis } from 'ioredis';
import type { AdminCalls } from './admin.js';
import type { Backend } from './backend.js';
import { arrivedTooLate, isMoveUnderWay, unexpectedReply } from './errors.js';
import { type NamespaceKeys, namespaceKeys, scriptKeys } from './layout.js';
import { refusalOf } from './refusals.js';
import { registrationOf, registryKeyOf } from './registry.js';
import type { Script } from './scripts.js';
import { STEP } from './step-scripts.js';

/** A call slower than this is logged (it held a command for most of the default deadline). */
const SLOW_CALL_MS = 1_000;

/**
 * How long each step of a folder move or delete may take to answer. The steps go on past the
 * deadline of the call that runs them: once the change was accepted, finishing it is the only
 * way the namespace can be used again.
 */
const STEP_DEADLINE_MS = 5_000;

/** The pause between two steps of a folder move or delete (ms). */
const STEP_PAUSE_MS = 1;

/** The calls of one namespace (its chain: `/` for the root). */
export class RedisCalls implements AdminCalls {
  readonly prefix: string;
  readonly keys: NamespaceKeys;
  /** The keys of `read` and `stat`. */
  readonly readKeys: string[];
  /** The keys of `describe` and `list`. */
  readonly describeKeys: string[];
  /** The namespace's registry members (registry.ts). */
  readonly registration: string;
  /** The namespace's keys, then its registry key (KEYS[12]), once the server is known. */
  #allKeys: string[] | undefined;

  constructor(
    readonly backend: Backend,
    readonly chain: string,
  ) {
    this.prefix = backend.prefix;
    const keys = namespaceKeys(backend.prefix, chain);
    this.keys = keys;
    this.readKeys = [keys.files, keys.versions, keys.index];
    this.describeKeys = [...this.readKeys, keys.sizes];
    this.registration = registrationOf(chain);
  }

  /** Connects and checks the server, once per client. */
  ready(call: DriverCallOptions | undefined): Promise<void> {
    return this.backend.connection.ready({ deadline: deadlineOf(call) });
  }

  async client(call: DriverCallOptions | undefined): Promise<Redis | Cluster> {
    await this.ready(call);
    return this.backend.connection.client;
  }

  onNode(node: Redis, script: Script, args: string[], call: DriverCallOptions | undefined): Promise<unknown> {
    return this.backend.connection.runOnNode(node, script, args, {
      deadline: deadlineOf(call),
      stats: call?.stats,
    });
  }

  runOn(
    script: Script,
    keys: string[],
    args: string[],
    call: DriverCallOptions | undefined,
  ): Promise<unknown> {
    return this.run(script, keys, args, call, true);
  }

  refusal(reply: unknown[], path: DriverPath): Error {
    return refusalOf(reply, path, this.backend.maxSubtreeEntries);
  }

  /**
   * Every key of the namespace, and the registry key of its slot: which one that is depends on
   * whether the server is a Cluster, known once the connection is checked.
   */
  async #keysOfAll(call: DriverCallOptions | undefined): Promise<string[]> {
    if (this.#allKeys) return this.#allKeys;
    const { connection, prefix } = this.backend;
    await connection.ready({ deadline: deadlineOf(call) });
    const cluster = (connection.client as { isCluster?: boolean }).isCluster === true;
    this.#allKeys = [...scriptKeys(this.keys), registryKeyOf(prefix, this.keys.base, cluster)];
    return this.#allKeys;
  }

  /** A script on every key of the namespace. */
  async read(script: Script, args: string[], call: DriverCallOptions | undefined, change: boolean) {
    const keys = this.#allKeys ?? (await this.#keysOfAll(call));
    return this.run(script, keys, args, call, change);
  }

  /**
   * One script, one round trip (two when the node lacks the script), bounded by the deadline. A
   * script refused because a folder move or delete is under way in the namespace (it did nothing)
   * is sent again once the steps of that change are done.
   */
  run(
    script: Script,
    keys: string[],
    args: string[],
    call: DriverCallOptions | undefined,
    change: boolean,
    deadline = deadlineOf(call),
  ): Promise<unknown> {
    const started = Date.now();
    const bounds = { deadline, stats: call?.stats };
    return this.backend.connection.run(script, keys, args, bounds, change).then(
      (reply) => {
        const ms = Date.now() - started;
        if (ms >= SLOW_CALL_MS) this.backend.log.warn('slow call', { script: script.name, ms });
        return reply;
      },
      (error: unknown) => {
        if (!isMoveUnderWay(error)) throw error;
        return this.finishSteps(call).then(() => this.run(script, keys, args, call, change, deadline));
      },
    );
  }

  /**
   * Runs the steps of the folder move or delete under way in the namespace until it is finished
   * (by these steps or by another process's): each step is one bounded script, with a pause after
   * it, so other namespaces are served between them.
   */
  async finishSteps(call: DriverCallOptions | undefined): Promise<void> {
    const keys = this.#allKeys ?? (await this.#keysOfAll(call));
    for (;;) {
      const deadline = Math.max(deadlineOf(call), Date.now() + STEP_DEADLINE_MS);
      const reply = await this.run(STEP, keys, [], call, true, deadline);
      if (reply === 'done') return;
      if (reply !== 'more') throw unexpectedReply(reply);
      // A pause between steps leaves Redis idle for others, which on a loaded machine gets them
      // served sooner (measured: the median view of another namespace 6 -> 4 ms, bench redis).
      await sleep(STEP_PAUSE_MS);
    }
  }

  /**
   * Runs a change script with its fence: the call's deadline on the server's clock (as far as it is
   * known: never later), past which the change must not apply. When Redis answers that the fence
   * has passed although the deadline has not, its clock is further ahead than measured: learn it
   * and send again (nothing was applied).
   */
  async change(
    script: Script,
    args: (fence: string) => string[],
    call: DriverChangeOptions,
  ): Promise<unknown[]> {
    const { connection } = this.backend;
    const deadline = deadlineOf(call);
    const keys = this.#allKeys ?? (await this.#keysOfAll(call));
    for (let attempt = 0; ; attempt++) {
      const fence = String(Math.floor(deadline + connection.clockOffsetMs));
      const reply = await this.run(script, keys, args(fence), call, true, deadline);
      if (!Array.isArray(reply) || reply[0] !== 'E' || reply[1] !== 'LATE') return reply as unknown[];
      const received = Date.now();
      if (attempt > 0 || received >= deadline) throw arrivedTooLate();
      // The server's clock then against the moment its answer arrived: again a lower bound.
      connection.clockOffsetMs = Number(reply[2]) - received;
      this.backend.log.info('the server clock is ahead: corrected, sending again', {
        offsetMs: Math.round(connection.clockOffsetMs),
      });
      if (call.stats) call.stats.retries++;
    }
  }
}
