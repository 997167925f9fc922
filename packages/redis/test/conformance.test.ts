import { describeMemoryStore } from '@memdir/conformance';
import { afterAll } from 'vitest';
import { createRedisDriver, createRedisStore } from '../src/index.js';
import { checkLayout, clusterUrl, deleteUnder, newCluster, newRedis, redisUrl } from './helpers.js';

// Each backend name of the suite is a key prefix of its own; after each test the layout of every
// namespace under it is checked (the suite's `check`), then its keys are deleted. The suite runs four times: on the
// standalone server and on the Cluster, with a client the store makes from a URL and with the
// user's own client.
// Lazy clients: the suite uses them while it collects its tests (to read the capabilities).
const standalone = newRedis();
const cluster = newCluster();
afterAll(async () => {
  await standalone.quit();
  await cluster.quit();
});

const prefix = (backend: string) => `mdt:${backend}:`;

describeMemoryStore({
  name: 'redis (standalone, store-made client)',
  create: (options, backend) => createRedisStore({ ...options, url: redisUrl(), keyPrefix: prefix(backend) }),
  check: (backend) => checkLayout(standalone, prefix(backend)),
  destroy: (backend) => deleteUnder(standalone, prefix(backend)),
});

describeMemoryStore({
  name: 'redis (standalone, own client)',
  createDriver: (backend) => createRedisDriver({ client: standalone, keyPrefix: prefix(backend) }),
  check: (backend) => checkLayout(standalone, prefix(backend)),
  destroy: (backend) => deleteUnder(standalone, prefix(backend)),
});

describeMemoryStore({
  name: 'redis (Cluster, store-made client)',
  create: (options, backend) =>
    createRedisStore({ ...options, url: clusterUrl(), keyPrefix: prefix(backend) }),
  check: (backend) => checkLayout(cluster, prefix(backend)),
  destroy: (backend) => deleteUnder(cluster, prefix(backend)),
});

describeMemoryStore({
  name: 'redis (Cluster, own client)',
  createDriver: (backend) => createRedisDriver({ client: cluster, keyPrefix: prefix(backend) }),
  check: (backend) => checkLayout(cluster, prefix(backend)),
  destroy: (backend) => deleteUnder(cluster, prefix(backend)),
});
