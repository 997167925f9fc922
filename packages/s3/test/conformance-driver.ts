// The conformance suite through `createS3Driver`, for the files that split it (see helpers.ts's
// COMMAND_GROUPS): each file runs some groups, with prefixes of its own, so the files can run side
// by side and together run the whole suite.
import { type ConformanceGroup, describeMemoryStore } from '@memdir/conformance';
import { afterAll, expect } from 'vitest';
import { createS3Driver } from '../src/index.js';
import { backendPrefix, clearPrefix, leftovers, rawClient, storeOptions, uniquePrefix } from './helpers.js';

export function describeDriverConformance(label: string, groups: readonly ConformanceGroup[]): void {
  const admin = rawClient();
  const base = uniquePrefix(label);
  afterAll(() => admin.destroy());
  describeMemoryStore(
    {
      name: 's3',
      createDriver: (backend) => createS3Driver(storeOptions(backendPrefix(base, backend))),
      // After each test, once everything is closed: no lease, probe object or stand-in is left.
      check: async (backend) => {
        expect(await leftovers(admin, `${backendPrefix(base, backend)}/`)).toEqual([]);
      },
      destroy: (backend) => clearPrefix(admin, `${backendPrefix(base, backend)}/`),
      timeout: 60_000,
      // History runs in conformance.test.ts only (the own-client run leaves it out). One edit is a
      // few S3 round trips, so the retention test's 10,000 edits would take minutes: 200 here, and
      // the bound is checked another way in history-chain.test.ts (the pruning plan, 10,000 edits)
      // and history-retention.test.ts (the version objects in the bucket).
      historyEdits: 200,
    },
    { groups },
  );
}
