// History (docs/history.md): one version per file changed, in the same step as the change, with its
// file id (stable across renames), operation, hash, size, time and who made it; reading it back by
// every filter; restore (with and without a hash that must hold, of a deleted file); redaction;
// the tree as of a time or a version. For stores whose capabilities declare `history`. The heavier
// checks (retention under 10,000 edits, four writers, import) are in history-scale.ts.

import type { MemoryVersion } from '@memdir/core';
import { expect } from 'vitest';
import { expectError, listingHeader, seed, view } from './assertions.js';
import { allVersions, type HistoryStore, pause, sha, withHistory } from './history-helpers.js';
import { historyScaleTests } from './history-scale.js';
import type { Suite } from './suite.js';

const VERSION_ID = /^memver_\d{16}$/;
const FILE_ID = /^mem_[A-Za-z0-9_-]{16,}$/;

function create(store: HistoryStore, path: string, file_text: string): Promise<string> {
  return store.create({ command: 'create', path, file_text });
}

/** The fields a test states, for comparing versions without their ids and times. */
function shape(version: MemoryVersion) {
  return {
    operation: version.operation,
    path: version.path,
    previousPath: version.previousPath,
    sha256: version.sha256,
    size: version.size,
    command: version.command,
  };
}

export function historyTests(suite: Suite): void {
  const { test } = suite;
  if (suite.capabilities.history !== true) return;

  const open = async (options = {}) => withHistory(await suite.open(options));

  test('history: create, str_replace, insert, rename and delete each record one version, newest first, with operation, path, hash, size and command', async () => {
    const store = await open();
    await create(store, '/memories/a.md', 'one');
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'one',
      new_str: 'two',
    });
    await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'three' });
    await store.rename({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' });
    await store.delete({ command: 'delete', path: '/memories/b.md' });
    const versions = await allVersions(store);
    expect(versions.map(shape)).toEqual([
      {
        operation: 'deleted',
        path: '/memories/b.md',
        previousPath: null,
        sha256: null,
        size: null,
        command: 'delete',
      },
      {
        operation: 'renamed',
        path: '/memories/b.md',
        previousPath: '/memories/a.md',
        sha256: sha('two\nthree'),
        size: 9,
        command: 'rename',
      },
      {
        operation: 'modified',
        path: '/memories/a.md',
        previousPath: null,
        sha256: sha('two\nthree'),
        size: 9,
        command: 'insert',
      },
      {
        operation: 'modified',
        path: '/memories/a.md',
        previousPath: null,
        sha256: sha('two'),
        size: 3,
        command: 'str_replace',
      },
      {
        operation: 'created',
        path: '/memories/a.md',
        previousPath: null,
        sha256: sha('one'),
        size: 3,
        command: 'create',
      },
    ]);
    for (const version of versions) {
      expect(version.id).toMatch(VERSION_ID);
      expect(version.fileId).toBe(versions[0]!.fileId);
      expect(new Date(version.createdAt).toISOString()).toBe(version.createdAt);
      expect([version.actor, version.toolUseId, version.restoredFrom, version.redactedAt]).toEqual([
        null,
        null,
        null,
        null,
      ]);
    }
    expect(versions[0]!.fileId).toMatch(FILE_ID);
    expect(new Set(versions.map((version) => version.operationId)).size).toBe(5);
    expect((await store.version(versions[4]!.id)).content).toBe('one');
    expect((await store.version(versions[1]!.id)).content).toBe('two\nthree');
    expect(await store.version(versions[0]!.id)).toMatchObject({ operation: 'deleted', content: null });
    await expectError(store.version('memver_9999999999999999'), 'NOT_FOUND');
  });

  test('history: a refused command and a view record nothing', async () => {
    const store = await open({ overwrite: false });
    await seed(store, { '/memories/f.md': 'alpha', '/memories/d/g.md': 'g' });
    const before = await allVersions(store);
    const refused = [
      store.str_replace({ command: 'str_replace', path: '/memories/f.md', old_str: 'zzz', new_str: 'y' }),
      store.insert({ command: 'insert', path: '/memories/f.md', insert_line: 9, insert_text: 'x' }),
      create(store, '/memories/f.md', 'again'),
      create(store, '/memories/d', 'over a directory'),
      create(store, '/memories/f.md/under', 'under a file'),
      store.rename({ command: 'rename', old_path: '/memories/f.md', new_path: '/memories/d/g.md' }),
      store.delete({ command: 'delete', path: '/memories/missing.md' }),
    ];
    for (const result of await Promise.allSettled(refused)) expect(result.status).toBe('rejected');
    await view(store, '/memories/f.md');
    await view(store, '/memories');
    expect(await allVersions(store)).toEqual(before);
  });

  test("history: a folder rename and a folder delete record one version per file, each sharing its command's operation id; file ids follow the files", async () => {
    const store = await open();
    await seed(store, { '/memories/d/x.md': 'x', '/memories/d/y.md': 'yy', '/memories/d/sub/z.md': 'zzz' });
    const created = await allVersions(store);
    const idOf = new Map(
      created.map((version) => [version.path!.slice('/memories/d/'.length), version.fileId]),
    );
    await store.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' });
    const renamed = (await allVersions(store, { operations: ['renamed'] })).sort((a, b) =>
      a.path! < b.path! ? -1 : 1,
    );
    expect(renamed.map((version) => [version.previousPath, version.path, version.size])).toEqual([
      ['/memories/d/sub/z.md', '/memories/e/sub/z.md', 3],
      ['/memories/d/x.md', '/memories/e/x.md', 1],
      ['/memories/d/y.md', '/memories/e/y.md', 2],
    ]);
    expect(renamed.map((version) => version.fileId)).toEqual([
      idOf.get('sub/z.md'),
      idOf.get('x.md'),
      idOf.get('y.md'),
    ]);
    expect(new Set(renamed.map((version) => version.operationId)).size).toBe(1);
    await store.delete({ command: 'delete', path: '/memories/e' });
    const deleted = await allVersions(store, { operations: ['deleted'] });
    expect(deleted.map((version) => version.path).sort()).toEqual([
      '/memories/e/sub/z.md',
      '/memories/e/x.md',
      '/memories/e/y.md',
    ]);
    expect(new Set(deleted.map((version) => version.operationId)).size).toBe(1);
    expect(deleted[0]!.operationId).not.toBe(renamed[0]!.operationId);
    // A new file where an old one was is another file.
    await create(store, '/memories/d/x.md', 'new');
    const [fresh] = await allVersions(store, { path: '/memories/d/x.md', operations: ['created'], limit: 1 });
    expect(fresh!.fileId).not.toBe(idOf.get('x.md'));
  });

  test("history: attribution: the store's actor, a call's actor and tool_use id over it, null when none is given; history filters by actor", async () => {
    const plain = await open();
    const agent = await open({ actor: { type: 'session', id: 'session-1' } });
    await create(plain, '/memories/plain.md', 'p');
    await agent.execute(
      { command: 'create', path: '/memories/s.md', file_text: 's' },
      { toolUseId: 'toolu_01' },
    );
    await agent.create(
      { command: 'create', path: '/memories/k.md', file_text: 'k' },
      { actor: { type: 'api', id: 'key-1' }, toolUseId: 'toolu_02' },
    );
    const versions = await allVersions(plain);
    expect(versions.map((version) => [version.path, version.actor, version.toolUseId])).toEqual([
      ['/memories/k.md', { type: 'api', id: 'key-1' }, 'toolu_02'],
      ['/memories/s.md', { type: 'session', id: 'session-1' }, 'toolu_01'],
      ['/memories/plain.md', null, null],
    ]);
    expect((await allVersions(plain, { actor: 'session-1' })).map((version) => version.path)).toEqual([
      '/memories/s.md',
    ]);
  });

  test('history: filters by path (a folder is its subtree), file id, operation and time, and pages with a cursor', async () => {
    const store = await open();
    await seed(store, {
      '/memories/notes/a.md': 'a',
      '/memories/notes/b.md': 'b',
      '/memories/notesX.md': 'x',
    });
    await pause(15);
    await create(store, '/memories/notes/a.md', 'a2');
    await store.rename({
      command: 'rename',
      old_path: '/memories/notesX.md',
      new_path: '/memories/notes/x.md',
    });
    const all = await allVersions(store);
    expect(all).toHaveLength(5);
    const paths = (versions: MemoryVersion[]) => versions.map((version) => version.path);
    expect(paths(await allVersions(store, { path: '/memories/notes' }))).toEqual([
      '/memories/notes/x.md',
      '/memories/notes/a.md',
      '/memories/notes/b.md',
      '/memories/notes/a.md',
    ]);
    // The version that moved a file away is in the history of the path it left.
    expect(paths(await allVersions(store, { path: '/memories/notesX.md' }))).toEqual([
      '/memories/notes/x.md',
      '/memories/notesX.md',
    ]);
    const aId = all.find((version) => version.path === '/memories/notes/a.md')!.fileId;
    expect((await allVersions(store, { fileId: aId })).map((version) => version.operation)).toEqual([
      'modified',
      'created',
    ]);
    expect(paths(await allVersions(store, { operations: ['modified', 'renamed'] }))).toEqual([
      '/memories/notes/x.md',
      '/memories/notes/a.md',
    ]);
    const edit = all[1]!;
    expect((await allVersions(store, { since: edit.createdAt })).map((version) => version.id)).toEqual([
      all[0]!.id,
      edit.id,
    ]);
    expect((await allVersions(store, { until: new Date(Date.parse(edit.createdAt) - 1) })).length).toBe(3);
    // Pages of two: every version once, newest first.
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.history({ limit: 2, cursor });
      expect(page.versions.length).toBeLessThanOrEqual(2);
      pages.push(...page.versions.map((version) => version.id));
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    expect(pages).toEqual(all.map((version) => version.id));
    await expectError(store.history({ limit: 0 }), 'INVALID_INPUT');
    await expectError(store.history({ path: '/etc' }), 'INVALID_PATH');
  });

  test('history: restore writes a version back as a new restored version; with expectSha256 that does not hold it is CONFLICT and changes nothing', async () => {
    const store = await open();
    await create(store, '/memories/f.md', 'first');
    await create(store, '/memories/f.md', 'second');
    const [second, first] = await allVersions(store);
    const restored = await store.restore(first!.id, { expectSha256: sha('second') });
    expect(restored).toMatchObject({
      operation: 'restored',
      path: '/memories/f.md',
      fileId: first!.fileId,
      sha256: sha('first'),
      size: 5,
      command: 'restore',
      restoredFrom: first!.id,
    });
    expect(restored.id > second!.id).toBe(true);
    expect(await view(store, '/memories/f.md')).toBe(
      "Here's the content of /memories/f.md with line numbers:\n     1\tfirst",
    );
    const before = await suite.snapshot();
    await expectError(store.restore(second!.id, { expectSha256: sha('second') }), 'CONFLICT');
    await expectError(store.restore(second!.id, { expectSha256: null }), 'CONFLICT');
    expect(await suite.snapshot()).toEqual(before);
    expect((await allVersions(store)).length).toBe(3);
    // To a path where nothing is, with null expected.
    const copy = await store.restore(second!.id, { path: '/memories/copy.md', expectSha256: null });
    expect(copy).toMatchObject({
      path: '/memories/copy.md',
      operation: 'restored',
      restoredFrom: second!.id,
    });
    expect(copy.fileId).not.toBe(first!.fileId);
  });

  test('history: restore brings a deleted file back with its file id; a deletion, a redacted or an unknown version is NOT_FOUND', async () => {
    const store = await open();
    await create(store, '/memories/g.md', 'kept');
    await store.delete({ command: 'delete', path: '/memories/g.md' });
    const [deletion, creation] = await allVersions(store);
    await expectError(store.restore(deletion!.id), 'NOT_FOUND');
    await expectError(store.restore('memver_9999999999999999'), 'NOT_FOUND');
    const back = await store.restore(creation!.id, { expectSha256: null });
    expect(back).toMatchObject({ path: '/memories/g.md', fileId: creation!.fileId, operation: 'restored' });
    expect(await view(store, '/memories/g.md')).toBe(
      "Here's the content of /memories/g.md with line numbers:\n     1\tkept",
    );
    // Elsewhere, or once the file is back, it is a copy.
    await store.delete({ command: 'delete', path: '/memories/g.md' });
    const elsewhere = await store.restore(creation!.id, { path: '/memories/h/g.md' });
    expect(elsewhere.fileId).not.toBe(creation!.fileId);
    await store.redact(creation!.id);
    await expectError(store.restore(creation!.id, { path: '/memories/i.md' }), 'NOT_FOUND');
    await expectError(store.restore(back.id, { path: '/memories/h/g.md/under' }), 'PATH_CONFLICT');
    await expectError(store.restore(back.id, { path: '/memories/h' }), 'PATH_CONFLICT');
  });

  test('history: redact removes content, path, size and hash for good and keeps the rest with the time; the file is not changed', async () => {
    const store = await open({ actor: { type: 'user', id: 'u-7' } });
    await create(store, '/memories/r.md', 'secret');
    await create(store, '/memories/r.md', 'public');
    const [current, secret] = await allVersions(store);
    const redacted = await store.redact(secret!.id);
    expect(redacted).toMatchObject({
      id: secret!.id,
      fileId: secret!.fileId,
      operation: 'created',
      path: null,
      previousPath: null,
      sha256: null,
      size: null,
      createdAt: secret!.createdAt,
      actor: { type: 'user', id: 'u-7' },
      operationId: secret!.operationId,
    });
    expect(new Date(redacted.redactedAt!).toISOString()).toBe(redacted.redactedAt);
    expect(await store.version(secret!.id)).toMatchObject({ content: null, redactedAt: redacted.redactedAt });
    expect((await store.redact(secret!.id)).redactedAt).toBe(redacted.redactedAt);
    expect((await allVersions(store)).map((version) => version.id)).toEqual([current!.id, secret!.id]);
    expect((await allVersions(store, { path: '/memories/r.md' })).map((version) => version.id)).toEqual([
      current!.id,
    ]);
    expect(await view(store, '/memories/r.md')).toBe(
      "Here's the content of /memories/r.md with line numbers:\n     1\tpublic",
    );
    await expectError(store.redact('memver_9999999999999999'), 'NOT_FOUND');
  });

  test('history: asOf a version id or a time shows the tree as it was then, and every change command is READ_ONLY', async () => {
    const store = await open();
    await create(store, '/memories/a.md', '1');
    await pause(15);
    await create(store, '/memories/dir/b.md', 'bb');
    await create(store, '/memories/a.md', '22');
    await store.delete({ command: 'delete', path: '/memories/dir' });
    await store.rename({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/c.md' });
    const [renamed, , second, withB, first] = await allVersions(store);
    const root = (...lines: string[]) => `${listingHeader('/memories')}${lines.join('\n')}`;

    const atB = await store.asOf(withB!.id);
    expect(await view(atB, '/memories')).toBe(
      root('3B\t/memories', '1B\t/memories/a.md', '2B\t/memories/dir/', '2B\t/memories/dir/b.md'),
    );
    expect(await view(atB, '/memories/dir/b.md')).toBe(
      "Here's the content of /memories/dir/b.md with line numbers:\n     1\tbb",
    );
    expect(await view(await store.asOf(second!.id), '/memories/a.md')).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\t22",
    );
    expect(await view(await store.asOf(renamed!.id), '/memories')).toBe(
      root('2B\t/memories', '2B\t/memories/c.md'),
    );
    // By time: the first change was 15 ms before the others.
    const atFirst = await store.asOf(first!.createdAt);
    expect(await view(atFirst, '/memories')).toBe(root('1B\t/memories', '1B\t/memories/a.md'));
    expect(await view(await store.asOf(new Date(0)), '/memories')).toBe(root('0B\t/memories'));
    await expectError(view(atFirst, '/memories/c.md'), 'NOT_FOUND');

    const why = `it shows the memory as it was at version ${withB!.id}`;
    const changes = [
      { command: 'create', path: '/memories/x.md', file_text: 'x' },
      { command: 'str_replace', path: '/memories/a.md', old_str: '1', new_str: '2' },
      { command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: '/memories/a.md' },
      { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/z.md' },
    ] as const;
    for (const change of changes) {
      await expectError(
        atB.execute(change),
        'READ_ONLY',
        `The memory directory is read-only (${why}): the ${change.command} command was not run.`,
      );
    }
    expect((await allVersions(store)).length).toBe(5);
    await expectError(store.asOf('memver_9999999999999999'), 'NOT_FOUND');
  });

  test('history: with history: false a store records nothing and its history methods are UNSUPPORTED', async () => {
    const off = withHistory(await suite.open({ history: false }));
    await create(off, '/memories/quiet.md', 'q');
    await expectError(off.history(), 'UNSUPPORTED');
    await expectError(off.restore('memver_0000000000000001'), 'UNSUPPORTED');
    const on = await open();
    expect(await allVersions(on)).toEqual([]);
  });

  historyScaleTests(suite);
}
