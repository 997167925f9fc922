// Records (identity, src/records.ts and src/update.ts) on the S3 driver: each file's id, hash and
// times in its own metadata, written by the change's own request; readRecord, listRecords (one
// listing, no HEAD for an object seen at its ETag), locate through the id index, updateById and
// remove with an expectation; and files written the way the wave 3 code wrote them, given their
// records at their first read.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { ChangeRecord, DriverPath, DriverRecord, MemoryHistory, MemoryStore } from '@memdir/core';
import { WAVE3_FILES, WAVE3_VERSIONS } from '@memdir/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Driver, createS3Store, type S3Driver } from '../src/index.js';
import { bucket, clearPrefix, rawClient, storeOptions, uniquePrefix } from './helpers.js';
import { kindOf, tap, type Wire } from './wire.js';

const admin = rawClient();
const prefixes: string[] = [];
const drivers: S3Driver[] = [];
afterEach(async () => {
  for (const driver of drivers.splice(0)) await driver.close();
  for (const prefix of prefixes.splice(0)) await clearPrefix(admin, `${prefix}/`);
});
afterAll(() => admin.destroy());

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const p = (path: string) => path as DriverPath;
let ops = 0;
const op = () => `op-${Date.now().toString(36)}-${ops++}`;
const recorded = (command: ChangeRecord['command']): ChangeRecord => ({
  actor: null,
  command,
  toolUseId: null,
  keepVersions: 100,
  keepDays: 30,
});

function open(label: string, client = rawClient()): { driver: S3Driver; prefix: string; wire: Wire } {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  const wire = tap(client, bucket);
  const driver = createS3Driver({ ...storeOptions(prefix), client });
  drivers.push(driver);
  return { driver, prefix, wire };
}

async function write(driver: S3Driver, path: string, content: string, history = false) {
  return driver.write(p(path), content, { op: op(), record: history ? recorded('create') : undefined });
}

async function requestsOf(wire: Wire, run: () => Promise<unknown>): Promise<string[]> {
  wire.reset();
  await run();
  return wire.requests.map(kindOf);
}

describe('records', () => {
  it('a write gives its record; readRecord reads it with one request; edits, renames and history keep the id and createdAt', async () => {
    const { driver, wire } = open('records-basic');
    const written = await write(driver, 'a.md', 'one', true);
    const record = written.record!;
    expect(record).toMatchObject({ kind: 'file', path: 'a.md', sha256: sha('one'), size: 3 });
    expect(record.fileId).toMatch(/^mem_[A-Za-z0-9_-]{16,128}$/);
    expect(record.versionId).toMatch(/^memver_/);
    expect(await requestsOf(wire, () => driver.readRecord!(p('a.md')))).toEqual(['HEAD']);
    expect(await driver.readRecord!(p('a.md'))).toEqual(record);
    expect(await driver.readRecord!(p('a.md'), { content: true })).toEqual({ ...record, content: 'one' });
    expect(await requestsOf(wire, () => driver.readRecord!(p('a.md'), { content: true }))).toEqual(['GET']);
    await driver.update!(p('a.md'), (text) => `${text} two`, { op: op(), record: recorded('str_replace') });
    const edited = (await driver.readRecord!(p('a.md')))!;
    expect(edited).toMatchObject({
      fileId: record.fileId,
      createdAt: record.createdAt,
      sha256: sha('one two'),
    });
    expect(edited.changedAt).toBeGreaterThanOrEqual(record.changedAt!);
    const newest = await driver.listVersions!({ limit: 1 });
    expect(edited.versionId).toBe(newest.versions[0]!.id);
    await driver.move(p('a.md'), p('b/c.md'), { op: op(), record: recorded('rename') });
    const moved = (await driver.readRecord!(p('b/c.md')))!;
    expect(moved).toMatchObject({
      fileId: record.fileId,
      createdAt: record.createdAt,
      sha256: sha('one two'),
    });
    expect(moved.versionId).toBe((await driver.listVersions!({ limit: 1 })).versions[0]!.id);
    expect(await driver.readRecord!(p('a.md'))).toBeNull();
    expect(await driver.readRecord!(p('b'))).toBeNull();
    // Without history: no version, the id kept all the same (a file's and a folder's rename).
    await write(driver, 'b/c.md', 'three');
    const plain = (await driver.readRecord!(p('b/c.md')))!;
    expect(plain).toMatchObject({ fileId: record.fileId, createdAt: record.createdAt, versionId: null });
    await driver.move(p('b/c.md'), p('d.md'), { op: op() });
    expect(await driver.readRecord!(p('d.md'))).toMatchObject({
      fileId: record.fileId,
      sha256: sha('three'),
    });
    await write(driver, 'f/x.md', 'x');
    const x = (await driver.readRecord!(p('f/x.md')))!;
    await driver.move(p('f'), p('g'), { op: op() });
    expect(await driver.readRecord!(p('g/x.md'))).toMatchObject({ fileId: x.fileId, createdAt: x.createdAt });
  });

  it('a create over a file another store wrote keeps its id; a write with fileId makes a new file with it', async () => {
    const { driver, prefix } = open('records-over');
    await write(driver, 'a.md', 'one');
    const first = (await driver.readRecord!(p('a.md')))!;
    const other = createS3Driver({ ...storeOptions(prefix) });
    drivers.push(other);
    await write(other, 'a.md', 'two');
    expect(await driver.readRecord!(p('a.md'))).toMatchObject({ fileId: first.fileId, sha256: sha('two') });
    const id = 'mem_ImportedFileId0000001';
    await driver.write(p('imported.md'), 'i', { op: op(), fileId: id });
    expect(await driver.readRecord!(p('imported.md'))).toMatchObject({ fileId: id });
  });

  it('listRecords: UTF-8 key order, depth markers, after and limit; no HEAD for objects seen at their ETag', async () => {
    const { driver, wire, prefix } = open('records-list');
    const paths = ['a.md', 'b/x.md', 'b/y/z.md', 'b!.md', 'c/d/e.md', 'é.md', '.hidden/h.md'];
    for (const path of paths) await write(driver, path, path);
    const all = await driver.listRecords!({ limit: 100 });
    const keys = all.items.map((item) => (item.kind === 'folder' ? `${item.path}/` : item.path));
    expect(keys).toEqual([...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(all.next).toBeNull();
    for (const item of all.items) expect((item as DriverRecord).sha256).toBe(sha(item.path));
    const top = await driver.listRecords!({ limit: 100, depth: 1 });
    expect(top.items.map((item) => `${item.kind} ${item.path}`)).toEqual([
      'folder .hidden',
      'file a.md',
      'file b!.md',
      'folder b',
      'folder c',
      'file é.md',
    ]);
    const first = await driver.listRecords!({ limit: 2, depth: 1 });
    expect(first.next).toBe('a.md');
    const rest = await driver.listRecords!({ limit: 10, depth: 1, after: 'b/' });
    expect(rest.items.map((item) => item.path)).toEqual(['c', 'é.md']);
    const under = await driver.listRecords!({ limit: 10, under: p('b'), depth: 1 });
    expect(under.items.map((item) => `${item.kind} ${item.path}`)).toEqual(['file b/x.md', 'folder b/y']);
    expect(await requestsOf(wire, () => driver.listRecords!({ limit: 100 }))).toEqual(['LIST']);
    // Objects this process has not seen: one HEAD each, at most a page of them; then none.
    const client = rawClient();
    const freshWire = tap(client, bucket);
    const fresh = createS3Driver({ ...storeOptions(prefix), client });
    drivers.push(fresh);
    await fresh.ready();
    const cold = await requestsOf(freshWire, () => fresh.listRecords!({ limit: 3 }));
    expect(cold).toEqual(['LIST', 'HEAD', 'HEAD', 'HEAD']);
    expect(await requestsOf(freshWire, () => fresh.listRecords!({ limit: 3 }))).toEqual(['LIST']);
  });

  it('listRecords by depth: a folder past a listing page is one marker, and the next listing starts past it', async () => {
    const { driver, prefix, wire } = open('records-big');
    const names = Array.from({ length: 1_100 }, (_, index) => `big/${String(index).padStart(4, '0')}.md`);
    for (let start = 0; start < names.length; start += 100) {
      await Promise.all(
        names
          .slice(start, start + 100)
          .map((name) =>
            admin.send(
              new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/${name}`, Body: name }),
            ),
          ),
      );
    }
    await write(driver, 'z.md', 'z');
    await driver.ready();
    const requests = await requestsOf(wire, async () => {
      const page = await driver.listRecords!({ limit: 10, depth: 1 });
      expect(page.items.map((item) => `${item.kind} ${item.path}`)).toEqual(['folder big', 'file z.md']);
      expect(page.next).toBeNull();
    });
    expect(requests).toEqual(['LIST', 'LIST']);
  }, 60_000);

  it('a restore keeps the id and names the restored version; a deleted file restored at its path takes its id back', async () => {
    const { driver } = open('records-restore');
    await write(driver, 'a.md', 'one', true);
    const first = (await driver.readRecord!(p('a.md')))!;
    await write(driver, 'a.md', 'two', true);
    const restored = await driver.restoreVersion!(first.versionId!, {
      op: op(),
      record: recorded('restore'),
      maxFileBytes: 1_000,
    });
    expect(await driver.readRecord!(p('a.md'))).toMatchObject({
      fileId: first.fileId,
      createdAt: first.createdAt,
      sha256: sha('one'),
      versionId: restored.id,
    });
    await driver.remove(p('a.md'), { op: op(), record: recorded('delete') });
    const back = await driver.restoreVersion!(first.versionId!, {
      op: op(),
      record: recorded('restore'),
      maxFileBytes: 1_000,
    });
    expect(await driver.readRecord!(p('a.md'))).toMatchObject({ fileId: first.fileId, versionId: back.id });
    expect(await driver.locate!(first.fileId)).toMatchObject({ path: 'a.md' });
  });

  it('locate: by the id index, and after a rename by a scan that rewrites it; null for unknown, malformed and other namespaces', async () => {
    const { driver, wire } = open('records-locate');
    await write(driver, 'a.md', 'one');
    await write(driver, 'b.md', 'two');
    const a = (await driver.readRecord!(p('a.md')))!;
    expect(await driver.locate!(a.fileId)).toEqual(a);
    expect(await requestsOf(wire, () => driver.locate!(a.fileId))).toEqual(['GET', 'HEAD']);
    expect(await driver.locate!(a.fileId, { content: true })).toEqual({ ...a, content: 'one' });
    await driver.move(p('a.md'), p('moved/a.md'), { op: op() });
    const moved = await driver.locate!(a.fileId);
    expect(moved).toMatchObject({ path: 'moved/a.md', fileId: a.fileId });
    expect(await requestsOf(wire, () => driver.locate!(a.fileId))).toEqual(['GET', 'HEAD']);
    expect(await driver.locate!('mem_NoSuchFileAtAll00000')).toBeNull();
    expect(await driver.locate!('not-an-id')).toBeNull();
    const child = driver.namespace('other');
    await write(child, 'c.md', 'three');
    const c = (await child.readRecord!(p('c.md')))!;
    expect(await driver.locate!(c.fileId)).toBeNull();
    expect(await child.locate!(a.fileId)).toBeNull();
    expect(await child.locate!(c.fileId)).toMatchObject({ path: 'c.md' });
    await driver.remove(p('moved/a.md'), { op: op() });
    expect(await driver.locate!(a.fileId)).toBeNull();
  });

  it('updateById: content, path or both as one version each, in the contract order of checks', async () => {
    const { driver } = open('records-update');
    const history = (command: ChangeRecord['command'] = 'update') => ({ record: recorded(command) });
    await write(driver, 'a.md', 'one', true);
    await write(driver, 'other.md', 'x', true);
    await write(driver, 'dir/in.md', 'y', true);
    const a = (await driver.readRecord!(p('a.md')))!;
    const update = (change: { content?: string; path?: DriverPath }, extra: object = {}) =>
      driver.updateById!(a.fileId, change, { op: op(), maxFileBytes: 100, ...history(), ...extra });
    await expect(
      driver.updateById!('mem_NoSuchFileAtAll00000', { content: 'z' }, { op: op(), maxFileBytes: 100 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', path: '' });
    expect(await update({ content: 'one' }, { expectSha256: sha('wrong') })).toEqual({
      record: a,
      changed: false,
    });
    await expect(update({ content: 'two' }, { expectSha256: sha('wrong') })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(update({ path: p('a.md/b.md') })).rejects.toMatchObject({ code: 'PATH_CONFLICT' });
    await expect(update({ path: p('other.md') })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(update({ path: p('dir') })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(update({ content: 'x'.repeat(101) })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(update({ content: 'x'.repeat(101), path: p('new.md') })).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
    const changed = await update({ content: 'two' }, { expectSha256: sha('one') });
    expect(changed.changed).toBe(true);
    expect(changed.record).toMatchObject({
      path: 'a.md',
      fileId: a.fileId,
      sha256: sha('two'),
      createdAt: a.createdAt,
    });
    let newest = (await driver.listVersions!({ limit: 1 })).versions[0]!;
    expect(newest).toMatchObject({ operation: 'modified', command: 'update', sha256: sha('two') });
    expect(changed.record.versionId).toBe(newest.id);
    const renamed = await update({ path: p('n/a.md') });
    expect(renamed.record).toMatchObject({ path: 'n/a.md', fileId: a.fileId, sha256: sha('two') });
    newest = (await driver.listVersions!({ limit: 1 })).versions[0]!;
    expect(newest).toMatchObject({
      operation: 'renamed',
      previousPath: 'a.md',
      path: 'n/a.md',
      command: 'update',
    });
    const both = await update({ path: p('m.md'), content: 'three' }, { expectSha256: sha('two') });
    expect(both.record).toMatchObject({
      path: 'm.md',
      fileId: a.fileId,
      sha256: sha('three'),
      createdAt: a.createdAt,
    });
    newest = (await driver.listVersions!({ limit: 1 })).versions[0]!;
    expect(newest).toMatchObject({ operation: 'renamed', previousPath: 'n/a.md', sha256: sha('three') });
    expect(await driver.readRecord!(p('n/a.md'))).toBeNull();
    expect(await driver.read(p('m.md'))).toMatchObject({ content: 'three' });
    expect(await driver.locate!(a.fileId)).toEqual(both.record);
    const versions = await driver.listVersions!({ limit: 100, fileId: a.fileId });
    expect(versions.versions.map((version) => version.operation)).toEqual([
      'renamed',
      'renamed',
      'modified',
      'created',
    ]);
  });

  it('remove with an expectation: a mismatch or a directory is a CONFLICT and removes nothing; nothing there is false', async () => {
    const { driver } = open('records-remove');
    await write(driver, 'a.md', 'one');
    await write(driver, 'dir/b.md', 'two');
    const a = (await driver.readRecord!(p('a.md')))!;
    await expect(
      driver.remove(p('a.md'), { op: op(), expect: { sha256: sha('other') } }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'a.md',
    });
    await expect(
      driver.remove(p('a.md'), { op: op(), expect: { fileId: 'mem_SomeOtherFileId000000' } }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(driver.remove(p('dir'), { op: op(), expect: { sha256: sha('two') } })).rejects.toMatchObject(
      {
        code: 'CONFLICT',
        path: 'dir',
      },
    );
    expect(await driver.readRecord!(p('a.md'))).toEqual(a);
    expect(await driver.remove(p('nothing.md'), { op: op(), expect: { sha256: sha('x') } })).toBe(false);
    expect(
      await driver.remove(p('a.md'), { op: op(), expect: { fileId: a.fileId, sha256: sha('one') } }),
    ).toBe(true);
    expect(await driver.readRecord!(p('a.md'))).toBeNull();
  });
});

describe('files written before records (wave 3)', () => {
  /** An object as the wave 3 code wrote it: the id in `memdir-file` (a change of it), or nothing (raw). */
  async function wave3(prefix: string, path: string, content: string, fileId?: string) {
    await admin.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${prefix}/memories/${path}`,
        Body: content,
        ContentType: 'text/plain; charset=utf-8',
        Metadata: fileId ? { 'memdir-op': 'wave3-op', 'memdir-file': fileId } : { 'memdir-op': 'wave3-op' },
      }),
    );
  }

  it('get their ids and hashes at their first read, listing, lookup or change, and keep them', async () => {
    const { driver, prefix } = open('records-wave3');
    const id = 'mem_Wave3FileId000000001';
    await wave3(prefix, 'with-id.md', 'kept id', id);
    await wave3(prefix, 'raw.md', 'no id');
    await wave3(prefix, 'listed/l.md', 'listed');
    await wave3(prefix, 'edited.md', 'edit me');
    expect(await driver.readRecord!(p('with-id.md'))).toMatchObject({
      fileId: id,
      sha256: sha('kept id'),
      size: 7,
      versionId: null,
    });
    const raw = (await driver.readRecord!(p('raw.md'), { content: true }))!;
    expect(raw).toMatchObject({ sha256: sha('no id'), content: 'no id' });
    expect(raw.fileId).toMatch(/^mem_/);
    expect(raw.createdAt).toEqual(expect.any(Number));
    // Another store (process) reads what the first one wrote down.
    const other = createS3Driver({ ...storeOptions(prefix) });
    drivers.push(other);
    expect(await other.readRecord!(p('raw.md'))).toMatchObject({ fileId: raw.fileId, sha256: sha('no id') });
    const listed = await other.listRecords!({ limit: 10, under: p('listed') });
    expect(listed.items).toEqual([expect.objectContaining({ path: 'listed/l.md', sha256: sha('listed') })]);
    const l = listed.items[0] as DriverRecord;
    expect(await driver.locate!(l.fileId)).toMatchObject({ path: 'listed/l.md' });
    await driver.update!(p('edited.md'), (text) => `${text}!`, { op: op() });
    const edited = (await other.readRecord!(p('edited.md')))!;
    expect(edited).toMatchObject({ sha256: sha('edit me!') });
    await driver.update!(p('edited.md'), (text) => `${text}!`, { op: op() });
    expect(await other.readRecord!(p('edited.md'))).toMatchObject({
      fileId: edited.fileId,
      sha256: sha('edit me!!'),
    });
    expect(await driver.read(p('with-id.md'))).toMatchObject({ content: 'kept id' });
  });
});

describe('a store the wave 3 release wrote (its own objects, fixtures/wave3-prefix.json)', () => {
  interface Wave3Fixture {
    readonly namespace: string;
    readonly objects: readonly {
      readonly key: string;
      readonly body: string;
      readonly contentType: string | null;
      readonly metadata: Record<string, string>;
    }[];
  }
  const fixture: Wave3Fixture = JSON.parse(
    readFileSync(new URL('./fixtures/wave3-prefix.json', import.meta.url), 'utf8'),
  );

  it('keeps its files, history and ids; records, byte order, locate and an update by id work on it', async () => {
    const prefix = uniquePrefix('records-wave3-release');
    prefixes.push(prefix);
    for (const object of fixture.objects) {
      await admin.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `${prefix}/${object.key}`,
          Body: Buffer.from(object.body, 'base64'),
          ContentType: object.contentType ?? undefined,
          Metadata: object.metadata,
        }),
      );
    }
    const store = createS3Store({ ...storeOptions(prefix), namespace: fixture.namespace }) as MemoryStore &
      MemoryHistory;
    const driver = createS3Driver(storeOptions(prefix)).namespace(fixture.namespace);
    drivers.push(driver);
    try {
      const expected = WAVE3_FILES;
      // The ids and newest versions wave 3's history gives each file.
      const newest = new Map<string, { fileId: string; id: string }>();
      for (const path of expected.keys()) {
        const [version] = (await store.history({ path: `/memories/${path}`, limit: 1 })).versions;
        newest.set(path, { fileId: version!.fileId, id: version!.id });
      }
      expect((await store.history({ limit: 100 })).versions).toHaveLength(WAVE3_VERSIONS);
      const page = await driver.listRecords!({ limit: 10 });
      expect(page.items.map((item) => item.path)).toEqual([...expected.keys()]);
      for (const item of page.items as DriverRecord[]) {
        const content = expected.get(item.path)!;
        expect(item).toMatchObject({
          kind: 'file',
          fileId: newest.get(item.path)!.fileId,
          sha256: sha(content),
          size: Buffer.byteLength(content),
          versionId: newest.get(item.path)!.id,
        });
        expect(await driver.locate!(item.fileId)).toMatchObject({ path: item.path, sha256: sha(content) });
      }
      expect(await store.execute({ command: 'view', path: '/memories/notes.md' })).toBe(
        "Here's the content of /memories/notes.md with line numbers:\n     1\tsecond\n     2\t",
      );
      const notes = newest.get('notes.md')!;
      const updated = await driver.updateById!(
        notes.fileId,
        { content: 'third\n', path: p('kept/notes.md') },
        { op: op(), record: recorded('update'), expectSha256: sha('second\n'), maxFileBytes: 1_000_000 },
      );
      expect(updated.record).toMatchObject({
        path: 'kept/notes.md',
        fileId: notes.fileId,
        sha256: sha('third\n'),
      });
      const versions = (await store.history({ path: '/memories/kept/notes.md', limit: 10 })).versions;
      expect(versions.map((version) => version.fileId)).toEqual(Array(versions.length).fill(notes.fileId));
      expect(versions[0]!.id).toBe(updated.record.versionId);
    } finally {
      await store.close();
    }
  });
});
