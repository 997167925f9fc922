import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, testPool } from './helpers.js';

// One schema per backend name: two stores opened with the same name share it, as two processes
// pointed at one database would.
const admin = testPool();
afterAll(() => admin.end());

describeMemoryStore({
  name: 'postgres (a pool of its own)',
  create: (options, backend) =>
    createPostgresStore({ ...options, connectionString: databaseUrl(), schema: backend }),
  destroy: (backend) => dropSchema(admin, backend),
});

// The user's own pool, shared by every store and never ended by them.
const shared = testPool({ max: 10 });
afterAll(async () => {
  // Still usable after every store on it was closed.
  await shared.query('SELECT 1');
  await shared.end();
});

describeMemoryStore({
  name: 'postgres (the user pool)',
  create: (options, backend) => createPostgresStore({ ...options, pool: shared, schema: `${backend}_u` }),
  destroy: (backend) => dropSchema(admin, `${backend}_u`),
});
