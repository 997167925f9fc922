import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// test/servers.test.ts needs Redis, PostgreSQL and S3 (the environment's, else scripts/services.sh).
export default mergeConfig(
  shared,
  defineConfig({ test: { fileParallelism: false, testTimeout: 60_000, globalSetup: ['test/servers.ts'] } }),
);
