// Identity (docs/identity.md): the records group (every file's id, hash, size, times and version,
// read by path and by id; listings in the UTF-8 byte order of their paths, a page at a time, with
// the depth rule), the update-by-id group (content, path or both under an expected SHA-256, one
// version, the no-op rule) and the remove-expect group (a remove by id under an expected hash).
// They run through a store's `records` methods, so the same tests check a driver's primitives and,
// in the suite's second pass with the primitives hidden, the engine's fallbacks; what only the
// primitives promise (ids kept by renames without history, one version for a move and a rewrite)
// is checked where the capabilities declare them.
import type {
  MemdirStore,
  MemoryFolder,
  MemoryRecord,
  MemoryRecords,
  MemoryStore,
  MemoryStoreOptions,
} from '@memdir/core';
import { expect } from 'vitest';
import { expectError, seed } from './assertions.js';
import { allVersions, sha, withHistory } from './history-helpers.js';
import { operationId, type Suite } from './suite.js';

const FILE_ID = /^mem_[A-Za-z0-9_-]{16,128}$/;

type RecordStore = MemoryStore & { readonly records: MemoryRecords };

function withRecords(store: MemoryStore): RecordStore {
  expect(
    typeof (store as Partial<MemdirStore>).records?.get,
    'stores made by createMemoryStore have records',
  ).toBe('function');
  return store as RecordStore;
}

/** The UTF-8 byte order, computed here on its own (not with the kit's helper). */
function byteOrder(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

/** An item's key as the listing orders it: a folder's path ends with `/`. */
function keyOf(item: MemoryRecord | MemoryFolder): string {
  return item.kind === 'folder' ? `${item.path}/` : item.path;
}

/** Every item of a listing, page by page (each page at most `limit`), and how many pages it took. */
async function listAll(
  store: RecordStore,
  query: { path?: string; depth?: number; limit?: number } = {},
): Promise<{ items: (MemoryRecord | MemoryFolder)[]; pages: number }> {
  const items: (MemoryRecord | MemoryFolder)[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    pages += 1;
    expect(pages, 'records.list kept returning pages').toBeLessThan(10_000);
    const page = await store.records.list({ ...query, cursor });
    expect(page.items.length).toBeLessThanOrEqual(query.limit ?? 100);
    items.push(...page.items);
    if (page.next === null) return { items, pages };
    cursor = page.next;
  }
}

function create(store: MemoryStore, path: string, file_text: string): Promise<string> {
  return store.create({ command: 'create', path, file_text });
}

export function recordsTests(suite: Suite): void {
  const { test } = suite;
  const native = suite.capabilities.records === true;
  const open = async (options?: MemoryStoreOptions, backend?: string) =>
    withRecords(await suite.open(options, backend));
  const history = suite.capabilities.history === true;
  // Ids that survive renames: the driver keeps them, or its history does.
  const stableIds = native || history;

  test('records: a file has an id, the SHA-256 and UTF-8 size of its exact bytes, and its path; a folder or nothing has no record', async () => {
    const store = await open();
    const content = 'é\u{1F600}\r\nline two\n';
    await create(store, '/memories/notes/a.md', content);
    const record = await store.records.get('/memories/notes/a.md');
    expect(record).not.toBeNull();
    expect(record!.id).toMatch(FILE_ID);
    expect(record).toMatchObject({
      kind: 'file',
      path: '/memories/notes/a.md',
      sha256: sha(content),
      size: Buffer.byteLength(content, 'utf8'),
    });
    expect(record!.content).toBeUndefined();
    expect((await store.records.get('/memories/notes/a.md', { content: true }))?.content).toBe(content);
    expect(await store.records.get('/memories/notes')).toBeNull();
    expect(await store.records.get('/memories/missing.md')).toBeNull();
    expect(await store.records.get('/memories')).toBeNull();
  });

  test('records: locate finds a file by its id, with the same record; null for a deleted, made-up or malformed id', async () => {
    const store = await open();
    await create(store, '/memories/a.md', 'alpha');
    const record = (await store.records.get('/memories/a.md'))!;
    expect(await store.records.locate(record.id)).toEqual(record);
    expect((await store.records.locate(record.id, { content: true }))?.content).toBe('alpha');
    for (const id of [
      'mem_AAAAAAAAAAAAAAAAAAAAAA',
      'mem_',
      'memver_0000000000000001',
      '',
      '../a.md',
      'mem_a/b/c/d/e/f/g/h/i',
    ]) {
      expect(await store.records.locate(id), id).toBeNull();
    }
    await store.delete({ command: 'delete', path: '/memories/a.md' });
    expect(await store.records.locate(record.id)).toBeNull();
  });

  test("records: another namespace's id is not found, and its file is never shown", async () => {
    const backend = suite.newBackend();
    const mine = await open({ namespace: 'records-mine' }, backend);
    const theirs = await open({ namespace: 'records-theirs' }, backend);
    await create(theirs, '/memories/secret.md', 'theirs');
    const id = (await theirs.records.get('/memories/secret.md'))!.id;
    expect(await mine.records.locate(id)).toBeNull();
    await expectError(mine.records.update(id, { content: 'mine now' }), 'NOT_FOUND');
    expect(await mine.records.remove(id)).toBeNull();
    expect((await theirs.records.get('/memories/secret.md', { content: true }))?.content).toBe('theirs');
    expect((await mine.records.list()).items).toEqual([]);
  });

  test("records: listBeside gives list's page and get's record of another namespace of the same backend", async () => {
    const backend = suite.newBackend();
    const mine = await open({ namespace: 'beside-mine' }, backend);
    const theirs = await open({ namespace: 'beside-theirs' }, backend);
    for (const name of ['a', 'b', 'c']) await create(mine, `/memories/${name}.md`, `mine ${name}`);
    await create(mine, '/memories/d/e.md', 'deeper');
    await create(theirs, '/memories/entry.json', '{"id":"theirs"}');
    const beside = { store: theirs, path: '/memories/entry.json', content: true };
    let cursor: string | undefined;
    for (;;) {
      const query = { depth: 1, limit: 2, cursor };
      const both = await mine.records.listBeside(query, beside);
      expect(both.page).toEqual(await mine.records.list(query));
      expect(both.record).toEqual(await theirs.records.get('/memories/entry.json', { content: true }));
      expect(both.record?.content).toBe('{"id":"theirs"}');
      if (both.page.next === null) break;
      cursor = both.page.next;
    }
    const without = await mine.records.listBeside(undefined, { store: theirs, path: '/memories/entry.json' });
    expect(without.record?.content).toBeUndefined();
    expect(without.record?.sha256).toBe(sha('{"id":"theirs"}'));
    const missing = await mine.records.listBeside({}, { store: theirs, path: '/memories/none.json' });
    expect(missing.record).toBeNull();
    expect(missing.page.items.map((item) => item.path)).toEqual([
      '/memories/a.md',
      '/memories/b.md',
      '/memories/c.md',
      '/memories/d/e.md',
    ]);
    await expectError(mine.records.listBeside({ limit: 0 }, beside), 'INVALID_INPUT');
  });

  test('records: edits keep the id and change the hash; a new file at a deleted path gets a new id', async () => {
    const store = await open();
    await create(store, '/memories/a.md', 'one\n');
    const first = (await store.records.get('/memories/a.md'))!;
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'one',
      new_str: 'two',
    });
    await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'three' });
    const edited = (await store.records.get('/memories/a.md'))!;
    expect(edited.sha256).toBe(sha('two\nthree\n'));
    expect(edited.size).toBe(10);
    if (stableIds) expect(edited.id).toBe(first.id);
    await store.delete({ command: 'delete', path: '/memories/a.md' });
    await create(store, '/memories/a.md', 'two\nthree\n');
    const again = (await store.records.get('/memories/a.md'))!;
    if (stableIds) expect(again.id).not.toBe(first.id);
  });

  test('records: a rename keeps every moved file its id and creation time', async () => {
    const store = await open();
    await seed(store, { '/memories/d/a.md': 'a', '/memories/d/e/b.md': 'b', '/memories/c.md': 'c' });
    const before = await Promise.all(
      ['d/a.md', 'd/e/b.md', 'c.md'].map((p) => store.records.get(`/memories/${p}`)),
    );
    await store.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/x/d2' });
    await store.rename({ command: 'rename', old_path: '/memories/c.md', new_path: '/memories/c2.md' });
    const after = await Promise.all(
      ['x/d2/a.md', 'x/d2/e/b.md', 'c2.md'].map((p) => store.records.get(`/memories/${p}`)),
    );
    expect(after.map((record) => record?.sha256)).toEqual(before.map((record) => record?.sha256));
    if (stableIds) {
      expect(after.map((record) => record?.id)).toEqual(before.map((record) => record?.id));
      expect(await store.records.locate(before[0]!.id)).toMatchObject({ path: '/memories/x/d2/a.md' });
    }
    if (native)
      expect(after.map((record) => record?.createdAt)).toEqual(before.map((record) => record?.createdAt));
  });

  test('records: times are server ms; an edit moves the change time and keeps the creation time', async () => {
    if (!native) return;
    const store = await open();
    const started = Date.now();
    await create(store, '/memories/t.md', 'one');
    const first = (await store.records.get('/memories/t.md'))!;
    expect(typeof first.createdAt).toBe('number');
    expect(first.changedAt).toBe(first.createdAt);
    // A server's clock may differ from ours a little; a day either way is a wrong unit, not skew.
    expect(Math.abs(first.createdAt! - started)).toBeLessThan(86_400_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/t.md',
      old_str: 'one',
      new_str: 'two',
    });
    const second = (await store.records.get('/memories/t.md'))!;
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.changedAt!).toBeGreaterThan(first.changedAt!);
  });

  test('records: with history, the version id is the newest version of the file, after every kind of change', async () => {
    if (!history) return;
    const plain = await open();
    const store = Object.assign(withHistory(plain), { records: plain.records });
    const check = async (path: string) => {
      const record = (await store.records.get(path))!;
      const [newest] = await allVersions(store, { fileId: record.id, limit: 1 });
      expect(record.versionId).toBe(newest!.id);
      const version = await store.version(record.versionId!);
      expect(version.sha256).toBe(record.sha256);
    };
    await create(store, '/memories/v.md', 'one');
    await check('/memories/v.md');
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/v.md',
      old_str: 'one',
      new_str: 'two',
    });
    await check('/memories/v.md');
    await store.rename({ command: 'rename', old_path: '/memories/v.md', new_path: '/memories/w.md' });
    await check('/memories/w.md');
    const id = (await store.records.get('/memories/w.md'))!.id;
    const [created] = await allVersions(store, { fileId: id, operations: ['created'] });
    await store.restore(created!.id, { path: '/memories/w.md' });
    await check('/memories/w.md');
  });

  test('records: without history the version id is null', async () => {
    if (!history) return;
    const store = await open({ history: false });
    await create(store, '/memories/n.md', 'x');
    expect((await store.records.get('/memories/n.md'))?.versionId).toBeNull();
  });

  test('records: a listing is in the UTF-8 byte order of the paths (not UTF-16), hidden files included, without content', async () => {
    const store = await open();
    const names = [
      'a.md',
      'a/b.md',
      'a-b.md',
      'B.md',
      '.hidden/x.md',
      'é.md',
      '\u{1F600}.md',
      '\uFF5E.md',
      'z/\u00e9/1.md',
      'a b.md',
    ];
    await seed(store, Object.fromEntries(names.map((name) => [`/memories/${name}`, name])));
    const { items } = await listAll(store, { limit: 3 });
    const paths = names.map((name) => `/memories/${name}`);
    expect(items.map(keyOf)).toEqual(byteOrder(paths));
    for (const item of items) {
      expect(item.kind).toBe('file');
      const record = item as MemoryRecord;
      expect(record.content).toBeUndefined();
      expect(record.sha256).toBe(sha(record.path.slice('/memories/'.length)));
      expect(record).toEqual(await store.records.get(record.path));
    }
  });

  test('records: a listing under a folder has only what lies beneath it (not a sibling with the same prefix); a missing folder lists nothing', async () => {
    const store = await open();
    await seed(store, {
      '/memories/notes/a.md': 'a',
      '/memories/notes/deep/b.md': 'b',
      '/memories/notes-old/c.md': 'c',
      '/memories/notes.md': 'n',
    });
    const { items } = await listAll(store, { path: '/memories/notes' });
    expect(items.map(keyOf)).toEqual(['/memories/notes/a.md', '/memories/notes/deep/b.md']);
    expect((await store.records.list({ path: '/memories/nothing' })).items).toEqual([]);
    expect((await store.records.list({ path: '/memories/notes.md' })).items).toEqual([]);
  });

  test('records: depth n lists files at most n levels down and one folder item for each folder n levels down holding deeper files', async () => {
    const store = await open();
    await seed(store, {
      '/memories/a.md': '1',
      '/memories/d/b.md': '2',
      '/memories/d/e/c.md': '3',
      '/memories/d/e/f/g.md': '4',
      '/memories/d-x.md': '5',
      '/memories/x/y/z.md': '6',
      '/memories/x/y.md': '7',
    });
    const keys = async (query: { path?: string; depth?: number; limit?: number }) =>
      (await listAll(store, query)).items.map(keyOf);
    expect(await keys({ depth: 1 })).toEqual(
      byteOrder(['/memories/a.md', '/memories/d/', '/memories/d-x.md', '/memories/x/']),
    );
    expect(await keys({ depth: 2 })).toEqual(
      byteOrder([
        '/memories/a.md',
        '/memories/d/b.md',
        '/memories/d/e/',
        '/memories/d-x.md',
        '/memories/x/y/',
        '/memories/x/y.md',
      ]),
    );
    expect(await keys({ depth: 3 })).toEqual(
      byteOrder([
        '/memories/a.md',
        '/memories/d/b.md',
        '/memories/d/e/c.md',
        '/memories/d/e/f/',
        '/memories/d-x.md',
        '/memories/x/y/z.md',
        '/memories/x/y.md',
      ]),
    );
    expect(await keys({ path: '/memories/d', depth: 1 })).toEqual(['/memories/d/b.md', '/memories/d/e/']);
    // Pages of one: a folder item counts toward the limit, and the next page starts after the folder.
    expect(await keys({ depth: 1, limit: 1 })).toEqual(await keys({ depth: 1 }));
    expect(await keys({ depth: 2, limit: 2 })).toEqual(await keys({ depth: 2 }));
    const folder = (await store.records.list({ depth: 1 })).items.find((item) => item.kind === 'folder');
    expect(folder).toEqual({ kind: 'folder', path: '/memories/d' });
  });

  test('records: paging while files change lists every file that stayed put exactly once', async () => {
    const store = await open();
    const stay = Array.from({ length: 12 }, (_, i) => `/memories/s${String(i).padStart(2, '0')}.md`);
    await seed(store, Object.fromEntries(stay.map((path) => [path, path])));
    await seed(store, { '/memories/m0.md': 'moves', '/memories/s05x.md': 'goes' });
    const seen: string[] = [];
    let cursor: string | undefined;
    let turn = 0;
    for (;;) {
      const page = await store.records.list({ limit: 4, cursor });
      seen.push(...page.items.map(keyOf));
      turn += 1;
      if (turn === 1) {
        // Behind the cursor and ahead of it: new files, a rename across it, a removal.
        await create(store, '/memories/a-new.md', 'new behind');
        await create(store, '/memories/t-new.md', 'new ahead');
        await store.rename({ command: 'rename', old_path: '/memories/m0.md', new_path: '/memories/r0.md' });
        await store.delete({ command: 'delete', path: '/memories/s05x.md' });
      }
      if (page.next === null) break;
      cursor = page.next;
    }
    for (const path of stay)
      expect(
        seen.filter((key) => key === path),
        path,
      ).toHaveLength(1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test('records: a bad limit, depth or cursor is INVALID_INPUT', async () => {
    const store = await open();
    await expectError(store.records.list({ limit: 0 }), 'INVALID_INPUT');
    await expectError(store.records.list({ limit: 1001 }), 'INVALID_INPUT');
    await expectError(store.records.list({ limit: 1.5 }), 'INVALID_INPUT');
    await expectError(store.records.list({ depth: -1 }), 'INVALID_INPUT');
    await expectError(store.records.list({ cursor: '' }), 'INVALID_INPUT');
    await expectError(store.records.list({ cursor: 'not a cursor' }), 'INVALID_INPUT');
    await expectError(store.records.list({ cursor: 'bm90IGpzb24' }), 'INVALID_INPUT');
    await expectError(store.records.list({ path: '/etc' }), 'INVALID_PATH');
  });

  test('records: a cursor is bound to its listing: another folder or depth refuses it as INVALID_INPUT', async () => {
    const store = await open();
    await seed(store, { '/memories/d/a.md': 'a', '/memories/d/b.md': 'b', '/memories/d/e/c.md': 'c' });
    const first = await store.records.list({ path: '/memories/d', limit: 1 });
    expect(first.next).not.toBeNull();
    const cursor = first.next!;
    await expectError(store.records.list({ path: '/memories', limit: 1, cursor }), 'INVALID_INPUT');
    await expectError(
      store.records.list({ path: '/memories/d', depth: 1, limit: 1, cursor }),
      'INVALID_INPUT',
    );
    const second = await store.records.list({ path: '/memories/d', limit: 1, cursor });
    expect(second.items.map(keyOf)).toEqual(['/memories/d/b.md']);
  });

  test('records: create makes a new file and gives its record; never over a file, a folder or beneath a file', async () => {
    const store = await open();
    const record = await store.records.create('/memories/new/a.md', 'fresh');
    expect(record).toEqual(await store.records.get('/memories/new/a.md'));
    expect(record).toMatchObject({ kind: 'file', path: '/memories/new/a.md', sha256: sha('fresh'), size: 5 });
    await expectError(store.records.create('/memories/new/a.md', 'again'), 'ALREADY_EXISTS');
    await expectError(store.records.create('/memories/new', 'x'), 'PATH_CONFLICT');
    await expectError(store.records.create('/memories/new/a.md/b.md', 'x'), 'PATH_CONFLICT');
    await expectError(store.records.create('/memories', 'x'), 'PATH_CONFLICT');
    expect((await store.records.get('/memories/new/a.md', { content: true }))?.content).toBe('fresh');
    expect(await store.records.get('/memories/new')).toBeNull();
  });

  test('records: the driver returns the record it wrote from write, the same as readRecord', async () => {
    if (!native) return;
    const driver = await suite.files();
    const written = await driver.write('w/x.md' as never, 'content', { op: operationId() });
    expect(written.record).toEqual(await driver.readRecord!('w/x.md' as never));
    expect(written.record?.sha256).toBe(sha('content'));
  });
}

export function updateByIdTests(suite: Suite): void {
  const { test } = suite;
  const native = suite.capabilities.updateById === true;
  const history = suite.capabilities.history === true;
  const open = async (options?: MemoryStoreOptions) => withRecords(await suite.open(options));
  const idOf = async (store: RecordStore, path: string) => (await store.records.get(path))!.id;

  test('update by id: new content keeps the id, changes the hash, and is one modified version with command update', async () => {
    const store = await open();
    await create(store, '/memories/u.md', 'one');
    const id = await idOf(store, '/memories/u.md');
    const result = await store.records.update(id, { content: 'two' }, { expectSha256: sha('one') });
    expect(result.changed).toBe(true);
    expect(result.record).toMatchObject({ path: '/memories/u.md', sha256: sha('two'), size: 3 });
    expect(await store.records.get('/memories/u.md', { content: true })).toMatchObject({
      content: 'two',
      sha256: sha('two'),
    });
    if (history) {
      const versions = await allVersions(withHistory(store), { path: '/memories/u.md' });
      expect(versions.map((v) => [v.operation, v.command])).toEqual([
        ['modified', 'update'],
        ['created', 'create'],
      ]);
      expect(result.record.versionId).toBe(versions[0]!.id);
    }
  });

  test('update by id: a new path moves the file (parents made) and keeps its content; with new content too it is one version where the driver updates by id', async () => {
    const store = await open();
    await create(store, '/memories/a.md', 'alpha');
    const id = await idOf(store, '/memories/a.md');
    const moved = await store.records.update(id, { path: '/memories/deep/er/b.md' });
    expect(moved.record).toMatchObject({ path: '/memories/deep/er/b.md', sha256: sha('alpha') });
    expect(await store.records.get('/memories/a.md')).toBeNull();
    const both = await store.records.update(moved.record.id, { path: '/memories/c.md', content: 'gamma' });
    expect(both.record).toMatchObject({ path: '/memories/c.md', sha256: sha('gamma') });
    expect(await store.records.get('/memories/deep/er/b.md')).toBeNull();
    if (native) {
      expect(both.record.id).toBe(id);
      if (history) {
        const versions = await allVersions(withHistory(store), { fileId: id });
        expect(versions.map((v) => [v.operation, v.path, v.previousPath, v.sha256, v.command])).toEqual([
          ['renamed', '/memories/c.md', '/memories/deep/er/b.md', sha('gamma'), 'update'],
          ['renamed', '/memories/deep/er/b.md', '/memories/a.md', sha('alpha'), 'update'],
          ['created', '/memories/a.md', null, sha('alpha'), 'create'],
        ]);
      }
    }
  });

  test('update by id: the requested state already there succeeds and writes nothing, whatever the expected hash', async () => {
    const store = await open();
    await create(store, '/memories/same.md', 'same');
    const id = await idOf(store, '/memories/same.md');
    const before = await store.records.get('/memories/same.md');
    const result = await store.records.update(
      id,
      { content: 'same', path: '/memories/same.md' },
      { expectSha256: sha('stale') },
    );
    expect(result).toEqual({ record: before, changed: false });
    expect((await store.records.update(id, { content: 'same' })).changed).toBe(false);
    if (history) expect(await allVersions(withHistory(store), { path: '/memories/same.md' })).toHaveLength(1);
  });

  test('update by id: an expected hash that does not hold is CONFLICT and changes nothing', async () => {
    const store = await open();
    await create(store, '/memories/c.md', 'current');
    const id = await idOf(store, '/memories/c.md');
    await expectError(
      store.records.update(id, { content: 'mine' }, { expectSha256: sha('older') }),
      'CONFLICT',
    );
    await expectError(
      store.records.update(id, { path: '/memories/d.md' }, { expectSha256: sha('older') }),
      'CONFLICT',
    );
    expect(await store.records.get('/memories/c.md', { content: true })).toMatchObject({
      content: 'current',
    });
    expect(await store.records.get('/memories/d.md')).toBeNull();
  });

  test('update by id: a taken or overlapping path is refused naming what is in the way, and nothing moves', async () => {
    const store = await open();
    await seed(store, { '/memories/a.md': 'a', '/memories/b.md': 'b', '/memories/dir/x.md': 'x' });
    const id = await idOf(store, '/memories/a.md');
    const taken = await expectError(store.records.update(id, { path: '/memories/b.md' }), 'ALREADY_EXISTS');
    expect(taken.path).toBe('b.md');
    const folder = await expectError(store.records.update(id, { path: '/memories/dir' }), 'ALREADY_EXISTS');
    expect(folder.path).toBe('dir');
    const under = await expectError(
      store.records.update(id, { path: '/memories/b.md/c.md' }),
      'PATH_CONFLICT',
    );
    expect(under.path).toBe('b.md');
    const self = await expectError(
      store.records.update(id, { path: '/memories/a.md/c.md', content: 'z' }),
      'PATH_CONFLICT',
    );
    expect(self.path).toBe('a.md');
    await expectError(store.records.update(id, { path: '/memories' }), 'ALREADY_EXISTS');
    expect((await listAll(store)).items.map(keyOf)).toEqual([
      '/memories/a.md',
      '/memories/b.md',
      '/memories/dir/x.md',
    ]);
  });

  test('update by id: an unknown, malformed or deleted id is NOT_FOUND; bad input is refused before anything is written', async () => {
    const store = await open();
    await create(store, '/memories/gone.md', 'x');
    const id = await idOf(store, '/memories/gone.md');
    await store.delete({ command: 'delete', path: '/memories/gone.md' });
    for (const bad of [id, 'mem_AAAAAAAAAAAAAAAAAAAAAA', 'nope', '']) {
      await expectError(store.records.update(bad, { content: 'y' }), 'NOT_FOUND');
    }
    await create(store, '/memories/here.md', 'x');
    const here = await idOf(store, '/memories/here.md');
    await expectError(store.records.update(here, {}), 'INVALID_INPUT');
    await expectError(store.records.update(here, { content: 5 as never }), 'INVALID_INPUT');
    await expectError(store.records.update(here, { path: '/etc/passwd' }), 'INVALID_PATH');
    await expectError(store.records.update(here, { content: 'y' }, { expectSha256: 'ABC' }), 'INVALID_INPUT');
    expect(await store.records.get('/memories/here.md', { content: true })).toMatchObject({ content: 'x' });
  });

  test("update by id: content over the store's file limit is TOO_LARGE", async () => {
    const store = await open({ maxFileBytes: 8 });
    await create(store, '/memories/s.md', 'small');
    const id = await idOf(store, '/memories/s.md');
    await expectError(store.records.update(id, { content: 'far too large' }), 'TOO_LARGE');
    expect(await store.records.get('/memories/s.md', { content: true })).toMatchObject({ content: 'small' });
  });

  test('update by id: a quota is judged like a write', async () => {
    if (suite.capabilities.quotas !== true) return;
    const store = await open({ quota: { maxBytes: 10 } });
    await create(store, '/memories/q.md', 'four');
    const id = await idOf(store, '/memories/q.md');
    await expectError(store.records.update(id, { content: 'eleven byte' }), 'QUOTA_EXCEEDED');
    expect((await store.records.update(id, { content: 'ten bytes!' })).changed).toBe(true);
  });

  test('update by id: of concurrent updates under one expected hash, exactly one is saved, the others are CONFLICT', async () => {
    const store = await open();
    await create(store, '/memories/race.md', 'base');
    const id = await idOf(store, '/memories/race.md');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        store.records.update(id, { content: `writer ${i}` }, { expectSha256: sha('base') }),
      ),
    );
    const saved = results.filter((result) => result.status === 'fulfilled');
    expect(saved).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect((result.reason as { code?: string }).code).toBe('CONFLICT');
    }
    const winner = (saved[0] as PromiseFulfilledResult<{ record: MemoryRecord }>).value.record;
    expect(await store.records.get('/memories/race.md')).toMatchObject({ sha256: winner.sha256 });
  });
}

export function removeExpectTests(suite: Suite): void {
  const { test } = suite;
  const open = async () => withRecords(await suite.open());

  test('remove expect: a remove by id gives the record removed; the id is then not found', async () => {
    const store = await open();
    await create(store, '/memories/r.md', 'bye');
    const record = (await store.records.get('/memories/r.md'))!;
    expect(await store.records.remove(record.id, { expectSha256: sha('bye') })).toEqual(record);
    expect(await store.records.get('/memories/r.md')).toBeNull();
    expect(await store.records.remove(record.id)).toBeNull();
    expect(await store.records.remove('mem_AAAAAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(await store.records.remove('bad id')).toBeNull();
  });

  test('remove expect: an expected hash that does not hold is CONFLICT and removes nothing', async () => {
    const store = await open();
    await create(store, '/memories/k.md', 'keep');
    const id = (await store.records.get('/memories/k.md'))!.id;
    await expectError(store.records.remove(id, { expectSha256: sha('other') }), 'CONFLICT');
    expect(await store.records.get('/memories/k.md', { content: true })).toMatchObject({ content: 'keep' });
    await expectError(store.records.remove(id, { expectSha256: 'XYZ' }), 'INVALID_INPUT');
  });

  test('remove expect: the driver removes nothing when the file at the path is another file or has other content', async () => {
    if (suite.capabilities.removeExpect !== true) return;
    const driver = await suite.files();
    const op = operationId;
    await driver.write('e.md' as never, 'one', { op: op() });
    await driver.write('dir/f.md' as never, 'f', { op: op() });
    const record = (await driver.readRecord!('e.md' as never))!;
    const refused = async (path: string, expectation: { fileId?: string; sha256?: string }) => {
      await expect(driver.remove(path as never, { op: op(), expect: expectation })).rejects.toMatchObject({
        code: 'CONFLICT',
        path,
      });
    };
    await refused('e.md', { sha256: sha('two') });
    await refused('e.md', { fileId: 'mem_AAAAAAAAAAAAAAAAAAAAAA' });
    await refused('e.md', { fileId: record.fileId, sha256: sha('two') });
    await refused('dir', { sha256: sha('f') });
    expect(await driver.remove('nothing.md' as never, { op: op(), expect: { sha256: sha('x') } })).toBe(
      false,
    );
    expect(await driver.read('e.md' as never)).toMatchObject({ content: 'one' });
    expect(await driver.read('dir/f.md' as never)).toMatchObject({ content: 'f' });
    expect(
      await driver.remove('e.md' as never, {
        op: op(),
        expect: { fileId: record.fileId, sha256: sha('one') },
      }),
    ).toBe(true);
  });
}
