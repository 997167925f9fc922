// What the change functions read as a namespace grows from nothing within one session. PL/pgSQL
// keeps a generic plan per session for each statement of a function, made from what the planner
// knew of the table at the time: a statement planned while the table was small must not turn into
// a scan of the namespace once it is large, or each new file costs more than the last (a copy of
// 10,000 files into an empty schema slowed from 1,900 to 230 files/s before the check of a new
// path's ancestors became one probe by primary key per ancestor). Counted in the server's own
// statistics of the tuples read, not timed.
import type { ChangeRecord, DriverPath } from '@memdir/core';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDriver } from '../src/index.js';
import { dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
const schemas: string[] = [];

afterAll(async () => {
  for (const schema of schemas) await dropSchema(admin, schema);
  await admin.end();
});

/** Index entries and heap tuples read from the files table of `schema` so far, with its inserts. */
async function reads(pool: pg.Pool, schema: string): Promise<{ read: number; inserted: number }> {
  const { rows } = await pool.query(
    `SELECT coalesce(t.seq_tup_read, 0) + coalesce(t.idx_tup_fetch, 0)
        + coalesce((SELECT sum(i.idx_tup_read) FROM pg_catalog.pg_stat_user_indexes i WHERE i.relid = t.relid), 0) AS read,
      t.n_tup_ins AS inserted
     FROM pg_catalog.pg_stat_user_tables t WHERE t.schemaname = $1 AND t.relname = 'files'`,
    [schema],
  );
  return { read: Number(rows[0]?.read ?? 0), inserted: Number(rows[0]?.inserted ?? 0) };
}

/**
 * The counters once the backends that wrote `inserted` files have reported them (a backend sends
 * its statistics at most once a second while busy, and all of them as it exits).
 */
async function settledReads(schema: string, inserted: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await reads(admin, schema);
    if (now.inserted >= inserted) return now.read;
    if (Date.now() > deadline) throw new Error(`the statistics show ${now.inserted} of ${inserted} inserts`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('plans as a namespace grows within one session', () => {
  it.each([
    ['history off', false],
    ['history on', true],
  ])('%s: 1,500 new files, one connection, a few tuples read per file', async (_label, history) => {
    const schema = freshSchema('mdt_plans');
    schemas.push(schema);
    // One connection: every write runs in the session that planned the statements at the start.
    const pool = testPool({ max: 1 });
    const driver = createPostgresDriver({ pool, schema });
    const files = 1_500;
    const record: ChangeRecord = {
      actor: null,
      command: 'create',
      toolUseId: null,
      keepVersions: 10,
      keepDays: 30,
    };
    try {
      for (let index = 0; index < files; index++) {
        await driver.write(`d${index % 10}/f${index}.md` as DriverPath, `file ${index}\n`, {
          op: `plans-${schema}-${index}`,
          expect: { absent: true },
          ...(history ? { record } : {}),
        });
      }
      // 100 reads, a tuple or two each: proof that the counters below count this schema's reads.
      for (let index = 0; index < 100; index++) {
        expect(await driver.read(`d${index % 10}/f${index}.md` as DriverPath)).toMatchObject({
          kind: 'file',
        });
      }
    } finally {
      await driver.close();
      await pool.end();
    }
    const read = await settledReads(schema, files);
    // Each new file looks at its own key, its folder's range and its ancestor: a handful of index
    // entries. A statement scanning the namespace would read about files^2 / 2 = 1,125,000.
    expect(read).toBeGreaterThanOrEqual(100);
    expect(read / files).toBeLessThan(20);
  });

  it('reads in batches while the namespace grows: a few tuples read per read', async () => {
    const schema = freshSchema('mdt_plans');
    schemas.push(schema);
    const pool = testPool({ max: 1 });
    const driver = createPostgresDriver({ pool, schema });
    const rounds = 15;
    const perRound = 100;
    let reads = 0;
    try {
      for (let round = 0; round < rounds; round++) {
        for (let index = round * perRound; index < (round + 1) * perRound; index++) {
          await driver.write(`d${index % 10}/f${index}.md` as DriverPath, `file ${index}\n`, {
            op: `plans-${schema}-${index}`,
          });
        }
        // The round's files, folders and missing paths, all at once: they go in batches.
        const paths = [
          ...Array.from({ length: perRound }, (_, index) => `d${index % 10}/f${round * perRound + index}.md`),
          ...Array.from({ length: 10 }, (_, index) => `d${index}`),
          ...Array.from({ length: 18 }, (_, index) => `d${index % 10}/missing${index}.md`),
        ];
        const nodes = await Promise.all(paths.map((file) => driver.read(file as DriverPath)));
        expect(nodes.map((node) => node?.kind ?? null)).toEqual(
          paths.map((file) =>
            file.includes('missing') ? null : file.endsWith('.md') ? 'file' : 'directory',
          ),
        );
        reads += paths.length;
      }
    } finally {
      await driver.close();
      await pool.end();
    }
    const read = await settledReads(schema, rounds * perRound);
    expect(read).toBeGreaterThanOrEqual(rounds * perRound);
    // A file's key and row, a folder's first entry: a statement scanning the namespace would read
    // about 750 per read here.
    expect(read / reads).toBeLessThan(10);
  });
});
