// Layout 1 (the wave-2 release) upgraded to layout 3 in place, and layout 2 (phase A) likewise: from a real layout 1 schema (the
// fixture is that release's own setup SQL), by the first command, by `memdir migrate`, and by 8
// processes at once while processes of the old release keep writing through its functions. After
// each, the namespace totals are exactly what the files hold, and the old functions keep them so.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../src/cli.js';
import { createPostgresAdmin, createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, runWorkers, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const LAYOUT_1 = readFileSync(new URL('./fixtures/layout-1.sql', import.meta.url), 'utf8');
const LAYOUT_2 = readFileSync(new URL('./fixtures/layout-2.sql', import.meta.url), 'utf8');

/** A schema with layout 1 as the wave-2 release made it, and some files written through it. */
async function layout1Schema(): Promise<string> {
  const schema = freshSchema('mdt_v1');
  cleanups.push(() => dropSchema(admin, schema));
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.query(LAYOUT_1.replaceAll('__SCHEMA__', schema));
  const files: Array<[string, string, string]> = [
    ['', 'notes/a.md', 'alpha'],
    ['', 'notes/b.md', 'héllo wörld'],
    ['', 'top.md', 'x'.repeat(1000)],
    ['alice', 'x.md', '😀'],
    ['alice/nested', 'deep/y.md', 'nested'],
    ['bob', 'z.md', ''],
  ];
  for (const [index, [ns, path, text]] of files.entries()) {
    await admin.query(`SELECT "${schema}".write_v1($1, $2, $3, NULL, $4, $5)`, [
      ns,
      path,
      Buffer.from(text),
      `layout1-op-${index}-${schema}`,
      path
        .split('/')
        .slice(0, -1)
        .map((_, at, parts) => parts.slice(0, at + 1).join('/')),
    ]);
  }
  return schema;
}

/** The totals kept, and the totals the files hold, by namespace. */
async function totals(schema: string) {
  const kept = await admin.query(
    `SELECT ns, bytes::int, files::int FROM "${schema}".totals WHERE files > 0 OR bytes > 0 ORDER BY ns`,
  );
  const counted = await admin.query(
    `SELECT ns, sum(size)::int AS bytes, count(*)::int AS files FROM "${schema}".files GROUP BY ns ORDER BY ns`,
  );
  return { kept: kept.rows, counted: counted.rows };
}

async function installed(schema: string): Promise<string[]> {
  const { rows } = await admin.query(
    `SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 AND p.proname LIKE 'installed_v%' ORDER BY 1`,
    [schema],
  );
  return rows.map((row) => row.proname);
}

describe('upgrading layout 1 in place', () => {
  it('the first command upgrades it: files intact, totals counted, quotas judged on them', async () => {
    const schema = await layout1Schema();
    expect(await installed(schema)).toEqual(['installed_v1']);
    const store = createPostgresStore({ connectionString: databaseUrl(), schema, quota: { maxBytes: 1020 } });
    cleanups.push(() => store.close());
    expect(await store.view({ command: 'view', path: '/memories/notes/b.md' })).toBe(
      "Here's the content of /memories/notes/b.md with line numbers:\n     1\théllo wörld",
    );
    expect(await installed(schema)).toEqual(['installed_v1', 'installed_v2', 'installed_v3', 'installed_v4']);
    const { kept, counted } = await totals(schema);
    expect(kept).toEqual(counted);
    expect(kept).toContainEqual({ ns: '', bytes: 1018, files: 3 });
    // 1,018 bytes held: 2 more fit, 3 do not.
    await expect(
      store.create({ command: 'create', path: '/memories/c.md', file_text: 'abc' }),
    ).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(
      await store.str_replace({
        command: 'str_replace',
        path: '/memories/notes/a.md',
        old_str: 'alpha',
        new_str: 'alphaXY',
      }),
    ).toContain('alphaXY');
    const alice = createPostgresStore({ connectionString: databaseUrl(), schema, namespace: 'alice' });
    cleanups.push(() => alice.close());
    expect(await alice.view({ command: 'view', path: '/memories' })).toContain('4B\t/memories/x.md');
  });

  it("layout 1's functions, as a release still running calls them, keep the totals right", async () => {
    const schema = await layout1Schema();
    const store = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => store.close());
    await store.setup();
    const s = `"${schema}"`;
    expect(
      (
        await admin.query(
          `SELECT ${s}.write_v1('', 'old/new.md', '\\x616263', NULL, 'old-op-1', '{old}') AS o`,
        )
      ).rows[0].o,
    ).toMatch(/^v/);
    await admin.query(`SELECT ${s}.write_v1('', 'top.md', '\\x61', NULL, 'old-op-2', '{}')`);
    await admin.query(`SELECT ${s}.move_v1('', 'notes', 'moved', 'old-op-3', '{}')`);
    expect((await admin.query(`SELECT ${s}.remove_v1('', 'moved', 'old-op-4') AS o`)).rows[0].o).toBe('t');
    const { kept, counted } = await totals(schema);
    expect(kept).toEqual(counted);
    expect(kept).toContainEqual({ ns: '', bytes: 4, files: 2 });
  });

  it('memdir migrate upgrades it and says so; running it again is fine', async () => {
    const schema = await layout1Schema();
    const url = new URL(databaseUrl());
    url.searchParams.set('schema', schema);
    expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
    expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
    expect(await installed(schema)).toEqual(['installed_v1', 'installed_v2', 'installed_v3', 'installed_v4']);
    const { kept, counted } = await totals(schema);
    expect(kept).toEqual(counted);
  });

  it('8 processes upgrade at once while 2 processes of the old release write through layout 1: totals exact', async () => {
    const schema = await layout1Schema();
    const url = databaseUrl();
    const results = await runWorkers([
      ...Array.from({ length: 8 }, () => [url, schema, 'setup']),
      [url, schema, 'layout1-writes', '300', 'w1'],
      [url, schema, 'layout1-writes', '300', 'w2'],
    ]);
    expect(results.slice(0, 8)).toEqual(Array(8).fill({ ok: true }));
    expect(results.slice(8)).toEqual([{ ok: true }, { ok: true }]);
    expect(await installed(schema)).toEqual(['installed_v1', 'installed_v2', 'installed_v3', 'installed_v4']);
    const { kept, counted } = await totals(schema);
    expect(kept).toEqual(counted);
    const functions = await admin.query(
      `SELECT count(*)::int AS n FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'write_v2'`,
      [schema],
    );
    expect(functions.rows[0].n).toBe(1);
  }, 120_000);
});

describe('upgrading layout 2 in place', () => {
  it('memdir migrate adds history and expiry: files, totals and old functions intact, history recorded from then on, nothing expires for want of a change time', async () => {
    const schema = freshSchema('mdt_v2');
    cleanups.push(() => dropSchema(admin, schema));
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(LAYOUT_2.replaceAll('__SCHEMA__', schema));
    const s = `"${schema}"`;
    const write2 = (ns: string, path: string, text: string, op: string) =>
      admin.query(`SELECT ${s}.write_v2($1, $2, $3, NULL, $4, '{}', NULL, NULL, NULL, '{}') AS o`, [
        ns,
        path,
        Buffer.from(text),
        `${op}-${schema}`,
      ]);
    await write2('', 'a.md', 'alpha', 'l2-1');
    await write2('alice', 'b.md', 'beta', 'l2-2');
    expect(await installed(schema)).toEqual(['installed_v1', 'installed_v2']);

    const url = new URL(databaseUrl());
    url.searchParams.set('schema', schema);
    expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
    expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
    expect(await installed(schema)).toEqual(['installed_v1', 'installed_v2', 'installed_v3', 'installed_v4']);
    const before = await totals(schema);
    expect(before.kept).toEqual(before.counted);

    // A release of layout 2 still running: its functions keep working, and keep the totals.
    expect((await write2('', 'old.md', 'from layout 2', 'l2-3')).rows[0].o).toMatch(/^v/);
    const store = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => store.close());
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'alpha',
      new_str: 'gamma',
    });
    const page = await store.history({ path: '/memories/a.md' });
    expect(page.versions.map((version) => [version.operation, version.command])).toEqual([
      ['modified', 'str_replace'],
    ]);
    expect(page.versions[0]!.fileId).toMatch(/^mem_/);
    const after = await totals(schema);
    expect(after.kept).toEqual(after.counted);

    const memoryAdmin = createPostgresAdmin({ connectionString: databaseUrl(), schema });
    cleanups.push(() => memoryAdmin.close());
    expect((await memoryAdmin.listNamespaces()).namespaces).toEqual(['alice']);
    expect(await memoryAdmin.usage('alice')).toMatchObject({ files: 1, bytes: 4, versions: 0 });
    // Files of layout 2 got the upgrade's time as their change time: a day's expiry keeps them.
    const report = await memoryAdmin.sweep({ expire: { afterDays: 1 } });
    expect(report.expired).toBe(0);
    expect(await store.view({ command: 'view', path: '/memories/old.md' })).toContain('from layout 2');
  });
});
