// The admin methods of the Redis driver: usage from the namespace's counters (one script), the
// listing of namespaces from the registry (registry.ts; one script per server, or per Cluster
// master side by side), a drop in bounded batches on the keys of each namespace it erases, and the
// sweep (expiry, then retention) in bounded batches on the namespace's own keys.
import type {
  DriverCallOptions,
  DriverDropOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverSweepOptions,
  DriverUsage,
} from '@memdir/core';
import { checkTime } from '@memdir/core/driver';
import type { Cluster, Redis } from 'ioredis';
import { DROP, NAMESPACES, REGISTRANTS, SWEEP, USAGE } from './admin-scripts.js';
import { unexpectedReply } from './errors.js';
import type { NamespaceCalls } from './history.js';
import { HISTORY_SCAN_LIMIT } from './history-scripts.js';
import { childChain, namespaceKeys, scriptKeys } from './layout.js';
import { historyBlock } from './records.js';
import { registrationOf, registryKeyOf, serverRegistryKey, slotRegistryKey } from './registry.js';
import type { Script } from './scripts.js';

const DAY_MS = 86_400_000;

/** What the admin methods need beyond a namespace's own calls. */
export interface AdminCalls extends NamespaceCalls {
  readonly prefix: string;
  /** This driver's namespace chain (`/` for the root). */
  readonly chain: string;
  /** The client, once checked (a Cluster or one server). */
  client(call: DriverCallOptions | undefined): Promise<Redis | Cluster>;
  /** Runs a script with no keys on one node (the registry scripts), bounded by the call's deadline. */
  onNode(node: Redis, script: Script, args: string[], call: DriverCallOptions | undefined): Promise<unknown>;
  /** Runs a script on the keys given (a namespace other than this one). */
  runOn(
    script: Script,
    keys: string[],
    args: string[],
    call: DriverCallOptions | undefined,
  ): Promise<unknown>;
}

function isCluster(client: Redis | Cluster): client is Cluster {
  return (client as { isCluster?: boolean }).isCluster === true;
}

/**
 * Runs a registry script on every server that holds registry keys, each with its keys as ARGV
 * after `args`: one server and its one key, or each Cluster master with the keys of the slots it
 * serves, the masters side by side.
 */
async function onRegistries(calls: AdminCalls, script: Script, args: string[], call?: DriverCallOptions) {
  const client = await calls.client(call);
  if (!isCluster(client))
    return [
      (await calls.onNode(client, script, [...args, serverRegistryKey(calls.prefix)], call)) as string[],
    ];
  const bySlot = (client as unknown as { slots: string[][] }).slots;
  const keysByNode = new Map<string, string[]>();
  bySlot.forEach((nodes, slot) => {
    const master = nodes?.[0];
    if (master === undefined) return;
    const keys = keysByNode.get(master) ?? [];
    keys.push(slotRegistryKey(calls.prefix, slot));
    keysByNode.set(master, keys);
  });
  const masters = client.nodes('master');
  return Promise.all(
    masters.map((node) => {
      const keys = keysByNode.get(`${node.options.host}:${node.options.port}`) ?? [];
      return keys.length === 0
        ? []
        : (calls.onNode(node, script, [...args, ...keys], call) as Promise<string[]>);
    }),
  );
}

export async function listNamespaces(
  calls: AdminCalls,
  query: DriverNamespaceQuery,
  options?: DriverCallOptions,
): Promise<DriverNamespacePage> {
  const base = `${calls.chain}\u0000`;
  const prefix = query.prefix ?? '';
  const limit = Math.max(1, Math.min(1_000, Math.floor(query.limit)));
  let low = `[${base}${prefix}`;
  // Every member of the name `after` is skipped: names hold no \x01, and NUL follows the name.
  if (query.after !== undefined && `${query.after}\u0001` > prefix) low = `[${base}${query.after}\u0001`;
  const high = prefix === '' ? `(${calls.chain}\u0001` : `(${base}${prefix}\u00ff`;
  const perServer = await onRegistries(calls, NAMESPACES, [base, low, high, String(limit + 1)], options);
  const names = [...new Set(perServer.flat())].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const page = names.slice(0, limit);
  return { names: page, next: names.length > limit ? page[page.length - 1]! : null };
}

export async function usage(calls: AdminCalls, options?: DriverCallOptions): Promise<DriverUsage> {
  const reply = (await calls.read(USAGE, [], options, false)) as [
    number,
    number | string,
    number,
    string | null,
  ];
  const [files, bytes, versions, at] = reply;
  return {
    files: Number(files),
    bytes: Number(bytes),
    versions: Number(versions),
    lastChangeAt: at === null || at === undefined ? null : Number(at),
  };
}

/** The keys a script of namespace `chain` takes: its own, then the registry key of its slot. */
async function keysOf(calls: AdminCalls, chain: string, call: DriverCallOptions | undefined) {
  const keys = namespaceKeys(calls.prefix, chain);
  const cluster = isCluster(await calls.client(call));
  return [...scriptKeys(keys), registryKeyOf(calls.prefix, keys.base, cluster)];
}

export async function dropNamespace(
  calls: AdminCalls,
  name: string,
  options: DriverDropOptions,
): Promise<{ removed: number; done: boolean }> {
  const dropped = childChain(calls.chain, name);
  const batch = Math.max(1, Math.floor(options.batch));
  // Every namespace in or beneath the dropped one that holds something is registered under it.
  const member = `${calls.chain}\u0000${name}\u0000`;
  const found = await onRegistries(
    calls,
    REGISTRANTS,
    [`[${member}`, `(${calls.chain}\u0000${name}\u0001`, String(batch)],
    options,
  );
  const chains = new Set<string>();
  for (const entry of found.flat()) chains.add(entry.slice(entry.lastIndexOf('\u0000') + 1));
  // The dropped namespace itself last: it may hold keys without being registered (receipts).
  chains.delete(dropped);
  const order = [...chains, dropped];
  let removed = 0;
  let done = found.every((list) => list.length < batch);
  for (const chain of order) {
    if (removed >= batch) {
      done = false;
      break;
    }
    const keys = await keysOf(calls, chain, options);
    const reply = (await calls.runOn(
      DROP,
      keys,
      [String(batch - removed), registrationOf(chain)],
      options,
    )) as [number, number];
    removed += Number(reply[0]);
    if (Number(reply[1]) !== 1) done = false;
    checkTime(options);
  }
  return { removed, done };
}

export async function sweep(
  calls: AdminCalls,
  options: DriverSweepOptions,
): Promise<{ expired: number; pruned: number; done: boolean }> {
  const { retention } = options;
  const block = historyBlock(options.record, calls.registration);
  const reply = await calls.change(
    SWEEP,
    (fence) => [
      options.op,
      fence,
      options.expireBefore === undefined ? '' : String(Math.floor(options.expireBefore)),
      retention ? String(retention.keepVersions) : '',
      retention ? String(Math.round(retention.keepDays * DAY_MS)) : '',
      options.now === undefined ? '' : String(Math.floor(options.now)),
      String(Math.max(1, Math.floor(options.batch))),
      String(HISTORY_SCAN_LIMIT),
      ...block,
    ],
    options,
  );
  if (reply[0] === 'E') throw unexpectedReply(reply[1]);
  return { expired: Number(reply[0]), pruned: Number(reply[1]), done: Number(reply[2]) === 1 };
}
