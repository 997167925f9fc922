// Folders written before records were kept (the wave 3 layout: files, history, totals, no
// `.memdir/records`), and folders of plain files: every file gets a record at the first locked
// call, with the id its history knows (else a new one that then stays), the right hash, and the
// version holding its content.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChangeRecord, DriverPath, DriverRecord, MemoryHistory, MemoryStore } from '@memdir/core';
import { WAVE3_FILES, WAVE3_VERSIONS } from '@memdir/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsDriver, createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const op = () => randomBytes(16).toString('base64url');
const p = (path: string) => path as DriverPath;
const RECORD: ChangeRecord = {
  actor: null,
  command: 'create',
  toolUseId: null,
  keepVersions: 100,
  keepDays: 30,
};

describe('records of folders written before them', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('a folder with history and no records: ids from the history, hashes, versions, found by id', async () => {
    // Written with history, then the records file removed: what the wave 3 code left (its history
    // and totals are the same files).
    const old = createFsDriver({ root });
    await old.write(p('a.md'), 'first', { op: op(), record: RECORD });
    await old.write(p('a.md'), 'second', { op: op(), record: RECORD });
    await old.write(p('d/b.md'), 'bee', { op: op(), record: RECORD });
    await old.move(p('d/b.md'), p('e/b.md'), { op: op(), record: RECORD });
    await old.write(p('gone.md'), 'gone', { op: op(), record: RECORD });
    await old.remove(p('gone.md'), { op: op(), record: RECORD });
    await old.close();
    rmSync(join(root, '.memdir', 'records'));
    // And a file a person added meanwhile, which no history knows.
    writeFileSync(join(root, 'memories', 'by-hand.md'), 'hand');

    const driver = createFsDriver({ root });
    const history = (await driver.listVersions({ limit: 100 })).versions;
    const newestOf = (path: string) => history.find((version) => version.path === path)!;
    const records = (await driver.listRecords({ limit: 100 })).items as DriverRecord[];
    expect(records.map((record) => record.path)).toEqual(['a.md', 'by-hand.md', 'e/b.md']);
    for (const [path, content] of [
      ['a.md', 'second'],
      ['e/b.md', 'bee'],
    ] as const) {
      const record = records.find((each) => each.path === path)!;
      const newest = newestOf(path);
      expect(record).toMatchObject({
        fileId: newest.fileId,
        sha256: sha(content),
        size: content.length,
        versionId: newest.id,
        changedAt: newest.at,
      });
      const oldest = history.filter((version) => version.fileId === newest.fileId).at(-1)!;
      expect(record.createdAt).toBe(oldest.at);
      expect(await driver.locate(newest.fileId)).toEqual(record);
    }
    const hand = records.find((record) => record.path === 'by-hand.md')!;
    expect(hand).toMatchObject({ sha256: sha('hand'), versionId: null });
    expect(history.some((version) => version.fileId === hand.fileId)).toBe(false);
    // Changes go on from there with the same ids, in the records and in the history.
    const edited = (await driver.write(p('a.md'), 'third', { op: op(), record: RECORD })).record!;
    expect(edited.fileId).toBe(newestOf('a.md').fileId);
    expect((await driver.listVersions({ limit: 1 })).versions[0]!.fileId).toBe(edited.fileId);
    await driver.close();
    // Ids given once stay: another driver (another process) finds the same.
    const later = createFsDriver({ root });
    expect(await later.readRecord(p('by-hand.md'))).toEqual(hand);
    await later.close();
  });

  it('a folder the wave 3 release wrote (its own files, fixtures/wave3-folder.json): files, history and ids as they were, records at the first look', async () => {
    const fixture: { namespace: string; files: { path: string; content: string }[] } = JSON.parse(
      readFileSync(new URL('./fixtures/wave3-folder.json', import.meta.url), 'utf8'),
    );
    for (const file of fixture.files) {
      mkdirSync(dirname(join(root, file.path)), { recursive: true });
      writeFileSync(join(root, file.path), Buffer.from(file.content, 'base64'));
    }
    const store = createFsStore({ root, namespace: fixture.namespace }) as MemoryStore & MemoryHistory;
    const driver = createFsDriver({ root }).namespace(fixture.namespace);
    try {
      const expected = WAVE3_FILES;
      const newest = new Map<string, { fileId: string; id: string }>();
      for (const path of expected.keys()) {
        const [version] = (await store.history({ path: `/memories/${path}`, limit: 1 })).versions;
        newest.set(path, { fileId: version!.fileId, id: version!.id });
      }
      expect((await store.history({ limit: 100 })).versions).toHaveLength(WAVE3_VERSIONS);
      const page = await driver.listRecords({ limit: 10 });
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
        expect(await driver.locate(item.fileId)).toMatchObject({ path: item.path, sha256: sha(content) });
      }
      expect(await store.execute({ command: 'view', path: '/memories/notes.md' })).toBe(
        "Here's the content of /memories/notes.md with line numbers:\n     1\tsecond\n     2\t",
      );
      const notes = newest.get('notes.md')!;
      const updated = await driver.updateById(
        notes.fileId,
        { content: 'third\n', path: p('kept/notes.md') },
        {
          op: op(),
          record: { ...RECORD, command: 'update' },
          expectSha256: sha('second\n'),
          maxFileBytes: 1_000_000,
        },
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
      await driver.close();
      await store.close();
    }
  });

  it('a folder of plain files (no .memdir at all) gets records at the first look, kept afterwards', async () => {
    mkdirSync(join(root, 'memories', 'notes', 'deep'), { recursive: true });
    writeFileSync(join(root, 'memories', 'notes', 'one.md'), 'one');
    writeFileSync(join(root, 'memories', 'notes', 'deep', 'two.md'), 'twö');
    const driver = createFsDriver({ root });
    const byPath = await driver.readRecord(p('notes/deep/two.md'), { content: true });
    expect(byPath).toMatchObject({ sha256: sha('twö'), size: 4, content: 'twö', versionId: null });
    const one = (await driver.readRecord(p('notes/one.md')))!;
    expect(await driver.locate(one.fileId)).toEqual(one);
    await driver.move(p('notes'), p('moved'), { op: op() });
    expect(await driver.locate(one.fileId)).toMatchObject({ path: 'moved/one.md', sha256: sha('one') });
    await driver.close();
  });
});
