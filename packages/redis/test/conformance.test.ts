import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll, beforeAll } from 'vitest';
import { createRedisDriver, createRedisStore } from '../src/index.js';
import { checkLayout, clusterUrl, deleteUnder, newCluster, newRedis, redisUrl } from './helpers.js';

// Each backend name of the suite is a key prefix of its own; after each test the layout of every
// namespace under it is checked, then its keys are deleted. The suite runs four times: on the
// standalone server and on the Cluster, with a client the store makes from a URL and with the
// user's own client.
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

const prefix = (backend: string) => `mdt:${backend}:`;

async function destroy(client: typeof standalone | typeof cluster, backend: string): Promise<void> {
  try {
    await checkLayout(client, prefix(backend));
  } finally {
    await deleteUnder(client, prefix(backend));
  }
}

describeMemoryStore({
  name: 'redis (standalone, store-made client)',
  create: (options, backend) => createRedisStore({ ...options, url: redisUrl(), keyPrefix: prefix(backend) }),
  destroy: (backend) => destroy(standalone, backend),
});

describeMemoryStore({
  name: 'redis (standalone, own client)',
  createDriver: (backend) => createRedisDriver({ client: standalone, keyPrefix: prefix(backend) }),
  destroy: (backend) => destroy(standalone, backend),
});

describeMemoryStore({
  name: 'redis (Cluster, store-made client)',
  create: (options, backend) =>
    createRedisStore({ ...options, url: clusterUrl(), keyPrefix: prefix(backend) }),
  destroy: (backend) => destroy(cluster, backend),
});

describeMemoryStore({
  name: 'redis (Cluster, own client)',
  createDriver: (backend) => createRedisDriver({ client: cluster, keyPrefix: prefix(backend) }),
  destroy: (backend) => destroy(cluster, backend),
});
