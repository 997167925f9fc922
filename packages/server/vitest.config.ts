import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The memory stores API tests run on Redis, PostgreSQL and S3 too: real servers.
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['test/servers.ts'] } }));
