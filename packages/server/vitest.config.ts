import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The inspector's tests need a PostgreSQL (test/servers.ts).
export default mergeConfig(shared, defineConfig({ test: { globalSetup: ['test/servers.ts'] } }));
