import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The round trip through Redis, PostgreSQL and S3 needs real servers; the other tests need none.
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['test/servers.ts'] } }));
