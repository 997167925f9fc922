import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The tests need a PostgreSQL: DATABASE_URL, or a private one test/servers.ts starts. Files run one
// after another: several of them make many connections, processes or databases at once.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['test/servers.ts'], fileParallelism: false } }),
);
