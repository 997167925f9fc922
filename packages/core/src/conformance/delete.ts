// SPEC section 4.5 (delete) and the implicit directories of section 3.
import { expect } from 'vitest';
import { expectError, fileHeader, listingHeader, type Suite, seed, view } from './harness.js';

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

  test('delete: a missing or ill-typed path is INVALID_INPUT', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    for (const path of [undefined, null, 1, ['/memories/f.md'], {}]) {
      await expectError(store.delete({ command: 'delete', path } as never), 'INVALID_INPUT');
    }
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tf`);
  });
}
