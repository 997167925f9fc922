// History under load, and what lies below the store: retention holding 10,000 edits of one file to
// `keepVersions`, four store instances (as four processes would be) inserting into one file with
// one version per insert, the newest version of every file matching it after a mix of commands,
// and `importVersions` for drivers that have it. The two heavy tests run only in the suite's first
// run (without a namespace): the namespaced run's lighter tests catch a leak as well.

import type { DriverPath, DriverVersionWithContent } from '@memdir/core';
import {
  EARLIEST_IMPORTED_AT,
  MAX_IMPORTED_SEQUENCE,
  sequenceVersionId,
  versionSequence,
} from '@memdir/core/driver';
import { expect } from 'vitest';
import { contentOf, expectError, view } from './assertions.js';
import { allVersions, type HistoryStore, newestAt, sha, withHistory } from './history-helpers.js';
import { operationId, type Suite } from './suite.js';

/** The heavy tests may take this long on a real server, whatever the target's timeout. */
const HEAVY_TIMEOUT_MS = 240_000;

/** A small deterministic generator, so a failing mix can be replayed. */
function generator(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}

export function historyScaleTests(suite: Suite): void {
  const { test } = suite;
  const open = async (options = {}) => withHistory(await suite.open(options));
  const firstRun = suite.namespace === undefined;

  if (firstRun) {
    const edits = suite.historyEdits;
    test(
      `history: retention: ${edits.toLocaleString('en-US')} edits of one file with keepVersions 3 and keepDays 0 leave at most 3 versions, the newest matching the file`,
      async () => {
        const store = await open({ history: { keepVersions: 3, keepDays: 0 } });
        await store.create({ command: 'create', path: '/memories/other.md', file_text: 'untouched' });
        // One after another: this is about retention, not contention (the concurrency tests and
        // the four writers below are), and a server is no faster with writers queueing on one file.
        for (let index = 0; index < edits; index++) {
          await store.create({ command: 'create', path: '/memories/hot.md', file_text: `edit ${index}` });
        }
        const versions = await allVersions(store, { path: '/memories/hot.md' });
        expect(versions.length).toBeGreaterThanOrEqual(1);
        expect(versions.length).toBeLessThanOrEqual(3);
        const content = contentOf(await view(store, '/memories/hot.md'));
        expect(versions[0]).toMatchObject({ operation: 'modified', sha256: sha(content) });
        expect((await allVersions(store, { path: '/memories/other.md' })).length).toBe(1);
      },
      HEAVY_TIMEOUT_MS,
    );

    test(
      'history: 4 store instances x 250 inserts into one file leave exactly 1,000 new versions, each with the hash of the content after that insert',
      async () => {
        const options = { history: { keepVersions: 1_100, keepDays: 30 }, maxViewChars: 100_000 };
        const stores: HistoryStore[] = [];
        for (let index = 0; index < 4; index++) stores.push(await open(options));
        await stores[0]!.create({ command: 'create', path: '/memories/log.md', file_text: 'base' });
        // Every insert goes on top, so the final file says the order they were applied in.
        await Promise.all(
          stores.map(async (store, writer) => {
            for (let index = 0; index < 250; index++) {
              await store.insert({
                command: 'insert',
                path: '/memories/log.md',
                insert_line: 0,
                insert_text: `${writer}-${index}`,
              });
            }
          }),
        );
        const lines = contentOf(await view(stores[0]!, '/memories/log.md')).split('\n');
        expect(lines).toHaveLength(1_001);
        const [created, ...inserts] = (await allVersions(stores[0]!, { path: '/memories/log.md' })).reverse();
        expect(created).toMatchObject({ operation: 'created', sha256: sha('base') });
        expect(inserts).toHaveLength(1_000);
        expect(new Set(inserts.map((version) => `${version.operation} ${version.command}`))).toEqual(
          new Set(['modified insert']),
        );
        const expected = inserts.map((_, index) => sha(lines.slice(999 - index).join('\n')));
        expect(inserts.map((version) => version.sha256)).toEqual(expected);
      },
      HEAVY_TIMEOUT_MS,
    );
  }

  test('history: after a mix of commands the newest version of every file matches its content, and of every path gone a deletion or a move', async () => {
    const store = await open({ maxViewChars: 100_000 });
    const next = generator(20_261_201);
    const paths = [
      '/memories/a.md',
      '/memories/b.md',
      '/memories/d/c.md',
      '/memories/d/e/f.md',
      '/memories/g/h.md',
    ];
    const folders = ['/memories/d', '/memories/g', '/memories/d/e'];
    const pick = <T>(list: readonly T[]) => list[next(list.length)]!;
    for (let step = 0; step < 60; step++) {
      const path = pick(paths);
      const commands = [
        () => store.create({ command: 'create', path, file_text: `text ${step}\nline` }),
        () => store.str_replace({ command: 'str_replace', path, old_str: 'line', new_str: `line ${step}` }),
        () => store.insert({ command: 'insert', path, insert_line: 1, insert_text: `inserted ${step}` }),
        () => store.delete({ command: 'delete', path: next(3) === 0 ? pick(folders) : path }),
        () =>
          store.rename({
            command: 'rename',
            old_path: next(2) === 0 ? pick(folders) : path,
            new_path: pick(paths),
          }),
      ];
      // Refusals (a missing file, a taken destination) are part of the mix.
      await pick(commands)().catch(() => undefined);
    }
    for (const path of paths) {
      const newest = await newestAt(store, path);
      const node = await store.view({ command: 'view', path }).catch(() => null);
      if (node?.startsWith("Here's the content")) {
        expect(newest, path).toMatchObject({ path, sha256: sha(contentOf(node)) });
        expect(newest!.operation).not.toBe('deleted');
      } else if (node === null && newest) {
        // Gone: the last change at or beneath it removed or moved it.
        const movedAway =
          newest.previousPath === path || newest.previousPath?.startsWith(`${path}/`) === true;
        expect(newest.operation === 'deleted' || movedAway, `${path}: ${newest.operation}`).toBe(true);
      }
    }
  });

  if (suite.driverMethods?.importVersions) {
    test('history: importVersions writes versions as given into an empty history; later versions sort after them and keep the file ids', async () => {
      const source = withHistory(await suite.open({ actor: { type: 'user', id: 'importer' } }));
      await source.create({ command: 'create', path: '/memories/x.md', file_text: 'x1' });
      await source.create({ command: 'create', path: '/memories/x.md', file_text: 'x2' });
      await source.rename({ command: 'rename', old_path: '/memories/x.md', new_path: '/memories/y.md' });
      await source.create({ command: 'create', path: '/memories/gone.md', file_text: 'g' });
      await source.delete({ command: 'delete', path: '/memories/gone.md' });
      const from = await suite.files();
      const page = await from.listVersions!({ limit: 1_000 });
      const versions: DriverVersionWithContent[] = [];
      for (const version of [...page.versions].reverse())
        versions.push((await from.readVersion!(version.id))!);
      await from.redactVersion!(versions[0]!.id, { op: operationId() });
      versions[0] = (await from.readVersion!(versions[0]!.id))!;

      const label = suite.newBackend();
      const to = await suite.files(label);
      await expectError(to.importVersions!([versions[1]!, versions[0]!], {}), 'INVALID_INPUT');
      // Version 0 is no id a history makes: refused by every driver, the same way (the kit's rule).
      await expectError(
        to.importVersions!([{ ...versions[0]!, id: 'memver_0000000000000000' }, versions[1]!], {}),
        'INVALID_INPUT',
      );
      // Hostile archives, refused by every store the same way and writing nothing: an id past the
      // importable range (later ids would no longer be exact), a time before 2000, an actor id
      // holding a terminal escape.
      for (const hostile of [
        { ...versions[0]!, id: 'memver_9999999999999999' },
        { ...versions[0]!, at: 0 },
        { ...versions[0]!, actor: { type: 'user' as const, id: '\u001b]0;pwned\u0007' } },
      ]) {
        await expectError(to.importVersions!([hostile], {}), 'INVALID_INPUT');
      }
      await to.importVersions!(versions.slice(0, 2), {});
      await to.importVersions!(versions.slice(2), {});
      expect((await to.listVersions!({ limit: 1_000 })).versions).toEqual(
        (await from.listVersions!({ limit: 1_000 })).versions,
      );
      expect(await to.readVersion!(versions[1]!.id)).toEqual(versions[1]);
      await expectError(to.importVersions!(versions.slice(2), {}), 'CONFLICT');
      // The files as the last version leaves them, written without a record.
      const last = versions[versions.length - 1]!.id;
      for (const entry of await from.treeAt!({ version: last })) {
        const content = (await from.readVersion!(entry.version))!.content!;
        await to.write(entry.path as DriverPath, content, { op: operationId(), fileId: entry.fileId });
      }
      const target = withHistory(await suite.open({}, label));
      await target.insert({ command: 'insert', path: '/memories/y.md', insert_line: 0, insert_text: 'new' });
      const [edit, ...imported] = await allVersions(target, { path: '/memories/y.md' });
      expect(edit!.id > last).toBe(true);
      expect(edit!.fileId).toBe(imported[0]!.fileId);
      expect(imported.map((version) => version.id)).toEqual([versions[2]!.id]);
      expect((await allVersions(target, { fileId: edit!.fileId })).length).toBe(4);
    });

    test('history: the worst archive an import takes (ids up to the bound, the earliest time) leaves exact ids after it; one step past any rule is refused and writes nothing', async () => {
      const source = withHistory(await suite.open({ actor: { type: 'user', id: 'importer' } }));
      await source.create({ command: 'create', path: '/memories/w.md', file_text: 'w1' });
      await source.create({ command: 'create', path: '/memories/w.md', file_text: 'w2' });
      const from = await suite.files();
      const page = await from.listVersions!({ limit: 1_000 });
      const original: DriverVersionWithContent[] = [];
      for (const version of [...page.versions].reverse())
        original.push((await from.readVersion!(version.id))!);
      // The highest ids an import may carry, at the earliest time it may carry, by actors whose ids
      // are long and odd but hold no control character.
      const top = MAX_IMPORTED_SEQUENCE - original.length + 1;
      const worst = original.map((version, index) => ({
        ...version,
        id: sequenceVersionId(top + index),
        at: EARLIEST_IMPORTED_AT + index,
        actor: { type: 'service' as const, id: `\u00e9\u{1f600}${'x'.repeat(250)}` },
        toolUseId: `toolu_${'\u00a0'.repeat(3)}${index}`,
      }));
      const last = worst.at(-1)!;
      const label = suite.newBackend();
      const to = await suite.files(label);
      const day = 86_400_000;
      for (const [what, hostile] of [
        ['an id one past the bound', { ...last, id: sequenceVersionId(MAX_IMPORTED_SEQUENCE + 1) }],
        ['an id past 2^53', { ...last, id: 'memver_9007199254740993' }],
        ['the highest 16-digit id', { ...last, id: 'memver_9999999999999999' }],
        ['a time a millisecond before 2000', { ...last, at: EARLIEST_IMPORTED_AT - 1 }],
        ['a time in year 275760', { ...last, at: 8_640_000_000_000_000 }],
        ['a time two days ahead', { ...last, at: Date.now() + 2 * day }],
        ['a fractional time', { ...last, at: EARLIEST_IMPORTED_AT + 0.5 }],
        ['a redaction at 1970', { ...last, redactedAt: 0 }],
        ['an actor id with a C0 escape', { ...last, actor: { type: 'user' as const, id: 'a\u001b[2J' } }],
        ['an actor id with a C1 CSI', { ...last, actor: { type: 'user' as const, id: 'a\u009b2J' } }],
        ['an actor id with a bidi override', { ...last, actor: { type: 'user' as const, id: 'a\u202eb' } }],
        ['an actor id of 257 characters', { ...last, actor: { type: 'user' as const, id: 'a'.repeat(257) } }],
        ['an actor of an unknown type', { ...last, actor: { type: 'root', id: 'a' } as never }],
        ['a tool use id with DEL', { ...last, toolUseId: 'toolu_\u007f' }],
        ['a tool use id with a bidi isolate', { ...last, toolUseId: 'toolu_\u2066' }],
        ['an empty tool use id', { ...last, toolUseId: '' }],
      ] as const) {
        const error = await expectError(
          to.importVersions!([...worst.slice(0, -1), hostile], {}),
          'INVALID_INPUT',
        );
        // The kit's words (its own tests hold them exactly), naming the version at fault.
        expect(error.message, what).toMatch(/^importVersions: version /);
        expect((await to.listVersions!({ limit: 10 })).versions, what).toEqual([]);
      }
      await to.importVersions!(worst, {});
      expect((await to.listVersions!({ limit: 10 })).versions.map((version) => version.id)).toEqual(
        [...worst].reverse().map((version) => version.id),
      );
      expect(await to.readVersion!(last.id)).toEqual(last);
      // The history goes on from the bound, one exact id at a time.
      const newest = original.at(-1)!;
      await to.write('w.md' as DriverPath, newest.content!, { op: operationId(), fileId: newest.fileId });
      const target = withHistory(await suite.open({}, label));
      for (let index = 1; index <= 3; index++) {
        await target.create({ command: 'create', path: '/memories/w.md', file_text: `after ${index}` });
      }
      const after = (await allVersions(target, { path: '/memories/w.md' })).slice(0, 3);
      expect(after.map((version) => versionSequence(version.id))).toEqual([
        MAX_IMPORTED_SEQUENCE + 3,
        MAX_IMPORTED_SEQUENCE + 2,
        MAX_IMPORTED_SEQUENCE + 1,
      ]);
      expect(after.map((version) => version.id)).toEqual([
        'memver_1000000000000003',
        'memver_1000000000000002',
        'memver_1000000000000001',
      ]);
    });
  }
}
