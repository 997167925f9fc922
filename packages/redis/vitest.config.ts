import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// One file at a time: some tests reconfigure the shared Cluster (a slot migration, a failover),
// which the other files would otherwise meet halfway.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: ['test/servers.ts'], fileParallelism: false } }),
);
