// The records (capabilities.records, updateById, removeExpect) on the filesystem driver: ids kept
// by every change with history on and off, hashes, times and versions, lookups by path and id,
// listings in byte order, updates by id, removals with an expectation, and files changed by hand.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeRecord, DriverPath, DriverRecord } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsDriver, type FsDriver } from '../src/index.js';
import { tempFolder } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const op = () => randomBytes(16).toString('base64url');
const p = (path: string) => path as DriverPath;
const RECORD: ChangeRecord = {
  actor: null,
  command: 'create',
  toolUseId: null,
  keepVersions: 1000,
  keepDays: 30,
};
const UPDATE: ChangeRecord = { ...RECORD, command: 'update' };

describe.each([
  ['history on', true],
  ['history off', false],
])('records (%s)', (_name, history) => {
  let root: string;
  let cleanup: () => Promise<void>;
  let driver: FsDriver;
  const record = history ? RECORD : undefined;
  const change = () => ({ op: op(), record });
  const updateOptions = () => ({ op: op(), record: history ? UPDATE : undefined, maxFileBytes: 1000 });

  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
    driver = createFsDriver({ root });
  });
  afterEach(async () => {
    await driver.close();
    await cleanup();
  });

  it('gives a new file a new id, keeps it through edits and moves, and hashes what is there', async () => {
    const written = await driver.write(p('a.md'), 'one', change());
    const first = written.record!;
    expect(first).toMatchObject({ kind: 'file', path: 'a.md', sha256: sha('one'), size: 3 });
    expect(first.fileId).toMatch(/^mem_[A-Za-z0-9_-]{16,128}$/);
    expect(first.createdAt).toBe(first.changedAt);
    if (history) {
      const page = await driver.listVersions({ limit: 10 });
      expect(first.versionId).toBe(page.versions[0]!.id);
      expect(page.versions[0]!.fileId).toBe(first.fileId);
    } else {
      expect(first.versionId).toBeNull();
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = (await driver.write(p('a.md'), 'two!', change())).record!;
    expect(again).toMatchObject({
      fileId: first.fileId,
      createdAt: first.createdAt,
      sha256: sha('two!'),
      size: 4,
    });
    expect(again.changedAt).toBeGreaterThan(first.changedAt!);
    await driver.edit(
      p('a.md'),
      { kind: 'insert', line: 1, text: 'ünï' },
      { ...change(), maxFileBytes: 1000 },
    );
    const edited = await driver.readRecord(p('a.md'), { content: true });
    expect(edited).toMatchObject({
      fileId: first.fileId,
      sha256: sha('two!\nünï'),
      size: Buffer.byteLength('two!\nünï'),
      content: 'two!\nünï',
    });
    await driver.move(p('a.md'), p('d/e/b.md'), change());
    expect(await driver.readRecord(p('a.md'))).toBeNull();
    const moved = (await driver.readRecord(p('d/e/b.md')))!;
    expect(moved).toMatchObject({
      fileId: first.fileId,
      createdAt: first.createdAt,
      sha256: sha('two!\nünï'),
    });
    await driver.move(p('d'), p('f'), change());
    expect((await driver.locate(first.fileId))!.path).toBe('f/e/b.md');
    if (history) {
      const versions = (await driver.listVersions({ fileId: first.fileId, limit: 10 })).versions;
      expect(versions).toHaveLength(5);
      expect((await driver.locate(first.fileId))!.versionId).toBe(versions[0]!.id);
    }
    // A file made where another was deleted is a new file.
    await driver.remove(p('f/e/b.md'), change());
    expect(await driver.locate(first.fileId)).toBeNull();
    const fresh = (await driver.write(p('f/e/b.md'), 'two!\nünï', change())).record!;
    expect(fresh.fileId).not.toBe(first.fileId);
  });

  it('a write with fileId gives a new file that id, and an existing one keeps its own', async () => {
    const id = `mem_${'x'.repeat(20)}`;
    const made = (await driver.write(p('i.md'), 'imported', { op: op(), fileId: id })).record!;
    expect(made.fileId).toBe(id);
    const kept = (await driver.write(p('i.md'), 'again', { op: op(), fileId: `mem_${'y'.repeat(20)}` }))
      .record!;
    expect(kept.fileId).toBe(id);
  });

  it('locate: null for unknown, malformed and another namespace ids; content on request', async () => {
    const other = driver.namespace('other');
    const theirs = (await other.write(p('x.md'), 'theirs', change())).record!;
    const mine = (await driver.write(p('x.md'), 'mine', change())).record!;
    expect(await driver.locate(theirs.fileId)).toBeNull();
    expect(await other.locate(mine.fileId)).toBeNull();
    expect(await driver.locate('mem_unknown-but-well-formed')).toBeNull();
    expect(await driver.locate('not an id')).toBeNull();
    expect(await driver.locate('../x.md')).toBeNull();
    expect(await driver.locate(mine.fileId, { content: true })).toEqual({ ...mine, content: 'mine' });
    expect(await driver.readRecord(p(''))).toBeNull();
    await driver.write(p('dir/y.md'), 'y', change());
    expect(await driver.readRecord(p('dir'))).toBeNull();
  });

  it('listRecords: byte order of keys, depth markers, cursors that skip a folder, limits', async () => {
    const paths = [
      'a/b/c.md',
      'a/b.md',
      'a-z.md',
      'a/x.md',
      'b.md',
      'é.md',
      '😀.md',
      'ｚ.md',
      '.hidden/h.md',
    ];
    for (const path of paths) await driver.write(p(path), path, change());
    const all = await driver.listRecords({ limit: 100 });
    const keys = all.items.map((item) => item.path);
    const sorted = [...paths].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(keys).toEqual(sorted);
    expect(all.next).toBeNull();
    for (const item of all.items) expect((item as DriverRecord).sha256).toBe(sha(item.path));
    const top = await driver.listRecords({ depth: 1, limit: 100 });
    expect(top.items.map((item) => (item.kind === 'folder' ? `${item.path}/` : item.path))).toEqual([
      '.hidden/',
      'a-z.md',
      'a/',
      'b.md',
      'é.md',
      'ｚ.md',
      '😀.md',
    ]);
    const skipped = await driver.listRecords({ depth: 0, after: 'a/', limit: 100 });
    expect(skipped.items.map((item) => item.path)).toEqual(['b.md', 'é.md', 'ｚ.md', '😀.md']);
    const under = await driver.listRecords({ under: p('a'), depth: 1, limit: 100 });
    expect(under.items.map((item) => `${item.kind}:${item.path}`)).toEqual([
      // `a/b.md` before the key `a/b/`: '.' is 0x2E, '/' 0x2F.
      'file:a/b.md',
      'folder:a/b',
      'file:a/x.md',
    ]);
    // Pages of 2 walk everything once.
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: Awaited<ReturnType<FsDriver['listRecords']>> = await driver.listRecords({
        limit: 2,
        after,
      });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.path));
      after = page.next;
    } while (after !== null);
    expect(seen).toEqual(sorted);
    expect(await driver.listRecords({ under: p('b.md'), limit: 10 })).toEqual({ items: [], next: null });
    expect(await driver.listRecords({ under: p('none'), limit: 10 })).toEqual({ items: [], next: null });
    await expect(driver.listRecords({ limit: 0 })).rejects.toThrow(TypeError);
  });

  it('updateById: content, path, or both, as one version, checks in the contract order', async () => {
    const { fileId, createdAt } = (await driver.write(p('u/a.md'), 'old', change())).record!;
    await driver.write(p('taken.md'), 'taken', change());
    await driver.write(p('dir/in.md'), 'in', change());
    await expect(
      driver.updateById('mem_nobody-at-all-here', { content: 'x' }, updateOptions()),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      path: '',
    });
    // The state asked for is there: success, nothing changed, whatever the hash expected.
    const same = await driver.updateById(
      fileId,
      { content: 'old', path: p('u/a.md') },
      {
        ...updateOptions(),
        expectSha256: sha('stale'),
      },
    );
    expect(same).toMatchObject({ changed: false, record: { fileId, path: 'u/a.md', sha256: sha('old') } });
    await expect(
      driver.updateById(fileId, { content: 'new' }, { ...updateOptions(), expectSha256: sha('stale') }),
    ).rejects.toMatchObject({ code: 'CONFLICT', path: 'u/a.md' });
    await expect(driver.updateById(fileId, { path: p('taken.md/x') }, updateOptions())).rejects.toMatchObject(
      {
        code: 'PATH_CONFLICT',
        path: 'taken.md',
      },
    );
    await expect(driver.updateById(fileId, { path: p('u/a.md/x') }, updateOptions())).rejects.toMatchObject({
      code: 'PATH_CONFLICT',
      path: 'u/a.md',
    });
    await expect(
      driver.updateById(fileId, { path: p('taken.md'), content: 'new' }, updateOptions()),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', path: 'taken.md' });
    await expect(driver.updateById(fileId, { path: p('dir') }, updateOptions())).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      path: 'dir',
    });
    await expect(
      driver.updateById(fileId, { path: p('big.md'), content: 'x'.repeat(1001) }, updateOptions()),
    ).rejects.toMatchObject({ code: 'TOO_LARGE', path: 'big.md' });
    await expect(
      driver.updateById(fileId, { content: 'x'.repeat(20) }, { ...updateOptions(), quota: { maxBytes: 20 } }),
    ).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(await driver.readRecord(p('u/a.md'), { content: true })).toMatchObject({ content: 'old', fileId });

    const content = await driver.updateById(
      fileId,
      { content: 'new' },
      { ...updateOptions(), expectSha256: sha('old') },
    );
    expect(content).toMatchObject({
      changed: true,
      record: { fileId, path: 'u/a.md', sha256: sha('new'), createdAt },
    });
    const moved = await driver.updateById(fileId, { path: p('v/b.md') }, updateOptions());
    expect(moved.record).toMatchObject({ fileId, path: 'v/b.md', sha256: sha('new'), createdAt });
    const both = await driver.updateById(fileId, { path: p('w/c.md'), content: 'both' }, updateOptions());
    expect(both.record).toMatchObject({ fileId, path: 'w/c.md', sha256: sha('both'), size: 4, createdAt });
    expect(readFileSync(join(root, 'memories', 'w', 'c.md'), 'utf8')).toBe('both');
    expect(await driver.stat(p('v'))).toBeNull();
    expect(await driver.readRecord(p('v/b.md'))).toBeNull();
    expect((await driver.locate(fileId))!.path).toBe('w/c.md');
    if (history) {
      const versions = (await driver.listVersions({ fileId, limit: 10 })).versions;
      expect(
        versions.map((version) => [version.operation, version.command, version.path, version.previousPath]),
      ).toEqual([
        ['renamed', 'update', 'w/c.md', 'v/b.md'],
        ['renamed', 'update', 'v/b.md', 'u/a.md'],
        ['modified', 'update', 'u/a.md', null],
        ['created', 'create', 'u/a.md', null],
      ]);
      expect(versions[0]!.sha256).toBe(sha('both'));
      expect(both.record.versionId).toBe(versions[0]!.id);
      expect((await driver.readVersion(versions[0]!.id))!.content).toBe('both');
    }
    const usage = await driver.usage();
    expect(usage.files).toBe(3);
    expect(usage.bytes).toBe(4 + 5 + 2);
  });

  it('remove with expect: a mismatch or a directory is CONFLICT and removes nothing; nothing there is false', async () => {
    const { fileId } = (await driver.write(p('r/a.md'), 'a', change())).record!;
    await expect(
      driver.remove(p('r/a.md'), { ...change(), expect: { fileId: 'mem_someone-else-entirely' } }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'r/a.md',
    });
    await expect(
      driver.remove(p('r/a.md'), { ...change(), expect: { sha256: sha('b') } }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(driver.remove(p('r'), { ...change(), expect: { fileId } })).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'r',
    });
    expect(await driver.remove(p('nothing.md'), { ...change(), expect: { fileId } })).toBe(false);
    expect(await driver.readRecord(p('r/a.md'))).toMatchObject({ fileId });
    expect(await driver.remove(p('r/a.md'), { ...change(), expect: { fileId, sha256: sha('a') } })).toBe(
      true,
    );
    expect(await driver.locate(fileId)).toBeNull();
  });

  it('a file changed by hand keeps its id with the right hash; one added by hand gets one; one removed is gone', async () => {
    const { fileId } = (await driver.write(p('hand.md'), 'memdir wrote this', change())).record!;
    const file = join(root, 'memories', 'hand.md');
    // Same size, new bytes: the mtime (and here the inode too, as editors save) tells.
    writeFileSync(`${file}.tmp`, 'a person wrote it');
    renameSync(`${file}.tmp`, file);
    expect(await driver.readRecord(p('hand.md'))).toMatchObject({ fileId, sha256: sha('a person wrote it') });
    writeFileSync(file, 'in place, same inode and longer');
    expect(await driver.locate(fileId)).toMatchObject({
      path: 'hand.md',
      sha256: sha('in place, same inode and longer'),
    });
    mkdirSync(join(root, 'memories', 'by'), { recursive: true });
    writeFileSync(join(root, 'memories', 'by', 'hand.md'), 'added');
    const listed = await driver.listRecords({ limit: 10 });
    const added = listed.items.find((item) => item.path === 'by/hand.md') as DriverRecord;
    expect(added).toMatchObject({ sha256: sha('added'), size: 5 });
    expect(await driver.locate(added.fileId)).toMatchObject({ path: 'by/hand.md' });
    // An edit keeps the id the record gave, and the history (when on) has it too.
    await driver.edit(
      p('by/hand.md'),
      { kind: 'insert', line: 1, text: 'more' },
      { ...change(), maxFileBytes: 1000 },
    );
    expect(await driver.readRecord(p('by/hand.md'))).toMatchObject({
      fileId: added.fileId,
      sha256: sha('added\nmore'),
    });
    if (history) {
      expect((await driver.listVersions({ limit: 1 })).versions[0]!.fileId).toBe(added.fileId);
    }
    unlinkSync(file);
    expect(await driver.locate(fileId)).toBeNull();
    rmSync(join(root, 'memories', 'by'), { recursive: true });
    expect((await driver.listRecords({ limit: 10 })).items).toEqual([]);
  });

  it('restore: a deleted file comes back with its id, a copy elsewhere gets a new one', async () => {
    if (!history) return;
    const { fileId, versionId } = (await driver.write(p('gone.md'), 'keep me', change())).record!;
    await driver.remove(p('gone.md'), change());
    const back = await driver.restoreVersion(versionId!, {
      op: op(),
      record: { ...RECORD, command: 'restore' },
      maxFileBytes: 1000,
    });
    expect(back.fileId).toBe(fileId);
    expect(await driver.readRecord(p('gone.md'))).toMatchObject({
      fileId,
      versionId: back.id,
      sha256: sha('keep me'),
    });
    const copy = await driver.restoreVersion(versionId!, {
      op: op(),
      record: { ...RECORD, command: 'restore' },
      maxFileBytes: 1000,
      to: p('copy.md'),
    });
    expect(copy.fileId).not.toBe(fileId);
    expect(await driver.readRecord(p('copy.md'))).toMatchObject({ fileId: copy.fileId, versionId: copy.id });
  });
});
