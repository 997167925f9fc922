// SPEC section 4.5 (delete) and the implicit directories of section 3.
import { expect } from 'vitest';
import { expectError, fileHeader, listingHeader, seed, view } from './assertions.js';
import { LITERAL_NAMES, LITERALS, LOOKALIKES } from './fixtures.js';
import type { Suite } from './suite.js';

/** The names a listing of a folder shows at depth 1 (files and directories alike). */
function listedNames(listing: string, folder: string): string[] {
  return listing
    .split('\n')
    .slice(2)
    .map((line) => line.slice(line.indexOf('\t') + 1))
    .filter((path) => path.startsWith(`${folder}/`))
    .map((path) => path.slice(folder.length + 1).replace(/\/$/, ''))
    .filter((name) => !name.includes('/'));
}

export function deleteTests(suite: Suite): void {
  const { test } = suite;

  function remove(store: Awaited<ReturnType<typeof suite.open>>, path: string) {
    return store.delete({ command: 'delete', path });
  }

  test('delete: a file reports "Successfully deleted {path}" and is gone', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a', '/memories/b.md': 'b' });
    expect(await remove(store, '/memories/a.md')).toBe('Successfully deleted /memories/a.md');
    await expectError(
      view(store, '/memories/a.md'),
      'NOT_FOUND',
      'The path /memories/a.md does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/b.md`,
    );
  });

  test('delete: a directory is deleted with everything beneath it, hidden files included', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/d/a.md': 'a',
      '/memories/d/e/f/g.md': 'g',
      '/memories/d/.hidden': 'h',
      '/memories/d/node_modules/m': 'm',
      '/memories/keep.md': 'k',
    });
    expect(await remove(store, '/memories/d')).toBe('Successfully deleted /memories/d');
    for (const path of [
      '/memories/d',
      '/memories/d/a.md',
      '/memories/d/e',
      '/memories/d/.hidden',
      '/memories/d/node_modules/m',
    ]) {
      await expectError(
        view(store, path),
        'NOT_FOUND',
        `The path ${path} does not exist. Please provide a valid path.`,
      );
    }
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/keep.md`,
    );
  });

  test('delete: deleting a directory leaves siblings that share its name as a prefix', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/a/x.md': 'x',
      '/memories/ab.md': 'ab',
      '/memories/a-b/y.md': 'y',
      '/memories/a.md': 'a',
    });
    await remove(store, '/memories/a');
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}4B\t/memories\n1B\t/memories/a-b/\n1B\t/memories/a-b/y.md\n1B\t/memories/a.md\n2B\t/memories/ab.md`,
    );
  });

  test('delete: the path is echoed normalised', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/x.md': 'x' });
    expect(await remove(store, '/memories//d/./x.md')).toBe('Successfully deleted /memories/d/x.md');
  });

  test('delete: a directory path with a trailing slash deletes the directory', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/x.md': 'x' });
    expect(await remove(store, '/memories/d/')).toBe('Successfully deleted /memories/d');
    expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
  });

  test('delete: a missing path is NOT_FOUND "The path {path} does not exist"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    await expectError(
      remove(store, '/memories/nope.md'),
      'NOT_FOUND',
      'The path /memories/nope.md does not exist',
    );
    await expectError(
      remove(store, '/memories/f.md/child'),
      'NOT_FOUND',
      'The path /memories/f.md/child does not exist',
    );
    await expectError(remove(store, '/memories/F.md'), 'NOT_FOUND', 'The path /memories/F.md does not exist');
  });

  test('delete: deleting twice is NOT_FOUND the second time', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    await remove(store, '/memories/f.md');
    await expectError(remove(store, '/memories/f.md'), 'NOT_FOUND', 'The path /memories/f.md does not exist');
  });

  test('delete: /memories, however written, is ROOT_PROTECTED', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    for (const path of [
      '/memories',
      '/memories/',
      '/memories/.',
      '/memories//',
      '/memories/./',
      '/memories/././/',
    ]) {
      await expectError(
        remove(store, path),
        'ROOT_PROTECTED',
        'Cannot delete the /memories directory itself',
      );
    }
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tf`);
  });

  test('delete: ROOT_PROTECTED holds on an empty store too (it outranks NOT_FOUND)', async () => {
    const store = await suite.open();
    await expectError(
      remove(store, '/memories'),
      'ROOT_PROTECTED',
      'Cannot delete the /memories directory itself',
    );
  });

  test('delete: an emptied directory disappears, and so do emptied ancestors', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/b/c/only.md': 'o', '/memories/a/keep.md': 'k' });
    await remove(store, '/memories/a/b/c/only.md');
    await expectError(
      view(store, '/memories/a/b/c'),
      'NOT_FOUND',
      'The path /memories/a/b/c does not exist. Please provide a valid path.',
    );
    await expectError(
      view(store, '/memories/a/b'),
      'NOT_FOUND',
      'The path /memories/a/b does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/a/\n1B\t/memories/a/keep.md`,
    );
    await expectError(remove(store, '/memories/a/b'), 'NOT_FOUND', 'The path /memories/a/b does not exist');
  });

  test('delete: deleting the last (hidden) file of a directory makes it disappear', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/.keep': '' });
    expect(await remove(store, '/memories/d/.keep')).toBe('Successfully deleted /memories/d/.keep');
    await expectError(
      view(store, '/memories/d'),
      'NOT_FOUND',
      'The path /memories/d does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
  });

  test('delete: a hidden directory can be deleted by its exact path', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/.archive/a.md': 'a',
      '/memories/.archive/b/c.md': 'c',
      '/memories/v.md': 'v',
    });
    expect(await remove(store, '/memories/.archive')).toBe('Successfully deleted /memories/.archive');
    await expectError(
      view(store, '/memories/.archive'),
      'NOT_FOUND',
      'The path /memories/.archive does not exist. Please provide a valid path.',
    );
  });

  test('delete: a path can be created again after it was deleted, as a file or as a directory', async () => {
    const store = await suite.open({ overwrite: false });
    await seed(store, { '/memories/x/y.md': 'y' });
    await remove(store, '/memories/x');
    expect(await store.create({ command: 'create', path: '/memories/x', file_text: 'now a file' })).toBe(
      'File created successfully at: /memories/x',
    );
    await remove(store, '/memories/x');
    expect(await store.create({ command: 'create', path: '/memories/x/z.md', file_text: 'dir again' })).toBe(
      'File created successfully at: /memories/x/z.md',
    );
  });

  test('delete: names holding _ % * ? [ ] { } \' " : and spaces are literal: deleting a* never removes ab, a_b never aXb, [ab] never a or b', async () => {
    const store = await suite.open();
    const names = [...LITERALS, ...LOOKALIKES];
    for (const name of names) {
      await seed(store, { [`/memories/files/${name}`]: name, [`/memories/dirs/${name}/f`]: name });
    }
    const remaining = new Set(names);
    for (const [literal, lookalikes] of LITERAL_NAMES) {
      expect(await remove(store, `/memories/files/${literal}`)).toBe(
        `Successfully deleted /memories/files/${literal}`,
      );
      expect(await remove(store, `/memories/dirs/${literal}`)).toBe(
        `Successfully deleted /memories/dirs/${literal}`,
      );
      remaining.delete(literal);
      for (const lookalike of lookalikes) {
        expect(
          await view(store, `/memories/files/${lookalike}`),
          `${literal} took ${lookalike} with it`,
        ).toBe(`${fileHeader(`/memories/files/${lookalike}`)}     1\t${lookalike}`);
        expect(
          await view(store, `/memories/dirs/${lookalike}/f`),
          `${literal}/ took ${lookalike}/ with it`,
        ).toBe(`${fileHeader(`/memories/dirs/${lookalike}/f`)}     1\t${lookalike}`);
      }
      const sorted = [...remaining].sort();
      expect(listedNames(await view(store, '/memories/files'), '/memories/files').sort()).toEqual(sorted);
      expect(listedNames(await view(store, '/memories/dirs'), '/memories/dirs').sort()).toEqual(sorted);
    }
  });

  test('delete: a literal name that is not there is NOT_FOUND, whatever its wildcards would match (a* beside ab)', async () => {
    const store = await suite.open();
    await seed(store, Object.fromEntries(LOOKALIKES.map((name) => [`/memories/${name}`, name])));
    for (const literal of LITERALS) {
      await expectError(
        remove(store, `/memories/${literal}`),
        'NOT_FOUND',
        `The path /memories/${literal} does not exist`,
      );
    }
    expect(listedNames(await view(store, '/memories'), '/memories').sort()).toEqual([...LOOKALIKES].sort());
  });

  test('delete: a missing or ill-typed path is INVALID_INPUT', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    for (const path of [undefined, null, 1, ['/memories/f.md'], {}]) {
      await expectError(store.delete({ command: 'delete', path } as never), 'INVALID_INPUT');
    }
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tf`);
  });
}
