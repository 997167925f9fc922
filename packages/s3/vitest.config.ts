import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// Two groups, one after the other. First the conformance suite, its four files side by side: each
// test waits on the server far more than it computes, and every test has prefixes of its own.
// Then the adapter's own tests one file at a time: faults, leases and processes time their waits,
// and a file running beside them would shift those timings.
const CONFORMANCE = [
  'test/conformance.test.ts',
  'test/conformance-input.test.ts',
  'test/conformance-paths.test.ts',
  'test/conformance-own-client.test.ts',
];
const { include: everything, ...common } = shared.test!;

export default defineConfig({
  test: {
    ...common,
    globalSetup: ['test/servers.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'conformance',
          include: CONFORMANCE,
          // All at once, also on a machine of two cores (vitest's default would run one).
          maxWorkers: CONFORMANCE.length,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'adapter',
          include: everything,
          exclude: CONFORMANCE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
