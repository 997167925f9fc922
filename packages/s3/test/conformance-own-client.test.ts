import { describeMemoryStore } from '@memdir/conformance';
import { afterAll, expect } from 'vitest';
import { createS3Store } from '../src/index.js';
import { backendPrefix, bucket, clearPrefix, leftovers, rawClient, uniquePrefix } from './helpers.js';

// The suite again through the user's own S3Client (a file of its own, so the two runs of the suite
// go side by side: see vitest.config.ts). Only the groups whose requests a client can change: the
// six commands, concurrency, quotas and the differential run. The groups that refuse input before
// any request ('tool input', 'paths') and the one about prefixes ('isolation') reach S3 through the
// same keys whatever the client, and run in full in conformance-input.test.ts.
const OWN_CLIENT_GROUPS = [
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
  'concurrency',
  'quota',
  'differential',
] as const;
const admin = rawClient();
const ownBase = uniquePrefix('conformance-own');
afterAll(() => admin.destroy());

/** After each test, once everything is closed: no lease, probe object or stand-in is left. */
async function check(prefix: string): Promise<void> {
  expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
}

// The user's own client: used as it is, never closed by the stores (the suite closes each store,
// and the next test's stores still use this client).
const own = rawClient();
afterAll(() => own.destroy());

describeMemoryStore(
  {
    name: 's3 with your own S3Client',
    // History off (its version objects are the same requests whatever the client, and the history
    // group runs in conformance.test.ts), so this run costs what it did before history.
    create: (options, backend) =>
      createS3Store({
        history: false,
        ...options,
        client: own,
        bucket,
        prefix: backendPrefix(ownBase, backend),
      }),
    check: (backend) => check(backendPrefix(ownBase, backend)),
    destroy: (backend) => clearPrefix(admin, `${backendPrefix(ownBase, backend)}/`),
    timeout: 60_000,
  },
  { groups: OWN_CLIENT_GROUPS },
);
