// Identity on PostgreSQL (layout 4): every change keeps the file's record (id, SHA-256, size,
// creation and change times, version id) in its own call, with history on or off; readRecord,
// locate, listRecords (UTF-8 byte order, depth markers, keyset paging: the kit's pageOfRecords is
// the reference) and updateById are one round trip each; remove with an expectation; an upgrade
// from layout 3 (the wave-3 release's own SQL) while its functions are still called; 4 processes
// inserting into one file at once record one version per insert.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type ChangeRecord,
  createInMemoryDriver,
  type DriverCallStats,
  type DriverPath,
  type DriverRecord,
  type DriverRecordQuery,
  type MemoryDriver,
} from '@memdir/core';
import { pageOfRecords, versionSequence } from '@memdir/core/driver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../src/cli.js';
import { createPostgresDriver, createPostgresStore, type PostgresDriver } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, runWorkers, testPool, WORKER } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const LAYOUT_3 = readFileSync(new URL('./fixtures/layout-3.sql', import.meta.url), 'utf8');

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
let ops = 0;
const op = () => `id-op-${process.pid}-${++ops}-${Math.random().toString(36).slice(2)}`;
const deadline = () => Date.now() + 10_000;
const RECORD: ChangeRecord = {
  actor: null,
  command: 'create',
  toolUseId: null,
  keepVersions: 100,
  keepDays: 30,
};
const on = (command: ChangeRecord['command'] = 'create') => ({ record: { ...RECORD, command } });
const stats = (): DriverCallStats => ({ roundTrips: 0, requests: 0, retries: 0 });

function schemaForTest(prefix = 'mdt_id'): string {
  const schema = freshSchema(prefix);
  cleanups.push(() => dropSchema(admin, schema));
  return schema;
}

/** The driver with the optional methods it has. */
type Driver = PostgresDriver &
  Required<
    Pick<
      MemoryDriver,
      | 'readRecord'
      | 'locate'
      | 'listRecords'
      | 'listRecordsBeside'
      | 'updateById'
      | 'listVersions'
      | 'restoreVersion'
      | 'sweep'
      | 'edit'
      | 'update'
    >
  >;

function driverFor(schema: string): Driver {
  const driver = createPostgresDriver({ connectionString: databaseUrl(), schema }) as Driver;
  cleanups.push(() => driver.close());
  return driver;
}

const p = (path: string) => path as DriverPath;

async function write(driver: Driver, path: string, content: string, extra: object = {}) {
  return driver.write(p(path), content, { deadline: deadline(), op: op(), ...extra });
}

/** Every record of the namespace, by a listing of depth 0 in pages of 1,000. */
async function allRecords(driver: Driver): Promise<DriverRecord[]> {
  const found: DriverRecord[] = [];
  let after: string | null = null;
  do {
    const page = await driver.listRecords({ limit: 1000, after });
    found.push(...(page.items as DriverRecord[]));
    after = page.next;
  } while (after !== null);
  return found;
}

describe('records kept by every change', () => {
  it('write, edit, update, move, remove and restore keep id, hash, size, times and version id; history on and off', async () => {
    const driver = driverFor(schemaForTest());
    const created = await write(driver, 'a/one.md', 'hello', on());
    const first = created.record!;
    expect(first).toMatchObject({ kind: 'file', path: 'a/one.md', sha256: sha('hello'), size: 5 });
    expect(first.fileId).toMatch(/^mem_[A-Za-z0-9_-]{16,128}$/);
    expect(first.createdAt).toBe(first.changedAt);
    expect(first.versionId).toMatch(/^memver_/);
    expect(await driver.readRecord(p('a/one.md'))).toEqual(first);

    // History off: a change keeps the id and creation time, and no version holds the content.
    const off = await write(driver, 'a/one.md', 'héllo');
    expect(off.record).toMatchObject({ fileId: first.fileId, createdAt: first.createdAt, versionId: null });
    expect(off.record!.sha256).toBe(sha('héllo'));
    expect(off.record!.size).toBe(6);
    expect(off.record!.changedAt).toBeGreaterThanOrEqual(first.changedAt!);

    // edit (str_replace where the bytes are), history on: a new version id.
    await driver.edit(
      p('a/one.md'),
      { kind: 'str_replace', oldStr: 'héllo', newStr: 'hello world' },
      { deadline: deadline(), op: op(), maxFileBytes: 1000, ...on('str_replace') },
    );
    const edited = (await driver.readRecord(p('a/one.md')))!;
    expect(edited).toMatchObject({ fileId: first.fileId, sha256: sha('hello world'), size: 11 });
    expect(edited.createdAt).toBe(first.createdAt);
    const versions = await driver.listVersions({ limit: 10 });
    expect(edited.versionId).toBe(versions.versions[0]!.id);
    expect(versions.versions[0]!.at).toBe(edited.changedAt);

    // update (the read-modify-write path): hash follows.
    await driver.update(p('a/one.md'), (text) => `${text}!`, { deadline: deadline(), op: op() });
    expect(await driver.readRecord(p('a/one.md'))).toMatchObject({
      fileId: first.fileId,
      sha256: sha('hello world!'),
      versionId: null,
    });

    // move of a folder, history on: ids and creation times move, each file a version.
    await write(driver, 'a/two.md', 'two', on());
    const two = (await driver.readRecord(p('a/two.md')))!;
    await driver.move(p('a'), p('b'), { deadline: deadline(), op: op(), ...on('rename') });
    const moved = (await driver.readRecord(p('b/one.md')))!;
    expect(moved).toMatchObject({
      fileId: first.fileId,
      createdAt: first.createdAt,
      sha256: sha('hello world!'),
    });
    expect(await driver.readRecord(p('a/one.md'))).toBeNull();
    const renamed = await driver.listVersions({ limit: 2 });
    expect(renamed.versions.map((version) => version.operation)).toEqual(['renamed', 'renamed']);
    expect(new Set([moved.versionId, (await driver.readRecord(p('b/two.md')))!.versionId])).toEqual(
      new Set(renamed.versions.map((version) => version.id)),
    );
    expect((await driver.readRecord(p('b/two.md')))!.fileId).toBe(two.fileId);
    // A move with history off keeps the version id the file had.
    await driver.move(p('b/two.md'), p('c/two.md'), { deadline: deadline(), op: op() });
    expect((await driver.readRecord(p('c/two.md')))!.versionId).toBe(
      renamed.versions.find((version) => version.fileId === two.fileId)!.id,
    );

    // remove, then restore at the same path: the file comes back as itself.
    const before = (await driver.readRecord(p('c/two.md')))!;
    expect(await driver.remove(p('c/two.md'), { deadline: deadline(), op: op(), ...on('delete') })).toBe(
      true,
    );
    expect(await driver.locate(before.fileId)).toBeNull();
    const restored = await driver.restoreVersion(before.versionId!, {
      to: p('c/two.md'),
      deadline: deadline(),
      op: op(),
      maxFileBytes: 1000,
      ...on('restore'),
    });
    const back = (await driver.readRecord(p('c/two.md')))!;
    expect(back).toMatchObject({ fileId: before.fileId, sha256: sha('two'), versionId: restored.id });
    expect(back.createdAt).toBe(restored.at);

    // A write with a file id (an import) to a new file takes it.
    const imported = await write(driver, 'imported.md', 'x', { fileId: 'mem_imported_0123456789' });
    expect(imported.record!.fileId).toBe('mem_imported_0123456789');
    expect((await driver.locate('mem_imported_0123456789'))!.path).toBe('imported.md');

    // sweep: expired files are gone from the records too.
    const swept = await driver.sweep({
      deadline: deadline(),
      op: op(),
      batch: 100,
      expireBefore: Date.now() + 3_600_000,
    });
    expect(swept.expired).toBe(3);
    expect(await allRecords(driver)).toEqual([]);
  });

  it("readRecord and locate: content from the same snapshot; null for a folder, nothing, a made-up or malformed id, or another namespace's file", async () => {
    const driver = driverFor(schemaForTest());
    const alice = driver.namespace('alice') as Driver;
    const { record } = await write(driver, 'dir/f.md', 'body 😀');
    const fileId = record!.fileId;
    expect(await driver.readRecord(p('dir/f.md'), { content: true })).toEqual({
      ...record,
      content: 'body 😀',
    });
    expect(await driver.locate(fileId, { content: true })).toEqual({ ...record, content: 'body 😀' });
    expect(await driver.readRecord(p('dir'))).toBeNull();
    expect(await driver.readRecord(p('nothing.md'))).toBeNull();
    expect(await driver.locate('mem_0000000000000000000000')).toBeNull();
    const counted = stats();
    expect(await driver.locate("x'; DROP TABLE files; --", { stats: counted })).toBeNull();
    expect(await driver.locate('mem_short', { stats: counted })).toBeNull();
    expect(counted.roundTrips).toBe(0);
    expect(await alice.locate(fileId)).toBeNull();
    expect(await alice.readRecord(p('dir/f.md'))).toBeNull();
  });
});

describe('listRecords', () => {
  // Names whose UTF-8 byte order differs from UTF-16 order (U+E000.. vs above U+FFFF), a name
  // beside its folder ('a-b' sorts between 'a' and 'a/'), hidden names, deep folders.
  const PATHS = [
    'a.md',
    'a-b/x.md',
    'a/b.md',
    'a/c/d.md',
    'a/c/e/f.md',
    'a/c/e/g/h.md',
    'a/z.md',
    'A/x.md',
    '.hidden/y.md',
    'é.md',
    'z/😀.md',
    'z/\uFFFD.md',
    'z/\uE000/x.md',
    'z/\uE000/y/z.md',
    'b/c/d/e/f/g.md',
    'node_modules/m.md',
  ];

  async function filled() {
    const driver = driverFor(schemaForTest());
    for (const [index, path] of PATHS.entries()) await write(driver, path, `content ${index}`);
    return { driver, records: await allRecords(driver) };
  }

  async function pages(driver: Driver, records: DriverRecord[], query: DriverRecordQuery) {
    let after = query.after ?? null;
    for (let count = 0; count < 100; count++) {
      const counted = stats();
      const page = await driver.listRecords({ ...query, after }, { stats: counted });
      expect(counted.roundTrips).toBe(1);
      expect(page, JSON.stringify({ ...query, after })).toEqual(pageOfRecords(records, { ...query, after }));
      if (page.next === null) return;
      after = page.next;
    }
    throw new Error('no end of pages');
  }

  it('every depth, folder and page size: the pages the kit gives for the same records, one round trip each', async () => {
    const { driver, records } = await filled();
    expect(records.map((record) => record.path)).toEqual(
      [...PATHS].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))),
    );
    for (const under of ['', 'a', 'z', 'a/c', 'b', 'missing']) {
      for (const depth of [0, 1, 2, 3]) {
        for (const limit of [1, 2, 3, 7, 1000])
          await pages(driver, records, { under: p(under), depth, limit });
      }
    }
  });

  it('any key as the cursor, a folder key skipping its folder', async () => {
    const { driver, records } = await filled();
    const keys = new Set<string>();
    for (const path of PATHS) {
      keys.add(path);
      const parts = path.split('/');
      for (let end = 1; end < parts.length; end++) keys.add(`${parts.slice(0, end).join('/')}/`);
    }
    keys.add('a/c/d.mc');
    keys.add('0');
    for (const after of keys) {
      for (const depth of [0, 1, 2]) await pages(driver, records, { depth, limit: 3, after });
    }
  });

  it('reads no content, and probes the index a bounded number of times per page, however large a folder', async () => {
    const schema = schemaForTest();
    const driver = driverFor(schema);
    const s = `"${schema}"`;
    await driver.setup({ deadline: deadline() });
    // 20,000 files in two folders, 3 files beside them.
    await admin.query(
      `INSERT INTO ${s}.files (ns, path, content, version, file_id, sha256, created_at, version_id, changed_at)
       SELECT '', 'big' || (i % 2) || '/' || lpad(i::text, 6, '0') || '.md', convert_to(repeat('x', 100), 'UTF8'), 'v',
         'mem_' || md5(i::text), sha256(convert_to(repeat('x', 100), 'UTF8')), 1, NULL, 1
       FROM generate_series(1, 20000) AS i`,
    );
    for (const path of ['a.md', 'big0.md', 'zz.md']) await write(driver, path, 'x');
    await admin.query(`ANALYZE ${s}.files`);
    const page = await driver.listRecords({ depth: 1, limit: 100 });
    expect(page.items.map((item) => (item.kind === 'folder' ? `${item.path}/` : item.path))).toEqual([
      'a.md',
      'big0.md',
      'big0/',
      'big1/',
      'zz.md',
    ]);
    expect(page.next).toBeNull();
    // The second call on one connection (the first plans the function's statements, reading the
    // catalogs): a handful of buffers, a probe per item, never a walk of the 20,000 rows (their
    // pages alone are several hundred buffers).
    const client = await admin.connect();
    try {
      const buffers = async () => {
        const explain = await client.query(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM ${s}.list_records_v4('', '', NULL, '', 0, 1, '', '', NULL, 100)`,
        );
        const plan = explain.rows[0]['QUERY PLAN'][0].Plan;
        return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
      };
      await buffers();
      expect(await buffers()).toBeLessThan(60);
      const pages = await client.query(`SELECT relpages FROM pg_class WHERE oid = '${s}.files'::regclass`);
      expect(pages.rows[0].relpages).toBeGreaterThan(300);
    } finally {
      client.release();
    }
  });
});

describe('listRecordsBeside', () => {
  it("one round trip: listRecords' page and another namespace's record, with or without content", async () => {
    const schema = schemaForTest();
    const driver = driverFor(schema);
    const mine = driver.namespace('mine') as Driver;
    const registry = driver.namespace('=registry') as Driver;
    for (const path of ['a.md', 'b/c.md', 'b/d/e.md', 'f.md']) await write(mine, path, `content of ${path}`);
    await write(registry, 'stores/x.json', 'entry\u0000 é');
    const records = await allRecords(mine);
    for (const depth of [0, 1]) {
      let after: string | null = null;
      for (let count = 0; count < 10; count++) {
        const counted = stats();
        const query = { depth, limit: 2, after };
        const both = await mine.listRecordsBeside!(
          query,
          { driver: registry, path: p('stores/x.json'), content: true },
          { stats: counted },
        );
        expect(counted.roundTrips).toBe(1);
        expect(both?.page).toEqual(pageOfRecords(records, query));
        expect(both?.record).toEqual(await registry.readRecord(p('stores/x.json'), { content: true }));
        expect(both?.record?.content).toBe('entry\u0000 é');
        after = both!.page.next;
        if (after === null) break;
      }
      expect(after).toBeNull();
    }
    const bare = await mine.listRecordsBeside!(
      { limit: 100 },
      { driver: registry, path: p('stores/x.json') },
    );
    expect(bare?.record).toEqual(await registry.readRecord(p('stores/x.json')));
    expect(bare?.record).not.toHaveProperty('content');
    const none = await mine.listRecordsBeside!(
      { limit: 100 },
      { driver: registry, path: p('stores/y.json') },
    );
    expect(none?.record).toBeNull();
    expect(none?.page.items).toHaveLength(4);
    // An empty page still gives the record.
    const empty = await registry.listRecordsBeside!(
      { under: p('missing'), limit: 5 },
      { driver: registry, path: p('stores/x.json') },
    );
    expect(empty?.page).toEqual({ items: [], next: null });
    expect(empty?.record?.path).toBe('stores/x.json');
  });

  it('null, reading nothing, for a driver on another pool or schema, or of another kind', async () => {
    const schema = schemaForTest();
    const driver = driverFor(schema);
    const elsewhere = driverFor(schema);
    const otherSchema = driverFor(schemaForTest());
    for (const other of [elsewhere, otherSchema, createInMemoryDriver()]) {
      const counted = stats();
      expect(
        await driver.listRecordsBeside!(
          { limit: 10 },
          { driver: other, path: p('x.md') },
          { stats: counted },
        ),
      ).toBeNull();
      expect(counted.roundTrips).toBe(0);
    }
  });
});

describe('updateById', () => {
  it("checks in the contract's order; one version; a retried call succeeds; one round trip", async () => {
    const driver = driverFor(schemaForTest());
    const { record } = await write(driver, 'dir/f.md', 'one', on());
    await write(driver, 'other.md', 'x');
    await write(driver, 'folder/inside.md', 'y');
    const id = record!.fileId;
    const options = (extra: object = {}) => ({
      deadline: deadline(),
      op: op(),
      maxFileBytes: 100,
      ...on('update'),
      ...extra,
    });
    await expect(
      driver.updateById('mem_nobody_0123456789abc', { content: 'x' }, options()),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      path: '',
    });
    await expect(driver.updateById('bad', { content: 'x' }, options())).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    // The state asked for is there: success, whatever the expectation says.
    const same = await driver.updateById(
      id,
      { content: 'one', path: p('dir/f.md') },
      options({ expectSha256: 'no' }),
    );
    expect(same).toEqual({ record: await driver.readRecord(p('dir/f.md')), changed: false });
    await expect(
      driver.updateById(id, { content: 'two' }, options({ expectSha256: sha('nope') })),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'dir/f.md',
    });
    await expect(driver.updateById(id, { path: p('other.md/x.md') }, options())).rejects.toMatchObject({
      code: 'PATH_CONFLICT',
      path: 'other.md',
    });
    await expect(driver.updateById(id, { path: p('dir/f.md/under.md') }, options())).rejects.toMatchObject({
      code: 'PATH_CONFLICT',
      path: 'dir/f.md',
    });
    await expect(driver.updateById(id, { path: p('other.md') }, options())).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      path: 'other.md',
    });
    await expect(driver.updateById(id, { path: p('folder') }, options())).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      path: 'folder',
    });
    await expect(driver.updateById(id, { content: 'x'.repeat(101) }, options())).rejects.toMatchObject({
      code: 'TOO_LARGE',
      path: 'dir/f.md',
    });
    await expect(
      driver.updateById(
        id,
        { content: 'x'.repeat(50), path: p('new/f.md') },
        options({ quota: { maxBytes: 20 } }),
      ),
    ).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', path: 'new/f.md' });

    const counted = stats();
    const again = op();
    const updated = await driver.updateById(
      id,
      { content: 'two', path: p('new/f.md') },
      options({ op: again, expectSha256: sha('one'), stats: counted }),
    );
    expect(counted.roundTrips).toBe(1);
    expect(updated.changed).toBe(true);
    expect(updated.record).toMatchObject({
      path: 'new/f.md',
      fileId: id,
      sha256: sha('two'),
      size: 3,
      createdAt: record!.createdAt,
    });
    expect(await driver.readRecord(p('new/f.md'))).toEqual(updated.record);
    const [version] = (await driver.listVersions({ limit: 1 })).versions;
    expect(version).toMatchObject({
      id: updated.record.versionId,
      operation: 'renamed',
      command: 'update',
      path: 'new/f.md',
      previousPath: 'dir/f.md',
      sha256: sha('two'),
    });
    // Replayed: nothing applied again, the record as it is.
    const replayed = await driver.updateById(
      id,
      { content: 'two', path: p('new/f.md') },
      options({ op: again }),
    );
    expect(replayed.record).toEqual(updated.record);
    expect(
      (await driver.listVersions({ limit: 10 })).versions.filter((v) => v.command === 'update'),
    ).toHaveLength(1);

    // Content alone: 'modified'.
    const content = await driver.updateById(id, { content: 'three' }, options());
    expect(content.record).toMatchObject({ path: 'new/f.md', sha256: sha('three') });
    expect((await driver.listVersions({ limit: 1 })).versions[0]).toMatchObject({
      operation: 'modified',
      previousPath: null,
      id: content.record.versionId,
    });
    // History off: no version holds it.
    const quiet = await driver.updateById(
      id,
      { content: 'four' },
      { deadline: deadline(), op: op(), maxFileBytes: 100 },
    );
    expect(quiet.record.versionId).toBeNull();
    // Another namespace cannot reach it.
    await expect(
      (driver.namespace('bob') as Driver).updateById(id, { content: 'x' }, options()),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('remove with an expectation', () => {
  it('a mismatch or a folder: CONFLICT and nothing removed; nothing there: false', async () => {
    const driver = driverFor(schemaForTest());
    const { record } = await write(driver, 'f.md', 'body');
    await write(driver, 'd/x.md', 'x');
    const options = (expect: object) => ({ deadline: deadline(), op: op(), expect });
    await expect(driver.remove(p('f.md'), options({ sha256: sha('other') }))).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'f.md',
    });
    await expect(
      driver.remove(p('f.md'), options({ fileId: 'mem_someone_else_0123', sha256: record!.sha256 })),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(driver.remove(p('d'), options({ sha256: sha('x') }))).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'd',
    });
    expect((await allRecords(driver)).map((one) => one.path)).toEqual(['d/x.md', 'f.md']);
    expect(await driver.remove(p('none.md'), options({ sha256: sha('x') }))).toBe(false);
    expect(await driver.remove(p('f.md'), options({ fileId: record!.fileId, sha256: sha('body') }))).toBe(
      true,
    );
    expect(await driver.readRecord(p('f.md'))).toBeNull();
  });
});

describe('upgrading layout 3 in place', () => {
  async function layout3Schema(): Promise<string> {
    const schema = schemaForTest('mdt_v3');
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(LAYOUT_3.replaceAll('__SCHEMA__', schema));
    return schema;
  }

  /** write_v3 as the wave-3 release calls it. */
  const write3 = (schema: string, ns: string, path: string, text: string, record: object | null = null) =>
    admin.query(
      `SELECT "${schema}".write_v3($1, $2, $3, NULL, $4, $5, NULL, NULL, NULL, '{}', $6, NULL) AS o`,
      [
        ns,
        path,
        Buffer.from(text),
        op(),
        path
          .split('/')
          .slice(0, -1)
          .map((_, at, parts) => parts.slice(0, at + 1).join('/')),
        record === null ? null : JSON.stringify(record),
      ],
    );

  const RECORD_JSON = { actor: null, command: 'create', toolUseId: null, keepVersions: 10, keepDays: 30 };

  it('rows of the old release get ids and hashes at first read or listing; migrate fills the rest in batches; the old functions keep working and keep records', async () => {
    const schema = await layout3Schema();
    await write3(schema, '', 'notes/a.md', 'alpha', RECORD_JSON);
    await write3(schema, '', 'notes/b.md', 'héllo');
    await write3(schema, 'alice', 'x.md', '😀', RECORD_JSON);
    // A row of layout 1's time: no file id at all.
    await admin.query(`UPDATE "${schema}".files SET file_id = NULL WHERE path = 'notes/b.md'`);
    const old = await admin.query(
      `SELECT path, file_id, changed_at::text FROM "${schema}".files ORDER BY ns, path`,
    );

    const driver = driverFor(schema);
    const a = await driver.readRecord(p('notes/a.md'));
    const oldA = old.rows.find((row) => row.path === 'notes/a.md');
    expect(a).toMatchObject({
      fileId: oldA.file_id,
      sha256: sha('alpha'),
      size: 5,
      createdAt: Number(oldA.changed_at),
    });
    // The version the old release recorded holds the content.
    expect(a!.versionId).toBe(
      (await driver.listVersions({ limit: 5 })).versions.find((v) => v.path === 'notes/a.md')!.id,
    );
    // The listing gives the row without an id one, and keeps it.
    const listed = await allRecords(driver);
    const b = listed.find((record) => record.path === 'notes/b.md')!;
    expect(b).toMatchObject({ sha256: sha('héllo'), size: 6, versionId: null });
    expect(b.fileId).toMatch(/^mem_/);
    expect(await driver.readRecord(p('notes/b.md'))).toEqual(b);
    expect(await driver.locate(b.fileId)).toEqual(b);

    // Old processes go on through layout 3's functions: the rows they write carry records too.
    await write3(schema, '', 'notes/c.md', 'from the old release', RECORD_JSON);
    await admin.query(`SELECT "${schema}".move_v3('', 'notes/c.md', 'moved/c.md', $1, '{moved}', NULL, $2)`, [
      op(),
      JSON.stringify({ ...RECORD_JSON, command: 'rename' }),
    ]);
    const row = await admin.query(
      `SELECT encode(sha256, 'hex') AS sha, created_at, version_id FROM "${schema}".files WHERE path = 'moved/c.md'`,
    );
    expect(row.rows[0].sha).toBe(sha('from the old release'));
    expect(row.rows[0].created_at).not.toBeNull();
    const c = (await driver.readRecord(p('moved/c.md')))!;
    expect(versionSequence(c.versionId!)).toBe(Number(row.rows[0].version_id));
    await admin.query(
      `SELECT * FROM "${schema}".edit_v3('', 'moved/c.md', 'insert', NULL, $1, 0, 1000, NULL, $2, NULL, $3, false)`,
      [Buffer.from('top'), op(), JSON.stringify({ ...RECORD_JSON, command: 'insert' })],
    );
    const edited = (await driver.readRecord(p('moved/c.md')))!;
    expect(edited).toMatchObject({
      fileId: c.fileId,
      sha256: sha('top\nfrom the old release'),
      createdAt: c.createdAt,
    });
    expect(versionSequence(edited.versionId!)).toBeGreaterThan(versionSequence(c.versionId!));
    await admin.query(
      `SELECT "${schema}".restore_v3('', $1, NULL, false, NULL, 1000, NULL, NULL, $2, NULL, $3)`,
      [versionSequence(c.versionId!), op(), JSON.stringify({ ...RECORD_JSON, command: 'restore' })],
    );
    expect(await driver.readRecord(p('moved/c.md'))).toMatchObject({ sha256: sha('from the old release') });
    expect(
      (await admin.query(`SELECT "${schema}".remove_v3('', 'moved', $1, NULL, NULL) AS o`, [op()])).rows[0].o,
    ).toBe('t');

    // migrate: the layout marker, then every remaining row filled (alice's here), in batches.
    const unfilled = await admin.query(
      `SELECT count(*)::int AS n FROM "${schema}".files WHERE sha256 IS NULL`,
    );
    expect(unfilled.rows[0].n).toBe(1);
    const url = new URL(databaseUrl());
    url.searchParams.set('schema', schema);
    expect(await migrate(url.toString())).toBe(`memdir tables are set up in schema ${schema}`);
    const after = await admin.query(
      `SELECT count(*)::int AS n FROM "${schema}".files WHERE sha256 IS NULL OR file_id IS NULL OR created_at IS NULL`,
    );
    expect(after.rows[0].n).toBe(0);
    const alice = driver.namespace('alice') as Driver;
    expect(await alice.readRecord(p('x.md'))).toMatchObject({ sha256: sha('😀'), size: 4 });
    expect((await alice.readRecord(p('x.md')))!.versionId).toMatch(/^memver_/);
  });

  it('6 processes upgrade at once while 2 processes of the wave-3 release write, edit, move and remove through its functions: every row ends with its record, totals exact', async () => {
    const schema = await layout3Schema();
    for (let index = 0; index < 20; index++)
      await write3(schema, '', `before/${index}.md`, `b${index}`, RECORD_JSON);
    const url = databaseUrl();
    const results = await runWorkers([
      ...Array.from({ length: 6 }, () => [url, schema, 'setup']),
      [url, schema, 'layout3-writes', '300', 'w1'],
      [url, schema, 'layout3-writes', '300', 'w2'],
    ]);
    expect(results).toEqual(Array(8).fill({ ok: true }));
    const target = new URL(url);
    target.searchParams.set('schema', schema);
    await migrate(target.toString());
    const s = `"${schema}"`;
    const rows = await admin.query(
      `SELECT ns, path, file_id, created_at, changed_at, version_id, sha256 = sha256(content) AS hashed FROM ${s}.files`,
    );
    expect(rows.rows.length).toBeGreaterThan(20);
    for (const row of rows.rows) {
      expect(row, `${row.ns}:${row.path}`).toMatchObject({ hashed: true });
      expect(row.file_id).toMatch(/^mem_/);
      expect(row.created_at).not.toBeNull();
    }
    // A version id names a version of the file that holds its content.
    const stray = await admin.query(
      `SELECT f.ns, f.path FROM ${s}.files f LEFT JOIN ${s}.versions v ON v.ns = f.ns AND v.seq = f.version_id
       WHERE f.version_id IS NOT NULL AND (v.file_id IS DISTINCT FROM f.file_id OR v.sha256 IS DISTINCT FROM f.sha256)`,
    );
    expect(stray.rows).toEqual([]);
    const totals = await admin.query(
      `SELECT t.ns, t.bytes::int, t.files::int, coalesce(c.bytes, 0)::int AS counted_bytes, coalesce(c.files, 0)::int AS counted_files
       FROM ${s}.totals t LEFT JOIN (SELECT ns, sum(size) AS bytes, count(*) AS files FROM ${s}.files GROUP BY ns) c USING (ns)`,
    );
    for (const row of totals.rows)
      expect([row.bytes, row.files]).toEqual([row.counted_bytes, row.counted_files]);
  }, 120_000);

  it('fill_v4 goes on where it stopped, batch by batch', async () => {
    const schema = await layout3Schema();
    for (let index = 0; index < 25; index++)
      await write3(schema, index % 2 ? 'n' : '', `f${index}.md`, `c${index}`);
    const driver = driverFor(schema);
    await driver.setup({ deadline: deadline() });
    let filled = 0;
    let batches = 0;
    for (;;) {
      const step = await driver.fillRecords({ deadline: deadline(), batch: 10 });
      filled += step.filled;
      batches++;
      if (step.done) break;
    }
    expect(filled).toBe(25);
    expect(batches).toBe(3);
    expect(await driver.fillRecords({ deadline: deadline(), batch: 10 })).toEqual({ filled: 0, done: true });
    const rows = await admin.query(`SELECT path, encode(sha256, 'hex') AS sha FROM "${schema}".files`);
    for (const row of rows.rows) expect(row.sha).toBe(sha(`c${row.path.slice(1, -3)}`));
  });
});

describe('one version per change across processes', () => {
  it('4 processes x 100 inserts into one file at once, history on: versions = inserts, hashes distinct, newest = the file', async () => {
    const schema = schemaForTest('mdt_idp');
    const store = createPostgresStore({ connectionString: databaseUrl(), schema });
    cleanups.push(() => store.close());
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'start' });
    const history = JSON.stringify({ history: { keepVersions: 1000, keepDays: 30 } });
    const children = Array.from({ length: 4 }, (_, worker) => {
      const commands = Array.from({ length: 100 }, (_, index) => ({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 0,
        insert_text: `w${worker}-${index}`,
      }));
      return spawn(
        process.execPath,
        [WORKER, databaseUrl(), schema, 'run', JSON.stringify(commands), history],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
    });
    const outputs = children.map(
      (child) =>
        new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout.on('data', (chunk) => {
            out += chunk;
          });
          child.on('exit', (code) =>
            code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}`)),
          );
        }),
    );
    await Promise.all(
      children.map((child) => new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))),
    );
    for (const child of children) child.stdin.end('go\n');
    const results = (await Promise.all(outputs)).flatMap(
      (out) => JSON.parse(out.slice(out.indexOf('\n') + 1)) as Array<{ ok?: string }>,
    );
    const confirmed = results.filter((result) => result.ok !== undefined).length;
    expect(confirmed).toBe(400);
    const driver = driverFor(schema);
    const record = (await driver.readRecord(p('log.md'), { content: true }))!;
    const versions = await admin.query(
      `SELECT seq, encode(sha256, 'hex') AS sha, content FROM "${schema}".versions WHERE ns = '' AND file_id = $1 AND operation = 'modified' ORDER BY seq`,
      [record.fileId],
    );
    expect(versions.rows).toHaveLength(confirmed);
    expect(new Set(versions.rows.map((row) => row.sha)).size).toBe(confirmed);
    const newest = versions.rows[versions.rows.length - 1];
    expect(newest.content.toString('utf8')).toBe(record.content);
    expect(record.sha256).toBe(sha(record.content!));
    expect(versionSequence(record.versionId!)).toBe(Number(newest.seq));
  }, 120_000);
});
