// What only the PostgreSQL store does: its layout, exact content, literal names, UTF-16 order under
// a cut listing, operation ids, collations, privileges and isolation levels.
import { createInMemoryStore, type DriverPath, type MemoryStoreOptions } from '@memdir/core';
import { createOwningStore, wrapDriver } from '@memdir/core/driver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresDriver, createPostgresStore, type PostgresMemoryStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, otherDatabase, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A store on a fresh schema, closed and dropped after the test. */
function openStore(options: MemoryStoreOptions = {}): { store: PostgresMemoryStore; schema: string } {
  const schema = freshSchema();
  const store = createPostgresStore({ connectionString: databaseUrl(), schema, ...options });
  cleanups.push(() => dropSchema(admin, schema));
  cleanups.push(() => store.close());
  return { store, schema };
}

const p = (path: string) => path as DriverPath;

/** A bare driver on a fresh schema, closed and dropped after the test. */
function scratchDriver() {
  const schema = freshSchema();
  const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
  cleanups.push(() => dropSchema(admin, schema));
  cleanups.push(() => driver.close());
  return driver;
}

describe('layout', () => {
  it('keeps one row per file: namespace chain, path without /memories/, UTF-8 bytes, size', async () => {
    const { store, schema } = openStore();
    const nested = createPostgresDriver({ connectionString: databaseUrl(), schema });
    cleanups.push(() => nested.close());
    await store.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'héllo' });
    await nested.namespace('team').namespace('bob').write(p('x.md'), 'x', { op: 'op-layout-1' });
    const { rows } = await admin.query(
      `SELECT ns, path, content, size FROM "${schema}".files ORDER BY ns, path`,
    );
    expect(rows).toEqual([
      { ns: '', path: 'notes/a.md', content: Buffer.from('héllo'), size: 6 },
      { ns: 'team/bob', path: 'x.md', content: Buffer.from('x'), size: 1 },
    ]);
    const columns = await admin.query(
      `SELECT column_name, collation_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'files' AND data_type = 'text' ORDER BY column_name`,
      [schema],
    );
    expect(columns.rows).toEqual([
      { column_name: 'file_id', collation_name: 'C' },
      { column_name: 'ns', collation_name: 'C' },
      { column_name: 'path', collation_name: 'C' },
      { column_name: 'version', collation_name: 'C' },
    ]);
  });

  it('setup runs once per driver: later calls cost one round trip each', async () => {
    const { store, schema } = openStore();
    await store.setup();
    await store.setup();
    const { rows } = await admin.query(
      `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 ORDER BY 1`,
      [schema],
    );
    // Layout 4's functions, and layouts 1 to 3's change functions as wrappers (an older release goes on).
    expect(rows.map((row) => row.proname)).toEqual([
      'advance_v3',
      'ancestors_v3',
      'borders_v2',
      'bulk_count_v2',
      'describe_v3',
      'drop_v3',
      'edit_v2',
      'edit_v3',
      'edit_v4',
      'fill_v4',
      'find_v2',
      'import_v3',
      'installed_v1',
      'installed_v2',
      'installed_v3',
      'installed_v4',
      'kmp_v2',
      'line_start_v2',
      'lines_of_v2',
      'list_records_v4',
      'listing_key_v1',
      'move_v1',
      'move_v2',
      'move_v3',
      'move_v4',
      'newline_after_v2',
      'newline_before_v2',
      'newlines_v2',
      'occurrences_v2',
      'prune_v3',
      'record_v4',
      'remove_v1',
      'remove_v2',
      'remove_v3',
      'remove_v4',
      'restore_v3',
      'restore_v4',
      'revision_v3_2',
      'revision_v4_2',
      'run_end_v2',
      'snippet_v2',
      'sweep_v3',
      'update_by_id_v4',
      'utf16_key_v1',
      'write_v1',
      'write_v2',
      'write_v3',
      'write_v4',
    ]);
  });

  it('the listing is one index range scan on the primary key, whatever else the table holds', async () => {
    const { store, schema } = openStore();
    await store.create({ command: 'create', path: '/memories/a/b.md', file_text: 'b' });
    await admin.query(
      `INSERT INTO "${schema}".files (ns, path, content, version) SELECT 'other', 'f' || i, '\\x00'::bytea, 'v' FROM generate_series(1, 20000) i`,
    );
    await admin.query(`ANALYZE "${schema}".files`);
    // The directory's statement, as describe_v3 runs it when no file is at the path.
    const { describe, quoteIdentifier } = await import('../src/sql.js');
    const plan = await admin.query(
      `EXPLAIN (COSTS OFF) ${describe(quoteIdentifier(schema), false, false, true).replaceAll('$1', "''").replaceAll('$2', "'a'").replaceAll('$3', '1000').replaceAll('$4', "'a/'").replaceAll('$5', "'a0'")}`,
    );
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index (Only )?Scan using files_pkey/);
    expect(text).toContain("(path >= 'a/'::text) AND (path < 'a0'::text)");
    expect(text).not.toMatch(/Seq Scan/);
  });
});

describe('describe_v3', () => {
  it('a schema of layout 3 made before describe_v3 gets it at the next setup, and views work', async () => {
    const { store, schema } = openStore();
    await store.create({ command: 'create', path: '/memories/a/b.md', file_text: 'b' });
    await admin.query(`DROP FUNCTION "${schema}".describe_v3`);
    // A new store on the same schema: its setup finds layout 3 without the function.
    const again = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => again.close());
    expect(await again.view({ command: 'view', path: '/memories/a/b.md' })).toBe(
      "Here's the content of /memories/a/b.md with line numbers:\n     1\tb",
    );
    expect(await again.view({ command: 'view', path: '/memories/a' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories/a, excluding hidden items and node_modules:\n1B\t/memories/a\n1B\t/memories/a/b.md",
    );
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'describe_v3'`,
      [schema],
    );
    expect(rows[0].n).toBe(1);
  });

  it("a schema of layout 4 with an earlier release's function bodies gets this release's at the next setup", async () => {
    const { store, schema } = openStore();
    await store.create({ command: 'create', path: '/memories/a/b.md', file_text: 'b' });
    // As a release before the revision left it: write_v4 checked a new path's ancestors with one
    // `= ANY` statement, and there was no revision marker.
    const definition = async () =>
      String(
        (
          await admin.query(`SELECT pg_catalog.pg_get_functiondef($1::regprocedure) AS d`, [
            `"${schema}".write_v4(text,text,bytea,text,text,text[],bigint,bigint,integer,text[],jsonb,text)`,
          ])
        ).rows[0].d,
      );
    const current = await definition();
    expect(current).toContain('FOREACH v_conflict IN ARRAY p_ancestors');
    const earlier = current.replace(
      /FOREACH v_conflict IN ARRAY p_ancestors LOOP[\s\S]*?END LOOP;/,
      `SELECT path INTO v_conflict FROM "${schema}".files WHERE ns = p_ns AND path = ANY (p_ancestors) LIMIT 1;
    IF FOUND THEN RETURN 'p' || v_conflict; END IF;`,
    );
    expect(earlier).not.toBe(current);
    await admin.query(earlier);
    await admin.query(`DROP FUNCTION "${schema}".revision_v4_2`);
    const again = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => again.close());
    expect(await again.create({ command: 'create', path: '/memories/a/c.md', file_text: 'c' })).toBe(
      'File created successfully at: /memories/a/c.md',
    );
    await expect(
      again.create({ command: 'create', path: '/memories/a/b.md/d.md', file_text: 'd' }),
    ).rejects.toThrow('Cannot create /memories/a/b.md/d.md: /memories/a/b.md is a file');
    expect(await definition()).toBe(current);
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'revision_v4_2'`,
      [schema],
    );
    expect(rows[0].n).toBe(1);
  });

  it('a role that may not add describe_v3 to a schema set up before it views through the single statement', async () => {
    const schema = freshSchema();
    const user = `mdt_viewer_${process.pid}_${Date.now()}`;
    const setupStore = createPostgresStore({ connectionString: databaseUrl(), schema });
    await setupStore.create({ command: 'create', path: '/memories/a/b.md', file_text: 'b' });
    await setupStore.close();
    await admin.query(`DROP FUNCTION "${schema}".describe_v3`);
    await admin.query(`CREATE ROLE "${user}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO "${user}"`);
    await admin.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO "${user}"`,
    );
    cleanups.push(async () => {
      await dropSchema(admin, schema);
      await admin.query(`DROP OWNED BY "${user}"`);
      await admin.query(`DROP ROLE IF EXISTS "${user}"`);
    });
    const url = new URL(databaseUrl());
    url.username = user;
    const store = createPostgresStore({ connectionString: url.toString(), schema });
    cleanups.push(() => store.close());
    expect(await store.view({ command: 'view', path: '/memories/a/b.md' })).toBe(
      "Here's the content of /memories/a/b.md with line numbers:\n     1\tb",
    );
    expect(await store.view({ command: 'view', path: '/memories/a' })).toContain('1B\t/memories/a/b.md');
  });

  it('a store whose describe_v3 is dropped while it runs makes it again and answers', async () => {
    const { store, schema } = openStore();
    await store.create({ command: 'create', path: '/memories/a/b.md', file_text: 'b' });
    await admin.query(`DROP FUNCTION "${schema}".describe_v3`);
    expect(await store.view({ command: 'view', path: '/memories/a/b.md' })).toContain('     1\tb');
  });
});

describe('content and names', () => {
  it('content round-trips exactly: NUL, other controls, CR, a BOM, astral characters, 1 MiB', async () => {
    const { store } = openStore();
    const driver = scratchDriver();
    const texts = [
      'a\u0000b\u0000',
      '\u0001\u001f\u007f\r\n\r\t',
      '\ufeffbom',
      '\u{1f600}\ue000\uffff\u{10ffff}',
      'é'.repeat(524_288),
      '',
    ];
    for (const [index, text] of texts.entries()) {
      await driver.write(p(`f${index}`), text, { op: `op-content-${index}-${Date.now()}` });
      const node = await driver.read(p(`f${index}`));
      expect(node?.kind === 'file' && node.content === text, `text ${index}`).toBe(true);
      const described = await driver.describe!(p(`f${index}`), { limit: 10 });
      expect(described?.kind === 'file' && described.content === text, `text ${index}`).toBe(true);
    }
    await store.create({ command: 'create', path: '/memories/nul.md', file_text: 'x\u0000y' });
    expect(await store.view({ command: 'view', path: '/memories/nul.md' })).toBe(
      "Here's the content of /memories/nul.md with line numbers:\n     1\tx\u0000y",
    );
  });

  it('names are literal: _ % * ? [ ] { } \' " : and spaces match only themselves', async () => {
    const { store } = openStore();
    const names = [
      'a_b',
      'aXb',
      'a%',
      'a%b',
      'a*',
      'ab',
      'a?',
      'a[b]',
      'a{b}',
      "a'b",
      'a"b',
      'a:b',
      'a b',
      'a\\',
    ];
    const valid = names.filter((name) => !name.includes('\\'));
    for (const name of valid) {
      await store.create({ command: 'create', path: `/memories/${name}/f.md`, file_text: name });
    }
    const listing = await store.view({ command: 'view', path: '/memories/a_b' });
    expect(listing.split('\n').slice(1)).toEqual(['3B\t/memories/a_b', '3B\t/memories/a_b/f.md']);
    expect(await store.delete({ command: 'delete', path: '/memories/a*' })).toBe(
      'Successfully deleted /memories/a*',
    );
    expect(await store.delete({ command: 'delete', path: '/memories/a%' })).toBe(
      'Successfully deleted /memories/a%',
    );
    await store
      .rename({ command: 'rename', old_path: '/memories/a_b', new_path: '/memories/a?' })
      .catch((error) => {
        expect(error.code).toBe('ALREADY_EXISTS');
      });
    const left = (await store.view({ command: 'view', path: '/memories' }))
      .split('\n')
      .slice(2)
      .filter((line) => !line.endsWith('/f.md'))
      .map((line) => line.slice(line.indexOf('/memories/') + 10, -1));
    expect(left.sort()).toEqual(valid.filter((name) => name !== 'a*' && name !== 'a%').sort());
  });

  it('a cut listing follows UTF-16 order: U+1F600 before U+E000, as in the in-memory store', async () => {
    const names = ['\ue000', '\u{1f600}', '\uffff', '\u{10000}', 'z', 'a\ue000x', 'a\u{1f600}x', '\ud7ff'];
    const options = { maxViewChars: 60 };
    const { store } = openStore(options);
    const reference = createInMemoryStore(options);
    for (const name of names) {
      for (const target of [store, reference]) {
        await target.create({ command: 'create', path: `/memories/${name}`, file_text: 'x' });
        await target.create({ command: 'create', path: `/memories/d/${name}`, file_text: 'y' });
      }
    }
    for (const path of ['/memories', '/memories/d']) {
      const view = await store.view({ command: 'view', path });
      expect(view).toContain('[Listing truncated');
      expect(view).toBe(await reference.view({ command: 'view', path }));
    }
    const driver = scratchDriver();
    for (const [index, name] of names.entries())
      await driver.write(p(name), 'x', { op: `op-order-${index}-${Date.now()}` });
    const listing = await driver.describe!(p(''), { limit: 3 });
    const paths = listing?.kind === 'directory' ? listing.entries.map((entry) => entry.path).sort() : [];
    // UTF-16 order: a\u{1f600}x < a\ue000x < z < \ud7ff < \u{10000} < \u{1f600} < \ue000 < \uffff.
    expect(paths.slice(0, 3)).toEqual(['a\u{1f600}x', 'a\ue000x', 'z'].sort());
    const two = await driver.describe!(p(''), { limit: 6 });
    const six = two?.kind === 'directory' ? two.entries.map((entry) => entry.path) : [];
    expect(new Set(six)).toEqual(
      new Set(['a\u{1f600}x', 'a\ue000x', 'z', '\ud7ff', '\u{10000}', '\u{1f600}']),
    );
  });
});

describe('operation ids', () => {
  it('a replayed change returns its first outcome and applies nothing again', async () => {
    const schema = freshSchema();
    const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
    cleanups.push(() => dropSchema(admin, schema));
    cleanups.push(() => driver.close());
    const first = await driver.write(p('log.md'), 'one', { op: 'replay-op-create-000000000' });
    expect(await driver.write(p('log.md'), 'one', { op: 'replay-op-create-000000000' })).toEqual(first);
    // An edit whose reply was lost, sent again: the same version comes back, not CONFLICT (which
    // would make the engine edit again), and the line is there once.
    const edit = { expect: { version: first.version }, op: 'replay-op-insert-000000000' };
    const edited = await driver.write(p('log.md'), 'one\ntwo', edit);
    expect(await driver.write(p('log.md'), 'one\ntwo', edit)).toEqual(edited);
    await driver.move(p('log.md'), p('moved.md'), { op: 'replay-op-move-00000000000' });
    await driver.move(p('log.md'), p('moved.md'), { op: 'replay-op-move-00000000000' });
    expect(await driver.remove(p('moved.md'), { op: 'replay-op-remove-000000000' })).toBe(true);
    expect(await driver.remove(p('moved.md'), { op: 'replay-op-remove-000000000' })).toBe(true);
    expect(await driver.remove(p('moved.md'), { op: 'replay-op-remove-111111111' })).toBe(false);
    const { rows } = await admin.query(`SELECT op, outcome FROM "${schema}".ops ORDER BY at, op`);
    expect(rows.map((row) => row.op)).toEqual([
      'replay-op-create-000000000',
      'replay-op-insert-000000000',
      'replay-op-move-00000000000',
      'replay-op-remove-000000000',
    ]);
  });
});

describe('a busy file', () => {
  /** The store of the test, or the same through `update` (edit hidden): the EditQueue's batches. */
  const stores = {
    'each one call of edit_v2, ordered by the row lock': (schema: string) =>
      createPostgresStore({ connectionString: databaseUrl(), schema }),
    "through update (edit hidden), in the EditQueue's batches of reads and version-checked writes": (
      schema: string,
    ) => {
      const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
      return createOwningStore(wrapDriver(driver, { edit: undefined }), {});
    },
  };
  it.each(Object.entries(stores))(
    'concurrent edits of one file, %s: each gets its own outcome, every op id is recorded',
    async (_, make) => {
      const schema = freshSchema();
      const store = make(schema);
      cleanups.push(() => dropSchema(admin, schema));
      cleanups.push(() => store.close());
      const tokens = Array.from({ length: 40 }, (_, index) => `t${String(index).padStart(2, '0')}`);
      await store.create({ command: 'create', path: '/memories/busy.md', file_text: tokens.join('\n') });
      const results = await Promise.allSettled([
        ...tokens.map((token) =>
          store.str_replace({
            command: 'str_replace',
            path: '/memories/busy.md',
            old_str: token,
            new_str: `${token}-done`,
          }),
        ),
        store.str_replace({
          command: 'str_replace',
          path: '/memories/busy.md',
          old_str: 'missing',
          new_str: 'x',
        }),
        ...Array.from({ length: 10 }, (_, index) =>
          store.insert({
            command: 'insert',
            path: '/memories/busy.md',
            insert_line: 0,
            insert_text: `top ${index}`,
          }),
        ),
      ]);
      const failed = results.filter((result) => result.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect((failed[0] as PromiseRejectedResult).reason).toMatchObject({
        code: 'NO_MATCH',
        message:
          'No replacement was performed, old_str `missing` did not appear verbatim in /memories/busy.md.',
      });
      for (const [index, result] of results.slice(0, 40).entries()) {
        expect((result as PromiseFulfilledResult<string>).value).toContain(`${tokens[index]}-done`);
      }
      const { rows } = await admin.query(
        `SELECT convert_from(content, 'UTF8') AS text FROM "${schema}".files`,
      );
      const lines = (rows[0].text as string).split('\n');
      expect(lines.filter((line) => line.startsWith('top ')).sort()).toEqual(
        Array.from({ length: 10 }, (_, index) => `top ${index}`).sort(),
      );
      expect(lines.filter((line) => !line.startsWith('top '))).toEqual(
        tokens.map((token) => `${token}-done`),
      );
      // One op per command that changed the file (the create, 40 replacements, 10 inserts).
      const ops = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".ops`);
      expect(ops.rows[0].n).toBe(51);
    },
  );
});

describe('the server', () => {
  it('paths compare byte-wise in a database whose default collation is not C (ICU en-US)', async () => {
    const database = `mdt_icu_${process.pid}_${Date.now()}`;
    await admin.query(
      `CREATE DATABASE "${database}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
    );
    cleanups.push(() => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
    const options = { connectionString: otherDatabase(database) };
    const store = createPostgresStore(options);
    const reference = createInMemoryStore();
    cleanups.push(() => store.close());
    // In en-US, "a-b" sorts with "ab" and case folds first; in bytes "A" < "a" and "a-b" < "a.b" < "a/".
    const names = ['a/x', 'a-b/x', 'a.b', 'A', 'ab/x', 'a0', 'Zeta', 'alpha'];
    for (const target of [store, reference]) {
      for (const name of names)
        await target.create({ command: 'create', path: `/memories/${name}`, file_text: name });
    }
    for (const path of ['/memories', '/memories/a']) {
      expect(await store.view({ command: 'view', path })).toBe(
        await reference.view({ command: 'view', path }),
      );
    }
    await store.delete({ command: 'delete', path: '/memories/a' });
    await reference.delete({ command: 'delete', path: '/memories/a' });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      await reference.view({ command: 'view', path: '/memories' }),
    );
  });

  it('needs no superuser: a database owner sets up and uses the store, and so does the owner of a ready schema', async () => {
    const suffix = `${process.pid}_${Date.now()}`;
    const owner = `mdt_owner_${suffix}`;
    const user = `mdt_user_${suffix}`;
    const database = `mdt_priv_${suffix}`;
    await admin.query(`CREATE ROLE "${owner}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await admin.query(`CREATE ROLE "${user}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await admin.query(`CREATE DATABASE "${database}" OWNER "${owner}"`);
    cleanups.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS "${owner}"`);
      await admin.query(`DROP ROLE IF EXISTS "${user}"`);
    });
    const as = (role: string) => {
      const url = new URL(otherDatabase(database));
      url.username = role;
      return url.toString();
    };
    const ownerStore = createPostgresStore({ connectionString: as(owner) });
    cleanups.push(() => ownerStore.close());
    await ownerStore.create({ command: 'create', path: '/memories/a.md', file_text: 'owner' });

    // A role that may not create schemas, given one made for it by an administrator.
    const dba = testPool({ connectionString: otherDatabase(database) });
    await dba.query(`REVOKE CREATE ON DATABASE "${database}" FROM PUBLIC`);
    await dba.query(`CREATE SCHEMA app AUTHORIZATION "${user}"`);
    await dba.end();
    const userStore = createPostgresStore({ connectionString: as(user), schema: 'app' });
    cleanups.push(() => userStore.close());
    await userStore.create({ command: 'create', path: '/memories/b.md', file_text: 'user' });
    expect(await userStore.view({ command: 'view', path: '/memories/b.md' })).toContain('user');

    // Without either, setup fails with a plain message.
    const denied = createPostgresStore({ connectionString: as(user), schema: 'elsewhere' });
    cleanups.push(() => denied.close());
    await expect(denied.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      message: expect.stringContaining('permission denied'),
    });
  });

  it('a session in repeatable read is refused with a plain message; serializable works', async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(admin, schema));
    const session = (level: string) =>
      testPool({ options: `-c default_transaction_isolation=${level.replace(' ', '\\ ')}` } as never);
    const repeatable = session('repeatable read');
    const serializable = session('serializable');
    cleanups.push(() => repeatable.end());
    cleanups.push(() => serializable.end());
    const refused = createPostgresStore({ pool: repeatable, schema });
    await expect(
      refused.create({ command: 'create', path: '/memories/a.md', file_text: 'a' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'misconfigured',
      message:
        "The memory store is unavailable: the database session uses repeatable read isolation; memdir needs read committed or serializable. Trying again will not help until the store's configuration is fixed.",
    });
    const store = createPostgresStore({ pool: serializable, schema });
    const other = createPostgresStore({ pool: serializable, schema, overwrite: false });
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, index) =>
        other.create({ command: 'create', path: '/memories/race.md', file_text: `${index}` }),
      ),
      ...Array.from({ length: 10 }, (_, index) =>
        store.create({ command: 'create', path: `/memories/race.md/${index}`, file_text: `${index}` }),
      ),
    ]);
    const { rows } = await admin.query<{ path: string }>(`SELECT path FROM "${schema}".files`);
    const paths = rows.map((row) => row.path);
    // Never both a file race.md and files beneath it.
    expect(paths.includes('race.md') && paths.some((path) => path.startsWith('race.md/'))).toBe(false);
    expect(paths.length).toBeGreaterThan(0);
    for (const result of results) {
      if (result.status === 'rejected')
        expect(['ALREADY_EXISTS', 'PATH_CONFLICT']).toContain(result.reason.code);
    }
  });

  it("a user's pool is never ended by the store; the store's own pool is", async () => {
    const pool = testPool();
    cleanups.push(() => pool.end());
    const schema = freshSchema();
    cleanups.push(() => dropSchema(admin, schema));
    const store = createPostgresStore({ pool, schema, namespace: 'n' });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    const own = createPostgresDriver({ connectionString: databaseUrl(), schema });
    await own.read(p('a.md'));
    await own.close();
    await own.close();
    await expect(own.read(p('a.md'))).rejects.toMatchObject({ code: 'BACKEND' });
  });
});
