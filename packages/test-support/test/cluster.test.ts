import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterEach, describe, expect, test } from 'vitest';
import { clusterFailover, clusterNodes, redisClusterNodes } from '../src/index.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function connectCluster(): Cluster {
  const cluster = new Cluster(redisClusterNodes(), { redisOptions: { maxRetriesPerRequest: 1 } });
  cluster.on('error', () => {});
  cleanups.push(() => cluster.disconnect());
  return cluster;
}

describe('the Redis Cluster', () => {
  test('the URLs name its three masters, and keys of every slot range are served', async () => {
    const masters = redisClusterNodes();
    expect(masters).toHaveLength(3);
    const nodes = await clusterNodes(masters[0]!);
    for (const master of masters) {
      expect(nodes.find((node) => node.port === master.port)?.role).toBe('master');
    }
    const cluster = connectCluster();
    const keys = Array.from({ length: 30 }, (_, i) => `test-support:${randomUUID()}:${i}`);
    for (const key of keys) await cluster.set(key, key);
    for (const key of keys) expect(await cluster.get(key)).toBe(key);
    for (const key of keys) await cluster.del(key);
  });

  test('every master has a replica: CLUSTER FAILOVER promotes it with the data, and a takeover undoes it', async () => {
    const masters = redisClusterNodes();
    const nodes = await clusterNodes(masters[0]!);
    for (const master of nodes.filter((node) => node.role === 'master')) {
      expect(nodes.filter((node) => node.masterId === master.id)).toHaveLength(1);
    }
    const cluster = connectCluster();
    // A key of the first master's slots (0-5460): slot 0 is {x}... found by asking.
    let key = '';
    for (let i = 0; ; i++) {
      key = `{test-support-${i}}`;
      if ((await cluster.cluster('KEYSLOT', key)) <= 5460) break;
    }
    await cluster.set(key, 'before');

    const promoted = await clusterFailover(masters[0]!);
    cleanups.push(() => clusterFailover(promoted, { mode: 'takeover' }));
    expect(promoted.port).not.toBe(masters[0]!.port);
    expect((await clusterNodes(masters[0]!)).find((node) => node.port === masters[0]!.port)?.role).toBe(
      'replica',
    );
    // The replica had the write, and the client follows the new master after a MOVED.
    expect(await cluster.get(key)).toBe('before');
    await cluster.del(key);
  });
});
