import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// One file at a time: each file starts its own `memdir serve --http` processes, and a machine of two
// cores runs them better one after another.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['test/servers.ts'], fileParallelism: false } }),
);
