import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll, expect } from 'vitest';
import { createS3Driver } from '../src/index.js';
import {
  backendPrefix,
  COMMAND_GROUPS,
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

describeMemoryStore(
  {
    name: 's3',
    createDriver: (backend) => createS3Driver(storeOptions(backendPrefix(base, backend))),
    check: (backend) => check(backendPrefix(base, backend)),
    destroy: (backend) => clearPrefix(admin, `${backendPrefix(base, backend)}/`),
    timeout: 60_000,
    // History runs here only (the own-client run leaves it out). One edit is a few S3 round trips, so
    // the retention test's 10,000 edits would take minutes: 200 here, and the bound is checked another
    // way in history-chain.test.ts (the pruning plan, 10,000 edits) and history-retention.test.ts
    // (the version objects in the bucket).
    historyEdits: 200,
  },
  { groups: COMMAND_GROUPS },
);
