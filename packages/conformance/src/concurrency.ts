// SPEC section 6: commands are atomic and lose no update, across two store instances on one backend
// (as two processes would be). Directory rename/delete atomicity is relaxed for `atomicRename: false`.

import type { MemoryStore } from '@memdir/core';
import { isMemoryToolError } from '@memdir/core';
import { expect } from 'vitest';
import { fileHeader, seed, view } from './assertions.js';
import type { Suite } from './suite.js';

/** The text of each line of a file view (without numbers); the view must not be truncated. */
function linesOf(viewText: string): string[] {
  const [, ...numbered] = viewText.split('\n');
  return numbered.map((line) => {
    expect(line).toMatch(/^ {0,5}\d{1,6}\t/);
    return line.slice(line.indexOf('\t') + 1);
  });
}

/** The outcome of each promise: `ok` or the error code (a non-MemoryToolError fails the test). */
async function settle(
  promises: Array<Promise<string>>,
): Promise<Array<{ ok: string } | { code: string; message: string }>> {
  const results = await Promise.allSettled(promises);
  return results.map((result) => {
    if (result.status === 'fulfilled') return { ok: result.value };
    expect(isMemoryToolError(result.reason), `expected a MemoryToolError, got ${String(result.reason)}`).toBe(
      true,
    );
    return { code: result.reason.code as string, message: result.reason.message as string };
  });
}

export function concurrencyTests(suite: Suite): void {
  const { test } = suite;

  /** Two store instances with the same options on the same backend. */
  async function twoStores(options = {}): Promise<[MemoryStore, MemoryStore]> {
    return [await suite.open(options), await suite.open(options)];
  }

  test('concurrency: 100 concurrent inserts split across two stores into one file leave all 100 lines', async () => {
    const [first, second] = await twoStores();
    await seed(first, { '/memories/log.md': 'start' });
    const inserts = Array.from({ length: 100 }, (_, index) =>
      (index % 2 === 0 ? first : second).insert({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: index % 4 < 2 ? 0 : 1,
        insert_text: `entry ${index}\n`,
      }),
    );
    const results = await Promise.all(inserts);
    expect(new Set(results)).toEqual(new Set(['The file /memories/log.md has been edited.']));
    const lines = linesOf(await view(second, '/memories/log.md'));
    expect(lines).toHaveLength(101);
    expect([...lines].sort()).toEqual(
      ['start', ...Array.from({ length: 100 }, (_, index) => `entry ${index}`)].sort(),
    );
  });

  test('concurrency: 10 racing creates with overwrite: false have exactly one winner; the others get ALREADY_EXISTS', async () => {
    const [first, second] = await twoStores({ overwrite: false });
    const creates = Array.from({ length: 10 }, (_, index) =>
      (index % 2 === 0 ? first : second).create({
        command: 'create',
        path: '/memories/race.md',
        file_text: `writer ${index}`,
      }),
    );
    const outcomes = await settle(creates);
    const winners = outcomes.flatMap((outcome, index) => ('ok' in outcome ? [index] : []));
    expect(winners).toHaveLength(1);
    expect(outcomes[winners[0]!]).toEqual({ ok: 'File created successfully at: /memories/race.md' });
    for (const outcome of outcomes) {
      if ('code' in outcome)
        expect(outcome).toEqual({ code: 'ALREADY_EXISTS', message: 'File /memories/race.md already exists' });
    }
    expect(await view(first, '/memories/race.md')).toBe(
      `${fileHeader('/memories/race.md')}     1\twriter ${winners[0]}`,
    );
  });

  test('concurrency: a str_replace racing a create never mixes contents (no write based on stale content)', async () => {
    const [first, second] = await twoStores();
    for (let round = 0; round < 20; round++) {
      const path = `/memories/race-${round}.md`;
      await seed(first, { [path]: `old head\nTOKEN\nold tail ${round}` });
      const [editor, creator] = round % 2 === 0 ? [first, second] : [second, first];
      const [replaced, created] = await settle([
        editor.str_replace({ command: 'str_replace', path, old_str: 'TOKEN', new_str: 'EDITED' }),
        creator.create({ command: 'create', path, file_text: `new head\nTOKEN\nnew tail ${round}` }),
      ]);
      expect(created).toEqual({ ok: `File created successfully at: ${path}` });
      expect(replaced).toHaveProperty('ok');
      const content = linesOf(await view(first, path)).join('\n');
      // Either the edit ran first and the create replaced its result, or the create ran first and
      // the edit applied to the new content. An edit of the old content written over the new one is
      // a lost update.
      expect([`new head\nTOKEN\nnew tail ${round}`, `new head\nEDITED\nnew tail ${round}`]).toContain(
        content,
      );
    }
  });

  test('concurrency: concurrent str_replaces of distinct tokens from two stores all apply (no lost update)', async () => {
    const [first, second] = await twoStores();
    const tokens = Array.from({ length: 20 }, (_, index) => `token-${String(index).padStart(2, '0')}`);
    await seed(first, { '/memories/tokens.md': tokens.join('\n') });
    const results = await Promise.all(
      tokens.map((token, index) =>
        (index % 2 === 0 ? first : second).str_replace({
          command: 'str_replace',
          path: '/memories/tokens.md',
          old_str: token,
          new_str: `done-${index}`,
        }),
      ),
    );
    expect(results).toHaveLength(20);
    expect(linesOf(await view(second, '/memories/tokens.md'))).toEqual(
      tokens.map((_, index) => `done-${index}`),
    );
  });

  test('concurrency: concurrent inserts and str_replaces on one file from two stores all apply', async () => {
    const [first, second] = await twoStores();
    await seed(first, { '/memories/mixed.md': 'A\nB\nC\nD' });
    await Promise.all([
      first.str_replace({ command: 'str_replace', path: '/memories/mixed.md', old_str: 'A', new_str: 'a' }),
      second.insert({ command: 'insert', path: '/memories/mixed.md', insert_line: 0, insert_text: 'top' }),
      first.str_replace({ command: 'str_replace', path: '/memories/mixed.md', old_str: 'C', new_str: 'c' }),
      second.str_replace({ command: 'str_replace', path: '/memories/mixed.md', old_str: 'D', new_str: 'd' }),
      first.insert({ command: 'insert', path: '/memories/mixed.md', insert_line: 0, insert_text: 'top2' }),
    ]);
    const lines = linesOf(await view(first, '/memories/mixed.md'));
    expect([...lines].sort()).toEqual(['B', 'a', 'c', 'd', 'top', 'top2']);
    expect(lines.slice(2)).toEqual(['a', 'B', 'c', 'd']);
  });

  test(
    suite.atomicRename
      ? 'concurrency: a listing during a directory rename shows every file in the old place or every file in the new place'
      : 'concurrency: a listing during a directory rename shows every file in at least one place (atomicRename: false)',
    async () => {
      const [first, second] = await twoStores();
      const files = Array.from({ length: 8 }, (_, index) => `f${index}.md`);
      await seed(first, Object.fromEntries(files.map((file) => [`/memories/src/${file}`, file])));
      for (let round = 0; round < 10; round++) {
        const [from, to] = round % 2 === 0 ? ['src', 'dst'] : ['dst', 'src'];
        const listings: Array<Promise<string>> = [];
        const rename = first.rename({
          command: 'rename',
          old_path: `/memories/${from}`,
          new_path: `/memories/${to}`,
        });
        for (let index = 0; index < 6; index++) listings.push(view(second, '/memories'));
        await rename;
        for (const listing of await Promise.all(listings)) {
          const entries = listing
            .split('\n')
            .slice(2)
            .map((line) => line.slice(line.indexOf('\t') + 1));
          const inPlace = (dir: string) =>
            files.filter((file) => entries.includes(`/memories/${dir}/${file}`));
          const [inFrom, inTo] = [inPlace(from), inPlace(to)];
          if (suite.atomicRename) {
            expect([inFrom.length, inTo.length], listing).toContainEqual(files.length);
            expect(inFrom.length + inTo.length, listing).toBe(files.length);
          } else {
            expect(new Set([...inFrom, ...inTo]).size, listing).toBe(files.length);
          }
        }
      }
    },
  );

  test(
    suite.atomicRename
      ? 'concurrency: two stores renaming one directory to different places: exactly one wins, the other gets NOT_FOUND'
      : 'concurrency: two stores renaming one directory to different places lose no file (atomicRename: false)',
    async () => {
      const [first, second] = await twoStores();
      const files = ['a.md', 'b.md', 'c/d.md'];
      await seed(first, Object.fromEntries(files.map((file) => [`/memories/src/${file}`, file])));
      const outcomes = await settle([
        first.rename({ command: 'rename', old_path: '/memories/src', new_path: '/memories/one' }),
        second.rename({ command: 'rename', old_path: '/memories/src', new_path: '/memories/two' }),
      ]);
      const found = async (dir: string) => {
        const present: string[] = [];
        for (const file of files) {
          const text = await view(first, `/memories/${dir}/${file}`).catch(() => undefined);
          if (text !== undefined) present.push(file);
        }
        return present;
      };
      const [inOne, inTwo, inSrc] = [await found('one'), await found('two'), await found('src')];
      if (suite.atomicRename) {
        expect(outcomes.filter((outcome) => 'ok' in outcome)).toHaveLength(1);
        const loser = outcomes.find((outcome) => 'code' in outcome);
        expect(loser).toEqual({ code: 'NOT_FOUND', message: 'The path /memories/src does not exist' });
        expect(inSrc).toEqual([]);
        expect([inOne, inTwo]).toContainEqual(files);
        expect([inOne, inTwo]).toContainEqual([]);
      } else {
        expect(new Set([...inOne, ...inTwo, ...inSrc]).size).toBe(files.length);
      }
    },
  );

  test(
    suite.atomicRename
      ? 'concurrency: a listing during a directory delete shows all of its files or none'
      : 'concurrency: a directory delete racing listings completes and removes every file (atomicRename: false)',
    async () => {
      const [first, second] = await twoStores();
      const files = Array.from({ length: 8 }, (_, index) => `f${index}.md`);
      for (let round = 0; round < 5; round++) {
        await seed(first, Object.fromEntries(files.map((file) => [`/memories/doomed/${file}`, file])));
        const listings: Array<Promise<string>> = [];
        const removal = first.delete({ command: 'delete', path: '/memories/doomed' });
        for (let index = 0; index < 6; index++)
          listings.push(view(second, '/memories/doomed').catch(() => 'gone'));
        expect(await removal).toBe('Successfully deleted /memories/doomed');
        if (suite.atomicRename) {
          for (const listing of await Promise.all(listings)) {
            if (listing === 'gone') continue;
            expect(listing.split('\n').length - 2, listing).toBe(files.length);
          }
        } else {
          await Promise.all(listings);
        }
        await expect(view(second, '/memories/doomed')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      }
    },
  );
}
