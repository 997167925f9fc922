// The admin on the real keys: a drop leaves no key of the dropped namespace or of those nested in
// it, and every key of its neighbours as it was (names that start with the dropped one's
// included), on one server and on the Cluster; a drop cut short by a crash is finished by the next
// call; usage is one round trip; the admin factory closes what it made.
import { createMemoryStore, type MemdirStore } from '@memdir/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisAdmin, createRedisDriver, createRedisStore } from '../src/index.js';
import {
  checkLayout,
  clusterUrl,
  deleteUnder,
  keysUnder,
  newCluster,
  newRedis,
  redisUrl,
  uniquePrefix,
} from './helpers.js';

const standalone = newRedis();
const cluster = newCluster();
beforeAll(async () => {
  await standalone.connect();
  await cluster.connect();
});
afterAll(async () => {
  await standalone.quit();
  await cluster.quit();
});

async function fill(store: MemdirStore, files: number): Promise<void> {
  for (let index = 0; index < files; index++) {
    await store.create({
      command: 'create',
      path: `/memories/d${index % 3}/f${index}.md`,
      file_text: `${index}`,
    });
  }
  await store.str_replace({
    command: 'str_replace',
    path: '/memories/d0/f0.md',
    old_str: '0',
    new_str: 'zero',
  });
  await store.delete({ command: 'delete', path: '/memories/d1/f1.md' });
}

/** Every key and its value (in a comparable form), under `prefix`. */
async function snapshot(client: typeof standalone | typeof cluster, prefix: string) {
  const keys = (await keysUnder(client, prefix)).sort();
  return Promise.all(keys.map(async (key) => [key, await client.dump(key)] as const));
}

for (const [label, url, client] of [
  ['standalone', redisUrl, standalone],
  ['Cluster', clusterUrl, cluster],
] as const) {
  describe(`admin on the keys (${label})`, () => {
    it('dropNamespace removes every key of the namespace and of those nested in it, and not one key of its neighbours', async () => {
      const prefix = uniquePrefix('a');
      const driver = createRedisDriver({ url: url(), keyPrefix: prefix });
      const open = (namespace: string) => createRedisStore({ url: url(), keyPrefix: prefix, namespace });
      // Neighbours whose names start with the dropped one's, and the root.
      const kept = ['t-2', 'tx', 't.a'];
      const stores = [open('t'), ...kept.map(open), createRedisStore({ url: url(), keyPrefix: prefix })];
      for (const store of stores) await fill(store, 12);
      const nested = createMemoryStore(driver.namespace('t').namespace('inner'));
      await fill(nested, 5);
      const droppedTag = `${prefix}{${prefix}/t}`;
      const nestedTag = `${prefix}{${prefix}/t/inner}`;
      const before = (await snapshot(client, prefix)).filter(
        ([key]) => !key.startsWith(droppedTag) && !key.startsWith(nestedTag) && !key.endsWith(':g'),
      );
      expect((await keysUnder(client, droppedTag)).length).toBeGreaterThan(5);

      const admin = createRedisAdmin({ url: url(), keyPrefix: prefix, batch: 7 });
      expect((await admin.listNamespaces()).namespaces).toEqual(['t', 't-2', 't.a', 'tx']);
      const report = await admin.dropNamespace('t');
      expect(report.removed).toBeGreaterThan(0);
      expect(await keysUnder(client, droppedTag)).toEqual([]);
      expect(await keysUnder(client, nestedTag)).toEqual([]);
      const after = (await snapshot(client, prefix)).filter(([key]) => !key.endsWith(':g'));
      expect(after).toEqual(before);
      expect((await admin.listNamespaces()).namespaces).toEqual(kept.sort());
      // The namespace can be written again, and starts its versions from 1.
      await stores[0]!.create({ command: 'create', path: '/memories/again.md', file_text: 'again' });
      expect(await admin.usage('t')).toMatchObject({ files: 1, versions: 1 });
      await checkLayout(client, prefix);
      await admin.close();
      for (const store of [...stores, nested]) await store.close();
      await driver.close();
      await deleteUnder(client, prefix);
    }, 60_000);
  });
}

describe('admin on the keys (standalone)', () => {
  it('a drop cut short between batches (a crash) leaves a consistent namespace that the next drop finishes', async () => {
    const prefix = uniquePrefix('a');
    const driver = createRedisDriver({ url: redisUrl(), keyPrefix: prefix });
    const store = createRedisStore({ url: redisUrl(), keyPrefix: prefix, namespace: 'big' });
    await fill(store, 30);
    // One batch, as a process that died after its first call would have left it.
    const first = await driver.dropNamespace!('big', { batch: 10 });
    expect(first).toEqual({ removed: 10, done: false });
    await checkLayout(standalone, prefix);
    const usage = await driver.namespace('big').usage!();
    expect(usage.files).toBeGreaterThan(0);
    const admin = createRedisAdmin({ client: standalone, keyPrefix: prefix });
    await admin.dropNamespace('big');
    expect(await keysUnder(standalone, prefix)).toEqual([]);
    await admin.close();
    // The client passed in stays open.
    expect(standalone.status).toBe('ready');
    await store.close();
    await driver.close();
  }, 30_000);

  it('usage is one round trip, whatever the namespace holds', async () => {
    const prefix = uniquePrefix('a');
    const driver = createRedisDriver({ url: redisUrl(), keyPrefix: prefix });
    const store = createMemoryStore(driver.namespace('u'));
    await fill(store, 40);
    const stats = { roundTrips: 0, retries: 0, requests: 0 };
    const usage = await driver.namespace('u').usage!({ stats } as never);
    expect(usage).toMatchObject({ files: 39, versions: 42 });
    expect(stats.roundTrips).toBe(1);
    await store.close();
    await driver.close();
    await deleteUnder(standalone, prefix);
  });
});

describe('identity', () => {
  it('is redis and a short hash of where the server is and the key prefix: stable, with no address or secret', () => {
    const id = (url: string, keyPrefix?: string) => createRedisDriver({ url, keyPrefix }).identity!;
    const one = id('redis://user:secret@127.0.0.1:6399/2', 'a:');
    expect(one.kind).toBe('redis');
    expect(one.id).toMatch(/^redis-[0-9a-f]{12}$/);
    expect(id('redis://user:secret@127.0.0.1:6399/2', 'a:')).toEqual(one);
    // The password is no part of it; the database and the prefix are.
    expect(id('redis://other:words@127.0.0.1:6399/2', 'a:')).toEqual(one);
    expect(id('redis://127.0.0.1:6399/3', 'a:').id).not.toBe(one.id);
    expect(id('redis://127.0.0.1:6399/2', 'b:').id).not.toBe(one.id);
  });
});
