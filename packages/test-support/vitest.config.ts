import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The servers come from test/servers.ts: the environment's, else testcontainers', else the scripts'.
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['test/servers.ts'] } }));
