import { CONFORMANCE_GROUPS, describeMemoryStore } from '@memdir/core/conformance';
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

// The other half of the suite through the driver (see conformance.test.ts): every group that file
// does not run, so the two files together run the whole suite.
const INPUT_GROUPS = CONFORMANCE_GROUPS.filter((group) => !COMMAND_GROUPS.includes(group));
const admin = rawClient();
const base = uniquePrefix('conformance-input');
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
  },
  { groups: INPUT_GROUPS },
);
