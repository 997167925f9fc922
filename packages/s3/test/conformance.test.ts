import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll, expect } from 'vitest';
import { createS3Driver, createS3Store } from '../src/index.js';
import {
  backendPrefix,
  bucket,
  clearPrefix,
  leftovers,
  rawClient,
  storeOptions,
  uniquePrefix,
} from './helpers.js';

const admin = rawClient();
const base = uniquePrefix('conformance');
afterAll(() => admin.destroy());

/** After each test, once everything is closed: no lease, probe object or stand-in is left. */
async function check(prefix: string): Promise<void> {
  expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
}

describeMemoryStore({
  name: 's3',
  createDriver: (backend) => createS3Driver(storeOptions(backendPrefix(base, backend))),
  check: (backend) => check(backendPrefix(base, backend)),
  destroy: (backend) => clearPrefix(admin, `${backendPrefix(base, backend)}/`),
  timeout: 60_000,
});

// The user's own client: used as it is, never closed by the stores (the suite closes each store,
// and the next test's stores still use this client).
const own = rawClient();
afterAll(() => own.destroy());
const ownBase = `${base}-own`;

describeMemoryStore({
  name: 's3 with your own S3Client',
  create: (options, backend) =>
    createS3Store({ ...options, client: own, bucket, prefix: backendPrefix(ownBase, backend) }),
  check: (backend) => check(backendPrefix(ownBase, backend)),
  destroy: (backend) => clearPrefix(admin, `${backendPrefix(ownBase, backend)}/`),
  timeout: 60_000,
});
