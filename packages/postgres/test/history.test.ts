// History and admin on the real rows: writer processes killed with SIGKILL mid-run leave a history
// that matches the files (no version of a change that did not commit, none missing), the counters
// in totals agree with the rows, a drop erases exactly its namespace and the ones nested in it, and
// the listings and usage use their indexes (one round trip each).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { DriverPath } from '@memdir/core';
import type pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresAdmin, createPostgresDriver, createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool, WORKER } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function schemaForTest(): string {
  const schema = freshSchema('mdt_hist');
  cleanups.push(() => dropSchema(admin, schema));
  return schema;
}

const sha = (content: Buffer) => createHash('sha256').update(content).digest('hex');

/**
 * Every file's newest version by path matches it, and the totals' counters match the rows: read in
 * one snapshot (repeatable read), so a change committing meanwhile cannot fall between two reads.
 */
async function checkHistory(schema: string): Promise<void> {
  const client = await admin.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await checkSnapshot(client, schema);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

async function checkSnapshot(admin: pg.PoolClient, schema: string): Promise<void> {
  const s = `"${schema}"`;
  const files = await admin.query(`SELECT ns, path, content, file_id FROM ${s}.files ORDER BY ns, path`);
  for (const file of files.rows) {
    const { rows } = await admin.query(
      `SELECT operation, encode(sha256, 'hex') AS sha, file_id FROM ${s}.versions
       WHERE ns = $1 AND path = $2 ORDER BY seq DESC LIMIT 1`,
      [file.ns, file.path],
    );
    expect(rows[0], `${file.ns}:${file.path}`).toMatchObject({
      sha: sha(file.content),
      file_id: file.file_id,
    });
    expect(rows[0].operation).not.toBe('deleted');
  }
  // A path with versions but no file: its newest version there is a deletion, or a move away.
  const gone = await admin.query(
    `SELECT DISTINCT ON (v.ns, v.path) v.ns, v.path, v.operation FROM ${s}.versions v
     WHERE NOT EXISTS (SELECT 1 FROM ${s}.files f WHERE f.ns = v.ns AND f.path = v.path)
     ORDER BY v.ns, v.path, v.seq DESC`,
  );
  for (const row of gone.rows) {
    const moved = await admin.query(
      `SELECT 1 FROM ${s}.versions WHERE ns = $1 AND previous_path = $2 AND seq > (
         SELECT max(seq) FROM ${s}.versions WHERE ns = $1 AND path = $2)`,
      [row.ns, row.path],
    );
    expect(row.operation === 'deleted' || moved.rows.length > 0, `${row.ns}:${row.path}`).toBe(true);
  }
  const counters = await admin.query(
    `SELECT t.ns, t.versions::int AS kept, t.seq::int AS seq, count(v.seq)::int AS counted, max(v.seq)::int AS newest
     FROM ${s}.totals t LEFT JOIN ${s}.versions v ON v.ns = t.ns GROUP BY t.ns, t.versions, t.seq`,
  );
  for (const row of counters.rows) {
    expect(row.kept, row.ns).toBe(row.counted);
    expect(row.seq, row.ns).toBeGreaterThanOrEqual(row.newest ?? 0);
  }
}

/** Starts a worker that runs `commands` all at once on one store; resolves with its process once it is ready. */
async function startWorker(schema: string, commands: unknown[]) {
  const child = spawn(process.execPath, [WORKER, databaseUrl(), schema, 'run', JSON.stringify(commands)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', () => reject(new Error('a worker exited before it was ready')));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { child, exited };
}

/** Waits until the namespace holds more than `count` versions (or 20 s pass). */
async function versionsPast(schema: string, count: number): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".versions`);
    if (rows[0].n > count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('history on the real rows', () => {
  it('writers killed with SIGKILL mid-run: the newest version of every file matches it, and the counters the rows', async () => {
    const schema = schemaForTest();
    const store = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => store.close());
    for (let index = 0; index < 6; index++) {
      await store.create({
        command: 'create',
        path: `/memories/d${index % 2}/f${index}.md`,
        file_text: 'base',
      });
    }
    const commands = (who: number) =>
      Array.from({ length: 300 }, (_, index) => {
        const path = `/memories/d${index % 2}/f${index % 6}.md`;
        switch (index % 5) {
          case 0:
            return { command: 'create', path, file_text: `w${who} ${index}` };
          case 1:
            return { command: 'insert', path, insert_line: 0, insert_text: `i${who} ${index}` };
          case 2:
            return { command: 'delete', path };
          case 3:
            return {
              command: 'rename',
              old_path: `/memories/d${index % 2}`,
              new_path: `/memories/d${(index + 1) % 2}`,
            };
          default:
            return { command: 'create', path: `/memories/d${index % 2}/x${who}.md`, file_text: 'x' };
        }
      });
    const workers = await Promise.all([0, 1, 2].map((who) => startWorker(schema, commands(who))));
    for (const { child } of workers) child.stdin.end('go\n');
    // Each is killed once the writers have got some way (however loaded the machine is).
    for (const [index, { child, exited }] of workers.entries()) {
      await versionsPast(schema, 6 + 20 * (index + 1));
      child.kill('SIGKILL');
      await exited;
    }
    // A killed process's backend finishes the call it was running (and commits it, as it would
    // for a client that lost its connection), or rolls back what it left open: wait for both.
    for (let tries = 0; tries < 100; tries++) {
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'memdir' AND state <> 'idle'`,
      );
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The writers got some way before they were killed.
    const written = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".versions`);
    expect(written.rows[0].n).toBeGreaterThan(6);
    await checkHistory(schema);
    // And the store goes on recording.
    await store.create({ command: 'create', path: '/memories/after.md', file_text: 'after' });
    await checkHistory(schema);
  }, 60_000);

  it('dropNamespace erases the namespace and those nested in it, row by row, and no neighbour', async () => {
    const schema = schemaForTest();
    const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
    cleanups.push(() => driver.close());
    const names = ['a', 'a-b', 'a.b', 'ab', 'b'];
    const record = {
      actor: null,
      command: 'create',
      toolUseId: null,
      keepVersions: 20,
      keepDays: 30,
    } as const;
    let op = 0;
    const write = (space: ReturnType<typeof driver.namespace>, path: string) =>
      space.write(path as DriverPath, path, { op: `op-drop-${schema}-${op++}`, record });
    for (const name of names) {
      const space = driver.namespace(name);
      for (let index = 0; index < 5; index++) await write(space, `f${index}.md`);
      await write(space.namespace('inner'), 'g.md');
    }
    const memoryAdmin = createPostgresAdmin({ connectionString: databaseUrl(), schema, batch: 3 });
    cleanups.push(() => memoryAdmin.close());
    expect((await memoryAdmin.listNamespaces()).namespaces).toEqual(['a', 'a-b', 'a.b', 'ab', 'b']);
    const batches: number[] = [];
    await memoryAdmin.dropNamespace('a', { onProgress: (progress) => batches.push(progress.removed) });
    expect(batches.length).toBeGreaterThan(3);
    const s = `"${schema}"`;
    for (const table of ['files', 'versions', 'totals']) {
      const { rows } = await admin.query(`SELECT DISTINCT ns FROM ${s}.${table} ORDER BY ns`);
      expect(
        rows.map((row) => row.ns),
        table,
      ).toEqual(['a-b', 'a-b/inner', 'a.b', 'a.b/inner', 'ab', 'ab/inner', 'b', 'b/inner']);
    }
    const left = await admin.query(`SELECT ns, count(*)::int AS n FROM ${s}.files GROUP BY ns ORDER BY ns`);
    expect(left.rows.every((row) => row.n === (row.ns.endsWith('/inner') ? 1 : 5))).toBe(true);
    expect((await memoryAdmin.listNamespaces()).namespaces).toEqual(['a-b', 'a.b', 'ab', 'b']);
    // Written to again, it starts its version ids from 1.
    await write(driver.namespace('a'), 'new.md');
    const page = await driver.namespace('a').listVersions!({ limit: 10 });
    expect(page.versions.map((version) => version.id)).toEqual(['memver_0000000000000001']);
    await checkHistory(schema);
  });

  it("listNamespaces, usage and a file's history are one round trip each, by index", async () => {
    const schema = schemaForTest();
    const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
    cleanups.push(() => driver.close());
    await driver.setup();
    const s = `"${schema}"`;
    // 20,000 namespaces of one file each, and one busy file.
    await admin.query(
      `INSERT INTO ${s}.totals (ns, bytes, files) SELECT 'user-' || lpad(i::text, 5, '0'), 1, 1 FROM generate_series(1, 20000) i`,
    );
    await admin.query(`ANALYZE ${s}.totals`);
    const stats = () => ({ roundTrips: 0, requests: 0, retries: 0 });
    const listing = stats();
    const page = await driver.listNamespaces!({ prefix: 'user-1', limit: 5 }, { stats: listing });
    expect(page.names).toEqual(['user-10000', 'user-10001', 'user-10002', 'user-10003', 'user-10004']);
    expect(listing.roundTrips).toBe(1);
    const { historyStatements } = await import('../src/history-statements.js');
    const plan = await admin.query(
      `EXPLAIN (COSTS OFF) ${historyStatements(s)
        .listNamespaces.replaceAll('$1::text', "''")
        .replaceAll('$2::integer', '0')
        .replaceAll('$3::text', "'user-1'")
        .replaceAll('$4::text', 'NULL::text')
        .replaceAll('$5::text', "''")
        .replaceAll('$6::text', "'user-1'")
        .replaceAll('$7', '6')}`,
    );
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('totals_tree');
    expect(text).not.toMatch(/Seq Scan/);
    const usage = stats();
    expect(await driver.namespace('user-00042').usage!({ stats: usage })).toEqual({
      files: 1,
      bytes: 1,
      versions: 0,
      lastChangeAt: null,
    });
    expect(usage.roundTrips).toBe(1);
  });
});
