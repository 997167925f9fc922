import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll } from 'vitest';
import { createPostgresDriver, createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, testPool } from './helpers.js';

// One schema per backend name: two stores opened with the same name share it, as two processes
// pointed at one database would.
const admin = testPool();
afterAll(() => admin.end());

/** The adapter's own invariants, after every test: see `check` below. */
async function checkSchema(schema: string): Promise<void> {
  const exists = await admin.query('SELECT to_regclass($1) IS NOT NULL AS found', [`"${schema}".files`]);
  if (!exists.rows[0].found) return;
  // A file never has a file beneath it (a path is a file or a directory, never both).
  const both = await admin.query(
    `SELECT a.ns, a.path FROM "${schema}".files a JOIN "${schema}".files b
       ON b.ns = a.ns AND b.path >= a.path || '/' AND b.path < a.path || '0' LIMIT 1`,
  );
  if (both.rows.length > 0) throw new Error(`a file with files beneath it: ${JSON.stringify(both.rows[0])}`);
  // No namespace lock is left held, and no session of the store idles inside a transaction.
  const held = await admin.query(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = ${0x6d640002} AND objsubid = 2`,
  );
  if (held.rows[0].n !== 0) throw new Error(`${held.rows[0].n} namespace locks are still held`);
  const idle = await admin.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' AND datname = current_database()`,
  );
  if (idle.rows[0].n !== 0) throw new Error(`${idle.rows[0].n} sessions idle in a transaction`);
}

describeMemoryStore({
  name: 'postgres (a pool of its own)',
  create: (options, backend) =>
    createPostgresStore({ ...options, connectionString: databaseUrl(), schema: backend }),
  check: checkSchema,
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
  check: (backend) => checkSchema(`${backend}_u`),
  destroy: (backend) => dropSchema(admin, `${backend}_u`),
});

// The bare driver: the suite's driver group, operation-id replays included (replaySafe).
describeMemoryStore({
  name: 'postgres (the driver)',
  createDriver: (backend) => createPostgresDriver({ pool: shared, schema: `${backend}_d` }),
  check: (backend) => checkSchema(`${backend}_d`),
  destroy: (backend) => dropSchema(admin, `${backend}_d`),
});
