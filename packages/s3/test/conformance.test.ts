import { S3Client } from '@aws-sdk/client-s3';
import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll, expect } from 'vitest';
import { createS3Store } from '../src/index.js';
import { clearPrefix, keysUnder, rawClient, storeOptions, testServer, uniquePrefix } from './helpers.js';

const server = testServer();
const admin = rawClient(server);
const base = uniquePrefix('conformance');
const prefixOf = (backend: string) => `${base}/${backend}`;

/** After each test: nothing memdir keeps for itself is left behind (a lease, a probe, a stand-in). */
async function destroy(backend: string) {
  const keys = await keysUnder(admin, server.bucket, `${prefixOf(backend)}/`);
  const leftovers = keys.filter((key) => key.includes('/.memdir/'));
  await clearPrefix(admin, server.bucket, `${prefixOf(backend)}/`);
  expect(leftovers).toEqual([]);
}

describeMemoryStore({
  name: 's3',
  create: (options, backend) => createS3Store({ ...options, ...storeOptions(server, prefixOf(backend)) }),
  destroy,
  capabilities: { atomicRename: false },
  timeout: 60_000,
});

// The user's own client: used as it is, never closed by the stores.
const own = new S3Client(server.config);
afterAll(() => {
  own.destroy();
  admin.destroy();
});

describeMemoryStore({
  name: 's3 with your own client',
  create: (options, backend) =>
    createS3Store({ ...options, client: own, bucket: server.bucket, prefix: `${prefixOf(backend)}-own` }),
  destroy: (backend) => destroy(`${backend}-own`),
  capabilities: { atomicRename: false },
  timeout: 60_000,
});
