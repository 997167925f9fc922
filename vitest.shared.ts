import { defineConfig } from 'vitest/config';

// One test configuration for every package (each package's vitest.config.ts re-exports it).
// The JSON report feeds scripts/test-summary.mjs, which prints the run's closing tally.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: './test-results.json' },
  },
});
