import { describeMemoryStore } from '@memdir/conformance';
import { afterAll } from 'vitest';
import { createPostgresDriver, createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

// A backend is a schema of its own (the first two runs: each test sets one up, as a new database
// would), or a namespace of one schema (the bare driver: the suite's namespaces nest inside it).
// Two stores opened with the same name share it, as two processes pointed at one database would.
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
  // The totals kept by every change (layout 2) are what the files hold, namespace by namespace.
  const totals = await admin.query(
    `SELECT coalesce(t.ns, f.ns) AS ns, t.bytes, t.files, f.bytes AS counted_bytes, f.files AS counted_files
     FROM (SELECT ns, bytes::bigint, files::bigint FROM "${schema}".totals WHERE bytes <> 0 OR files <> 0) t
     FULL JOIN (SELECT ns, sum(size)::bigint AS bytes, count(*)::bigint AS files FROM "${schema}".files GROUP BY ns) f
       ON f.ns = t.ns
     WHERE t.bytes IS DISTINCT FROM f.bytes OR t.files IS DISTINCT FROM f.files LIMIT 1`,
  );
  if (totals.rows.length > 0)
    throw new Error(`totals differ from the files: ${JSON.stringify(totals.rows[0])}`);
  // No namespace lock is left held, and no session of the store idles inside a transaction. The
  // server is shared (other test runs use it at the same time): a lock in use comes and goes, one
  // left behind stays, so a lock must be seen held by an idle session three times over.
  for (let look = 0; ; look++) {
    const held = await admin.query(
      `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.classid = ${0x6d640002} AND l.objsubid = 2 AND a.state <> 'active'`,
    );
    if (held.rows[0].n === 0) break;
    if (look === 2) throw new Error(`${held.rows[0].n} namespace locks are still held`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const idle = await admin.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'
     AND datname = current_database() AND application_name = 'memdir' AND state_change < now() - interval '2 seconds'`,
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

// The user's own pool, shared by every store and never ended by them. Its connections are renewed
// now and then: a session that has run the functions of a thousand schemas keeps a thousand sets of
// plans, which every schema dropped by a later test makes it look through.
const shared = testPool({ max: 10, maxLifetimeSeconds: 20 } as never);
afterAll(async () => {
  // Still usable after every store on it was closed.
  await shared.query('SELECT 1');
  await shared.end();
});

// The history group's 10,000-edit retention test runs in full on the first target; the two below
// run the same SQL, so 1,000 edits there keep the package's CI time in budget.
const HISTORY_EDITS = 1_000;

describeMemoryStore({
  name: 'postgres (the user pool)',
  historyEdits: HISTORY_EDITS,
  create: (options, backend) => createPostgresStore({ ...options, pool: shared, schema: `${backend}_u` }),
  check: (backend) => checkSchema(`${backend}_u`),
  destroy: (backend) => dropSchema(admin, `${backend}_u`),
});

// The bare driver (the suite's driver group, operation-id replays included): each backend is a
// namespace of one schema, removed row by row after its test.
const driverSchema = freshSchema('mdt_conf');
const driver = createPostgresDriver({ pool: shared, schema: driverSchema });
afterAll(async () => {
  await driver.close();
  await dropSchema(admin, driverSchema);
});

describeMemoryStore({
  name: 'postgres (the driver)',
  historyEdits: HISTORY_EDITS,
  createDriver: (backend) => driver.namespace(backend),
  check: () => checkSchema(driverSchema),
  destroy: async (backend) => {
    // The suite may destroy a backend before anything set the schema up (its probe does).
    await driver.setup();
    for (const table of ['files', 'versions', 'totals']) {
      await admin.query(
        `DELETE FROM "${driverSchema}".${table} WHERE ns = $1 OR (ns >= $1 || '/' AND ns < $1 || '0')`,
        [backend],
      );
    }
  },
});
