// Erasure leaves no trace of the tenant's name: after a drop, no key under the store's prefix, and no
// member, field or value of one, names the dropped namespace or one nested in it (the registry of
// namespaces included), on one server and on the Cluster. Tenant names may be a person's identifier.
import { createMemoryStore, type MemoryStore } from '@memdir/core';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisAdmin, createRedisDriver, createRedisStore } from '../src/index.js';
import {
  clusterUrl,
  deleteUnder,
  keysUnder,
  newCluster,
  newRedis,
  redisUrl,
  uniquePrefix,
} from './helpers.js';

const NAME = 'alice-1zq';

/** What a tenant leaves behind: files, a folder, edits, a move, a delete, reads. */
async function tenantSession(store: MemoryStore): Promise<void> {
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
  await store.create({ command: 'create', path: '/memories/d/b.md', file_text: 'b' });
  await store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' });
  await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'z' });
  await store.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' });
  await store.create({ command: 'create', path: '/memories/e/c.md', file_text: 'c' });
  await store.delete({ command: 'delete', path: '/memories/e/b.md' });
  await store.view({ command: 'view', path: '/memories/a.md' });
}

/** Every key under `prefix`, with its members, fields and values as text. */
async function contents(client: Redis | Cluster, prefix: string): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  for (const key of await keysUnder(client, prefix)) {
    const type = await client.type(key);
    const value =
      type === 'hash'
        ? await client.hgetall(key)
        : type === 'zset'
          ? await client.zrange(key, 0, -1)
          : type === 'set'
            ? await client.smembers(key)
            : type === 'string'
              ? await client.get(key)
              : type;
    found.push([key, JSON.stringify(value)]);
  }
  return found;
}

for (const [label, url, connect] of [
  ['standalone', redisUrl, () => newRedis()],
  ['Cluster', clusterUrl, () => newCluster()],
] as const) {
  describe(`a drop on Redis (${label})`, () => {
    let client: Redis | Cluster;
    beforeAll(async () => {
      client = connect();
      await client.connect();
    });
    afterAll(() => client.quit());

    it('leaves no key, member, field or value naming the dropped namespace; the neighbour keeps its own', async () => {
      const prefix = uniquePrefix('scan');
      const options = { url: url(), keyPrefix: prefix, actor: { type: 'user' as const, id: 'u' } };
      const stores = [
        createRedisStore({
          ...options,
          namespace: NAME,
          quota: { maxFiles: 100 },
          expire: { afterDays: 30, refreshOnRead: true },
        }),
        createRedisStore({ ...options, namespace: 'bob' }),
      ];
      const driver = createRedisDriver({ url: url(), keyPrefix: prefix });
      stores.push(createMemoryStore(driver.namespace(NAME).namespace('inner')));
      try {
        for (const store of stores) await tenantSession(store);
        const named = (entries: Array<[string, string]>, name: string) =>
          entries.filter(([key, value]) => key.includes(name) || value.includes(name)).map(([key]) => key);
        expect(named(await contents(client, prefix), NAME).length).toBeGreaterThan(5);
        const dropper = createRedisAdmin({ url: url(), keyPrefix: prefix });
        await dropper.dropNamespace(NAME);
        await dropper.close();
        const after = await contents(client, prefix);
        expect(named(after, NAME)).toEqual([]);
        expect(named(after, 'bob').length).toBeGreaterThan(5);
      } finally {
        for (const store of stores) await store.close();
        await driver.close();
        await deleteUnder(client, prefix);
      }
    }, 60_000);
  });
}
