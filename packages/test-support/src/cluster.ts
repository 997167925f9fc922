// The Redis Cluster as a test sees it: its nodes (CLUSTER NODES) and a failover on demand, for the
// tests of a client that must follow a master moving to another node.
import type { Redis } from 'ioredis';
import { delay, type Endpoint } from './net.js';

/** One line of CLUSTER NODES. */
export interface ClusterNode extends Endpoint {
  id: string;
  role: 'master' | 'replica';
  /** The id of its master, for a replica. */
  masterId: string | undefined;
}

async function connect(node: Endpoint): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis({ ...node, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}

async function withNode<T>(node: Endpoint, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connect(node);
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

/** The Cluster's nodes as the node at `node` sees them. */
export function clusterNodes(node: Endpoint): Promise<ClusterNode[]> {
  return withNode(node, async (redis) => {
    const text = (await redis.cluster('NODES')) as string;
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [id = '', address = '', flags = '', masterId = '-'] = line.split(' ');
        const [host = '', port = '0'] = address.split('@')[0]!.split(/:(?=\d+$)/);
        return {
          id,
          host,
          port: Number(port),
          role: flags.split(',').includes('master') ? 'master' : 'replica',
          masterId: masterId === '-' ? undefined : masterId,
        };
      });
  });
}

/**
 * The replica `replica` is ready to take over from `master`: the master lists it, and its
 * replication link is up. (A CLUSTER FAILOVER sent before that is accepted, then dropped after 5 s.)
 */
async function waitForSyncedReplica(replica: Endpoint, master: Endpoint, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const nodes = await clusterNodes(master).catch(() => []);
    const masterNode = nodes.find((node) => node.port === master.port && node.role === 'master');
    const listed = nodes.some((node) => node.port === replica.port && node.masterId === masterNode?.id);
    if (listed) {
      const info = await withNode(replica, (redis) => redis.info('replication')).catch(() => '');
      if (info.includes('master_link_status:up')) return;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `${replica.host}:${replica.port} did not become a synced replica of ${master.host}:${master.port} ` +
          `within ${timeoutMs} ms`,
      );
    }
    await delay(100);
  }
}

export interface ClusterFailoverOptions {
  /**
   * `graceful` is CLUSTER FAILOVER: the master stops writes until its replica has every one, and the
   * other masters vote. They vote for one shard only once per 2 × cluster-node-timeout (6 s with the
   * scripts' Cluster), so a second failover of the same shard right after needs `takeover`
   * (CLUSTER FAILOVER TAKEOVER: no vote, no handshake with the master).
   * @default 'graceful'
   */
  mode?: 'graceful' | 'takeover';
  /**
   * How long to wait in all: for the replica to be ready, then for the old master to follow it.
   * @default 30000
   */
  timeoutMs?: number;
}

/**
 * Promotes a replica of the Cluster master at `master` and waits until the old master is a synced
 * replica of the new one; resolves with the new master. The Cluster of `scripts/services.sh` has
 * one replica per master. To undo, fail over from the new master (`takeover` is immediate).
 */
export async function clusterFailover(
  master: Endpoint,
  options: ClusterFailoverOptions = {},
): Promise<ClusterNode> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const nodes = await clusterNodes(master);
  const self = nodes.find((node) => node.port === master.port && node.host === master.host);
  if (self?.role !== 'master') throw new Error(`${master.host}:${master.port} is not a Cluster master`);
  const replica = nodes.find((node) => node.masterId === self.id);
  if (!replica) throw new Error(`${master.host}:${master.port} has no replica to fail over to`);
  const deadline = Date.now() + timeoutMs;
  await waitForSyncedReplica(replica, master, timeoutMs);
  for (;;) {
    await withNode(replica, (redis) =>
      options.mode === 'takeover' ? redis.cluster('FAILOVER', 'TAKEOVER') : redis.cluster('FAILOVER'),
    );
    // A graceful failover the masters would not vote for (the shard failed over in the last
    // 2 x node timeout) gives up after 5 s: then ask again.
    const attempt = Math.min(7000, Math.max(0, deadline - Date.now()));
    try {
      await waitForSyncedReplica(master, replica, attempt);
      return { ...replica, role: 'master', masterId: undefined };
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
  }
}
