import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The inspector's tests need a PostgreSQL, and the memory stores API tests run on Redis, PostgreSQL and
// S3 too: real servers (test/servers.ts).
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['test/servers.ts'] } }));
