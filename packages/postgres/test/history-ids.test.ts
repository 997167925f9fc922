// A history past its exact range: a namespace whose version counter (totals.seq) is past 2^53 - 1,
// as an import made before imports were checked could leave it (ids were sent rounded, and the
// counter followed). A change is refused whole by the server (advance_v3, SQLSTATE MD002) with the
// kit's words, and nothing of it is written: no file, no version, no counter moved.
import type pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const OUT_OF_IDS = {
  code: 'BACKEND',
  reason: 'misconfigured',
  message:
    "The memory store is unavailable: its history holds a version id past memver_9007199254740991, the highest that stays exact, so no change can be recorded; copy the files to a store with a new history. Trying again will not help until the store's configuration is fixed.",
};

/** A store of a fresh schema holding /memories/a.md, whose version counter is then set to `seq`. */
async function storeAt(seq: string) {
  const schema = freshSchema('mdt_ids');
  cleanups.push(() => dropSchema(admin, schema));
  const store = createPostgresStore({ connectionString: databaseUrl(), schema });
  cleanups.push(() => store.close());
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
  await admin.query(`UPDATE "${schema}".totals SET seq = $1::bigint`, [seq]);
  const snapshot = async (client: pg.Pool) => ({
    files: (await client.query(`SELECT path FROM "${schema}".files ORDER BY path`)).rows,
    versions: (await client.query(`SELECT seq::text FROM "${schema}".versions ORDER BY seq`)).rows,
    totals: (await client.query(`SELECT seq::text, files, bytes FROM "${schema}".totals`)).rows,
  });
  return { store, snapshot: () => snapshot(admin) };
}

describe('a history past its exact range', () => {
  for (const seq of ['10000000000000000', '9007199254740991']) {
    it(`counter at ${seq}: create, str_replace, rename and delete are refused with BACKEND and change nothing`, async () => {
      const { store, snapshot } = await storeAt(seq);
      const before = await snapshot();
      for (const change of [
        () => store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' }),
        () =>
          store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' }),
        () => store.rename({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/c.md' }),
        () => store.delete({ command: 'delete', path: '/memories/a.md' }),
      ]) {
        await expect(change()).rejects.toMatchObject(OUT_OF_IDS);
      }
      expect(await snapshot()).toEqual(before);
      expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
        "Here's the content of /memories/a.md with line numbers:\n     1\ta",
      );
    });
  }

  it('the last exact id is given out, and only the one after it is refused', async () => {
    const { store } = await storeAt('9007199254740990');
    await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' });
    const history = store as unknown as {
      history(query: object): Promise<{ versions: Array<{ id: string }> }>;
    };
    const { versions } = await history.history({ path: '/memories/b.md', limit: 10 });
    expect(versions.map((version) => version.id)).toEqual(['memver_9007199254740991']);
    await expect(
      store.create({ command: 'create', path: '/memories/c.md', file_text: 'c' }),
    ).rejects.toMatchObject(OUT_OF_IDS);
  });

  it('with history off, changes go on: no id is taken', async () => {
    const schema = freshSchema('mdt_ids');
    cleanups.push(() => dropSchema(admin, schema));
    const first = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => first.close());
    await first.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await admin.query(`UPDATE "${schema}".totals SET seq = 10000000000000000`);
    const store = createPostgresStore({ connectionString: databaseUrl(), schema, history: false });
    cleanups.push(() => store.close());
    expect(await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' })).toBe(
      'File created successfully at: /memories/b.md',
    );
  });
});
