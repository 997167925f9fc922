// The Cluster reconfiguring under a namespace while commands run: its slot migrated to another
// master and back (ASK, TRYAGAIN, then MOVED), and its master failed over to its replica and back.

import { isMemoryToolError, type MemoryStore } from '@memdir/core';
import { clusterFailover } from '@memdir/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/index.js';
import { checkLayout, clusterUrl, deleteUnder, newCluster, uniquePrefix } from './helpers.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Owner {
  id: string;
  host: string;
  port: number;
}

const cluster = newCluster();
beforeAll(() => cluster.connect());
afterAll(() => cluster.quit());

async function withNode<T>(node: Owner, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ host: node.host, port: node.port, lazyConnect: true });
  redis.on('error', () => {});
  await redis.connect();
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** The masters, each with the slots it serves, from CLUSTER SLOTS. */
async function masters(): Promise<Array<Owner & { slots: Array<[number, number]> }>> {
  const ranges = (await cluster.call('CLUSTER', 'SLOTS')) as Array<
    [number, number, [string, number, string]]
  >;
  const byId = new Map<string, Owner & { slots: Array<[number, number]> }>();
  for (const [start, end, [host, port, id]] of ranges) {
    const entry = byId.get(id) ?? { id, host, port, slots: [] };
    entry.slots.push([start, end]);
    byId.set(id, entry);
  }
  return [...byId.values()];
}

async function ownerOf(slot: number): Promise<Owner> {
  const owner = (await masters()).find((master) =>
    master.slots.some(([start, end]) => slot >= start && slot <= end),
  );
  if (!owner) throw new Error(`no master serves slot ${slot}`);
  return owner;
}

/**
 * Moves `slot` from one master to another as `redis-cli --cluster reshard` does, one key at a
 * time with pauses, so that commands meet every state: MIGRATING/IMPORTING (ASK), keys on both
 * sides (TRYAGAIN), and the new owner (MOVED).
 */
async function migrateSlot(slot: number, from: Owner, to: Owner): Promise<void> {
  await withNode(to, (redis) => redis.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id));
  await withNode(from, (redis) => redis.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id));
  await wait(200);
  await withNode(from, async (redis) => {
    for (;;) {
      const keys = (await redis.call('CLUSTER', 'GETKEYSINSLOT', slot, 1)) as string[];
      if (keys.length === 0) break;
      await redis.call('MIGRATE', to.host, to.port, '', 0, 5000, 'KEYS', ...keys);
      await wait(40);
    }
  });
  for (const node of [
    to,
    from,
    ...(await masters()).filter((master) => master.id !== to.id && master.id !== from.id),
  ]) {
    await withNode(node, (redis) => redis.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id));
  }
}

interface Outcome {
  command: string;
  path?: string | undefined;
  /** The line an acknowledged insert added. */
  line?: string | undefined;
  ok: boolean;
  code?: string;
}

/** Runs creates, inserts and views on `stores` until `stop()`; resolves to every outcome. */
function keepBusy(stores: MemoryStore[]): { stop: () => Promise<Outcome[]> } {
  let running = true;
  const outcomes: Outcome[] = [];
  const loops = stores.map(async (store, which) => {
    for (let index = 0; running; index++) {
      const path = `/memories/s${which}/${index}.md`;
      for (const command of [
        { command: 'create', path, file_text: `${which}-${index}` },
        { command: 'insert', path: '/memories/log.md', insert_line: 0, insert_text: `${which}-${index}` },
        { command: 'view', path: `/memories/s${which}` },
      ]) {
        try {
          await store.execute(command);
          outcomes.push({
            command: command.command,
            path: command.command === 'create' ? path : undefined,
            line: command.command === 'insert' ? command.insert_text : undefined,
            ok: true,
          });
        } catch (error) {
          if (!isMemoryToolError(error)) throw error;
          outcomes.push({ command: command.command, ok: false, code: error.code });
        }
      }
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

describe('the Cluster reconfiguring under a namespace', () => {
  it('a slot migrated to another master and back while commands run: every command succeeds', async () => {
    const prefix = uniquePrefix('m');
    const namespace = 'moving';
    const stores = [
      createRedisStore({ url: clusterUrl(), keyPrefix: prefix, namespace }),
      createRedisStore({ client: cluster, keyPrefix: prefix, namespace }),
    ];
    await stores[0]!.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
    const slot = (await cluster.call('CLUSTER', 'KEYSLOT', `${prefix}{/${namespace}}:f`)) as number;
    const home = await ownerOf(slot);
    const away = (await masters()).find((master) => master.id !== home.id)!;

    const busy = keepBusy(stores);
    await wait(300);
    await migrateSlot(slot, home, away);
    expect((await ownerOf(slot)).id).toBe(away.id);
    await wait(300);
    await migrateSlot(slot, away, home);
    await wait(300);
    const outcomes = await busy.stop();
    expect((await ownerOf(slot)).id).toBe(home.id);

    expect(outcomes.length).toBeGreaterThan(30);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    // Every acknowledged insert's line is in the log once, beside '# log'. A fast run makes more
    // than 16,000 characters of numbered lines, so the log is read whole, past maxViewChars.
    const inserted = outcomes.flatMap((outcome) => (outcome.line === undefined ? [] : [outcome.line]));
    const reader = createRedisStore({ client: cluster, keyPrefix: prefix, namespace, maxViewChars: 1 << 24 });
    const log = await reader.view({ command: 'view', path: '/memories/log.md' });
    await reader.close();
    expect(log).not.toContain('[Output truncated');
    const lines = log
      .split('\n')
      .slice(1)
      .map((numbered) => numbered.slice(numbered.indexOf('\t') + 1));
    expect(lines.sort()).toEqual(['# log', ...inserted].sort());
    for (const { path } of outcomes.filter((outcome) => outcome.path)) {
      await expect(stores[1]!.view({ command: 'view', path: path! })).resolves.toContain('     1\t');
    }
    for (const store of stores) await store.close();
    await checkLayout(cluster, prefix);
    await deleteUnder(cluster, prefix);
  }, 120_000);

  it('the namespace\u2019s master fails over to its replica and back: commands fail only as BACKEND, nothing acknowledged is lost', async () => {
    const prefix = uniquePrefix('o');
    const namespace = 'failover';
    const store = createRedisStore({ url: clusterUrl(), keyPrefix: prefix, namespace });
    await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
    const slot = (await cluster.call('CLUSTER', 'KEYSLOT', `${prefix}{/${namespace}}:f`)) as number;
    const home = await ownerOf(slot);

    const busy = keepBusy([store]);
    await wait(300);
    const promoted = await clusterFailover(home);
    await wait(500);
    const during = await busy.stop();
    expect((await ownerOf(slot)).port).toBe(promoted.port);
    for (const outcome of during.filter((each) => !each.ok)) expect(outcome.code).toBe('BACKEND');

    // The store follows the new master, and every acknowledged create is there.
    const again = keepBusy([store]);
    await wait(500);
    const after = await again.stop();
    expect(after.filter((outcome) => !outcome.ok)).toEqual([]);
    for (const { path } of [...during, ...after].filter((outcome) => outcome.ok && outcome.path)) {
      await expect(store.view({ command: 'view', path: path! })).resolves.toContain('     1\t');
    }

    // Leave the Cluster as it was: the first masters back in charge.
    await clusterFailover(promoted, { mode: 'takeover' });
    expect((await ownerOf(slot)).port).toBe(home.port);
    await store.close();
    await checkLayout(cluster, prefix);
    await deleteUnder(cluster, prefix);
  }, 120_000);
});
