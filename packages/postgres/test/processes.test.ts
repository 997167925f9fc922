// Several processes on one database: setup races, no lost update, one winner per path, and a file
// and a folder never both holding one name.
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  otherDatabase,
  runWorkers,
  testPool,
  type WorkerResult,
} from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());

describe('several processes on one database', () => {
  it('8 processes running setup at once on an empty database all succeed, and the layout is made once', async () => {
    const database = `mdt_setup_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE "${database}"`);
    try {
      const url = otherDatabase(database);
      const results = await runWorkers(Array.from({ length: 8 }, () => [url, 'memdir', 'setup']));
      expect(results).toEqual(Array(8).fill({ ok: true }));
      const store = createPostgresStore({ connectionString: url });
      await store.create({ command: 'create', path: '/memories/a.md', file_text: 'works' });
      expect(await store.view({ command: 'view', path: '/memories/a.md' })).toContain('works');
      await store.close();
      const check = testPool({ connectionString: url });
      const { rows } = await check.query(
        "SELECT count(*)::int AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE s.nspname = 'memdir' AND p.proname = 'write_v1'",
      );
      expect(rows[0].n).toBe(1);
      await check.end();
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    }
  }, 60_000);

  it('4 processes x 250 concurrent inserts into one file leave 1000 lines, none twice', async () => {
    const schema = freshSchema();
    try {
      const store = createPostgresStore({ connectionString: databaseUrl(), schema });
      await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
      await store.close();
      const inserts = (who: number) =>
        Array.from({ length: 250 }, (_, index) => ({
          command: 'insert',
          path: '/memories/log.md',
          insert_line: index % 2,
          insert_text: `p${who}-${index}\n`,
        }));
      const results = (await runWorkers(
        [0, 1, 2, 3].map((who) => [databaseUrl(), schema, 'run', JSON.stringify(inserts(who))]),
      )) as WorkerResult[][];
      // Failures counted by message, so that a failing run says what went wrong.
      const failed: Record<string, number> = {};
      for (const result of results.flat()) {
        if (result.ok === 'The file /memories/log.md has been edited.') continue;
        const key = `${result.code}: ${result.error}`;
        failed[key] = (failed[key] ?? 0) + 1;
      }
      expect(failed).toEqual({});
      const { rows } = await admin.query(
        `SELECT convert_from(content, 'UTF8') AS text FROM "${schema}".files`,
      );
      const lines = (rows[0].text as string).split('\n');
      expect(lines).toHaveLength(1001);
      expect(new Set(lines).size).toBe(1001);
      const expected = [0, 1, 2, 3].flatMap((who) =>
        inserts(who).map((command) => command.insert_text.trim()),
      );
      expect(lines.filter((line) => line !== '# log').sort()).toEqual(expected.sort());
    } finally {
      await dropSchema(admin, schema);
    }
  }, 120_000);

  it('racing creates with overwrite: false from 4 processes have exactly one winner per path', async () => {
    const schema = freshSchema();
    try {
      const paths = Array.from({ length: 25 }, (_, index) => `/memories/claims/c${index}.md`);
      const creates = (who: number) =>
        paths.map((path) => ({ command: 'create', path, file_text: `writer ${who}` }));
      const results = (await runWorkers(
        [0, 1, 2, 3].map((who) => [
          databaseUrl(),
          schema,
          'run',
          JSON.stringify(creates(who)),
          JSON.stringify({ overwrite: false }),
        ]),
      )) as WorkerResult[][];
      const { rows } = await admin.query(
        `SELECT path, convert_from(content, 'UTF8') AS text FROM "${schema}".files`,
      );
      const content = new Map(rows.map((row) => [`/memories/${row.path}`, row.text as string]));
      paths.forEach((path, index) => {
        const outcomes = results.map((worker) => worker[index]!);
        const winners = outcomes.flatMap((outcome, who) => (outcome.ok === undefined ? [] : [who]));
        expect(winners, path).toHaveLength(1);
        expect(outcomes[winners[0]!]).toEqual({ ok: `File created successfully at: ${path}` });
        for (const outcome of outcomes.filter((candidate) => candidate.ok === undefined)) {
          expect(outcome).toEqual({ code: 'ALREADY_EXISTS', error: `File ${path} already exists` });
        }
        expect(content.get(path)).toBe(`writer ${winners[0]}`);
      });
    } finally {
      await dropSchema(admin, schema);
    }
  }, 120_000);

  it('a file and a folder racing for one name from 4 processes: never both, and the loser is told why', async () => {
    const schema = freshSchema();
    try {
      const names = Array.from({ length: 30 }, (_, index) => `n${index}`);
      // Processes 0 and 2 create the name as a file, 1 and 3 a file inside it (making it a folder).
      const commands = (who: number) =>
        names.map((name) => ({
          command: 'create',
          path: who % 2 === 0 ? `/memories/${name}` : `/memories/${name}/inner-${who}.md`,
          file_text: `from ${who}`,
        }));
      const results = (await runWorkers(
        [0, 1, 2, 3].map((who) => [databaseUrl(), schema, 'run', JSON.stringify(commands(who))]),
      )) as WorkerResult[][];
      const { rows } = await admin.query<{ path: string }>(`SELECT path FROM "${schema}".files`);
      const paths = new Set(rows.map((row) => row.path));
      names.forEach((name, index) => {
        const asFile = paths.has(name);
        const asFolder = [...paths].some((path) => path.startsWith(`${name}/`));
        expect(asFile !== asFolder, name).toBe(true);
        for (const [who, worker] of results.entries()) {
          const outcome = worker[index]!;
          if (outcome.ok !== undefined) continue;
          expect(outcome.code).toBe('PATH_CONFLICT');
          expect(outcome.error).toBe(
            who % 2 === 0
              ? `The path /memories/${name} is a directory`
              : `Cannot create /memories/${name}/inner-${who}.md: /memories/${name} is a file`,
          );
        }
      });
    } finally {
      await dropSchema(admin, schema);
    }
  }, 120_000);

  it('4 processes racing to fill a namespace never pass its quota, not by one byte, nor by one file', async () => {
    const schema = freshSchema();
    try {
      // Bytes: creates of new files, inserts and growing replacements, 4 x 120 changes of 9 to 40
      // bytes against a quota of 3,000 bytes. Files: 4 x 60 new files against a quota of 100.
      const grow = (who: number) =>
        Array.from({ length: 120 }, (_, index) =>
          index % 3 === 0
            ? {
                command: 'create',
                path: `/memories/p${who}/f${index}.md`,
                file_text: 'x'.repeat(31 + (index % 10)),
              }
            : index % 3 === 1
              ? {
                  command: 'insert',
                  path: '/memories/shared.md',
                  insert_line: 0,
                  insert_text: `p${who}-${index}`,
                }
              : { command: 'create', path: `/memories/p${who}/grow.md`, file_text: 'g'.repeat(index) },
        );
      const many = (who: number) =>
        Array.from({ length: 60 }, (_, index) => ({
          command: 'create',
          path: `/memories/f/${who}-${index}.md`,
          file_text: 'f',
        }));
      const store = createPostgresStore({ connectionString: databaseUrl(), schema, namespace: 'bytes' });
      await store.create({ command: 'create', path: '/memories/shared.md', file_text: 'shared' });
      await store.close();
      const results = (await runWorkers([
        ...[0, 1, 2, 3].map((who) => [
          databaseUrl(),
          schema,
          'run',
          JSON.stringify(grow(who)),
          JSON.stringify({ namespace: 'bytes', quota: { maxBytes: 3_000 } }),
        ]),
        ...[0, 1, 2, 3].map((who) => [
          databaseUrl(),
          schema,
          'run',
          JSON.stringify(many(who)),
          JSON.stringify({ namespace: 'files', quota: { maxFiles: 100 } }),
        ]),
      ])) as WorkerResult[][];
      for (const result of results.flat()) {
        if (result.code !== undefined) expect(result.code).toBe('QUOTA_EXCEEDED');
      }
      const { rows } = await admin.query(
        `SELECT ns, sum(size)::int AS bytes, count(*)::int AS files FROM "${schema}".files GROUP BY ns ORDER BY ns`,
      );
      const [bytes, files] = rows;
      expect(bytes.bytes).toBeLessThanOrEqual(3_000);
      // Full up to less than the smallest change that could have been made.
      expect(bytes.bytes).toBeGreaterThan(3_000 - 60);
      expect(files).toEqual({ ns: 'files', bytes: 100, files: 100 });
      const refused = results
        .slice(4)
        .flat()
        .filter((result) => result.code === 'QUOTA_EXCEEDED');
      expect(refused).toHaveLength(140);
      expect(refused[0]?.error).toBe(
        'The memory directory is full: it holds 100 of 100 files. Delete files in /memories first.',
      );
      const kept = await admin.query(`SELECT ns, bytes::int, files::int FROM "${schema}".totals ORDER BY ns`);
      expect(kept.rows).toEqual(rows);
    } finally {
      await dropSchema(admin, schema);
    }
  }, 120_000);
});
