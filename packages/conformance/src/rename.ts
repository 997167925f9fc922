// SPEC section 4.6 (rename) and the cross-path error order of section 1.
import { expect } from 'vitest';
import { contentOf, expectError, fileHeader, listingHeader, seed, view } from './assertions.js';
import { EXACT_TEXTS, LITERAL_NAMES, LITERALS, LOOKALIKES } from './fixtures.js';
import type { Suite } from './suite.js';

export function renameTests(suite: Suite): void {
  const { test } = suite;

  function rename(store: Awaited<ReturnType<typeof suite.open>>, old_path: string, new_path: string) {
    return store.rename({ command: 'rename', old_path, new_path });
  }

  test('rename: a file reports "Successfully renamed {old_path} to {new_path}" and moves its content', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'alpha\r\nbeta\n' });
    expect(await rename(store, '/memories/a.md', '/memories/b.md')).toBe(
      'Successfully renamed /memories/a.md to /memories/b.md',
    );
    await expectError(
      view(store, '/memories/a.md'),
      'NOT_FOUND',
      'The path /memories/a.md does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories/b.md')).toBe(
      `${fileHeader('/memories/b.md')}     1\talpha\r\n     2\tbeta\n     3\t`,
    );
  });

  test('rename: a directory moves with everything beneath it, hidden files included', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/src/a.md': 'a',
      '/memories/src/deep/er/b.md': 'bb',
      '/memories/src/.hidden': 'h',
      '/memories/src/node_modules/m': 'm',
      '/memories/other.md': 'o',
    });
    expect(await rename(store, '/memories/src', '/memories/dst')).toBe(
      'Successfully renamed /memories/src to /memories/dst',
    );
    await expectError(
      view(store, '/memories/src'),
      'NOT_FOUND',
      'The path /memories/src does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}4B\t/memories\n3B\t/memories/dst/\n1B\t/memories/dst/a.md\n2B\t/memories/dst/deep/\n1B\t/memories/other.md`,
    );
    expect(await view(store, '/memories/dst/deep/er/b.md')).toBe(
      `${fileHeader('/memories/dst/deep/er/b.md')}     1\tbb`,
    );
    expect(await view(store, '/memories/dst/.hidden')).toBe(
      `${fileHeader('/memories/dst/.hidden')}     1\th`,
    );
    expect(await view(store, '/memories/dst/node_modules/m')).toBe(
      `${fileHeader('/memories/dst/node_modules/m')}     1\tm`,
    );
  });

  test('rename: renaming a directory leaves siblings that share its name as a prefix', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/x.md': 'x', '/memories/ab.md': 'ab', '/memories/a-b/y.md': 'y' });
    await rename(store, '/memories/a', '/memories/z');
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}4B\t/memories\n1B\t/memories/a-b/\n1B\t/memories/a-b/y.md\n2B\t/memories/ab.md\n1B\t/memories/z/\n1B\t/memories/z/x.md`,
    );
  });

  test('rename: missing parents of new_path are created', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    expect(await rename(store, '/memories/a.md', '/memories/x/y/z/a.md')).toBe(
      'Successfully renamed /memories/a.md to /memories/x/y/z/a.md',
    );
    expect(await view(store, '/memories/x')).toBe(
      `${listingHeader('/memories/x')}1B\t/memories/x\n1B\t/memories/x/y/\n1B\t/memories/x/y/z/`,
    );
  });

  test('rename: a directory moved out of its parent leaves no empty directory behind', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/p/q/r.md': 'r' });
    await rename(store, '/memories/p/q', '/memories/q');
    await expectError(
      view(store, '/memories/p'),
      'NOT_FOUND',
      'The path /memories/p does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/q/\n1B\t/memories/q/r.md`,
    );
  });

  test('rename: the last file of a directory moved away makes the directory disappear', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/p/only.md': 'o' });
    await rename(store, '/memories/p/only.md', '/memories/only.md');
    await expectError(
      view(store, '/memories/p'),
      'NOT_FOUND',
      'The path /memories/p does not exist. Please provide a valid path.',
    );
  });

  test('rename: a directory can move deeper under a new name beside itself', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/x.md': 'x' });
    expect(await rename(store, '/memories/a', '/memories/ab/a')).toBe(
      'Successfully renamed /memories/a to /memories/ab/a',
    );
    expect(await view(store, '/memories/ab/a/x.md')).toBe(`${fileHeader('/memories/ab/a/x.md')}     1\tx`);
  });

  test('rename: both paths are echoed normalised', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/b.md': 'b' });
    expect(await rename(store, '/memories//a/./b.md', '/memories/c//d.md/')).toBe(
      'Successfully renamed /memories/a/b.md to /memories/c/d.md',
    );
    expect(await view(store, '/memories/c/d.md')).toBe(`${fileHeader('/memories/c/d.md')}     1\tb`);
  });

  test('rename: hidden files and directories can be renamed by their exact path', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/.draft/a.md': 'a' });
    expect(await rename(store, '/memories/.draft', '/memories/published')).toBe(
      'Successfully renamed /memories/.draft to /memories/published',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/published/\n1B\t/memories/published/a.md`,
    );
  });

  test('rename: names holding _ % * ? [ ] { } \' " : and spaces are literal: renaming a_b moves a_b alone, never aXb', async () => {
    const store = await suite.open();
    for (const name of [...LITERALS, ...LOOKALIKES]) {
      await seed(store, { [`/memories/files/${name}`]: name, [`/memories/dirs/${name}/f`]: name });
    }
    for (const [literal, lookalikes] of LITERAL_NAMES) {
      expect(await rename(store, `/memories/files/${literal}`, `/memories/moved/${literal}`)).toBe(
        `Successfully renamed /memories/files/${literal} to /memories/moved/${literal}`,
      );
      expect(await rename(store, `/memories/dirs/${literal}`, `/memories/moved-dirs/${literal}`)).toBe(
        `Successfully renamed /memories/dirs/${literal} to /memories/moved-dirs/${literal}`,
      );
      expect(await view(store, `/memories/moved/${literal}`)).toBe(
        `${fileHeader(`/memories/moved/${literal}`)}     1\t${literal}`,
      );
      expect(await view(store, `/memories/moved-dirs/${literal}/f`)).toBe(
        `${fileHeader(`/memories/moved-dirs/${literal}/f`)}     1\t${literal}`,
      );
      for (const lookalike of lookalikes) {
        expect(await view(store, `/memories/files/${lookalike}`), `${literal} took ${lookalike} along`).toBe(
          `${fileHeader(`/memories/files/${lookalike}`)}     1\t${lookalike}`,
        );
        expect(
          await view(store, `/memories/dirs/${lookalike}/f`),
          `${literal}/ took ${lookalike}/ along`,
        ).toBe(`${fileHeader(`/memories/dirs/${lookalike}/f`)}     1\t${lookalike}`);
      }
    }
    const lines = (await view(store, '/memories/files')).split('\n').slice(2);
    expect(lines.map((line) => line.slice(line.indexOf('\t') + '\t/memories/files/'.length)).sort()).toEqual(
      [...LOOKALIKES].sort(),
    );
  });

  test('rename: a destination is taken only by its literal name (a* is free beside ab, [ab]/x beside the file a)', async () => {
    const store = await suite.open();
    for (const lookalike of LOOKALIKES) {
      await seed(store, {
        [`/memories/dst/${lookalike}`]: lookalike,
        [`/memories/under/${lookalike}`]: lookalike,
      });
    }
    for (const literal of LITERALS) {
      await seed(store, { [`/memories/src/${literal}`]: literal, [`/memories/again/${literal}`]: 'again' });
      expect(await rename(store, `/memories/src/${literal}`, `/memories/dst/${literal}`)).toBe(
        `Successfully renamed /memories/src/${literal} to /memories/dst/${literal}`,
      );
      await expectError(
        rename(store, `/memories/again/${literal}`, `/memories/dst/${literal}`),
        'ALREADY_EXISTS',
        `The destination /memories/dst/${literal} already exists`,
      );
      await seed(store, { [`/memories/src2/${literal}`]: literal });
      expect(await rename(store, `/memories/src2/${literal}`, `/memories/under/${literal}/x`)).toBe(
        `Successfully renamed /memories/src2/${literal} to /memories/under/${literal}/x`,
      );
    }
    for (const lookalike of LOOKALIKES) {
      expect(await view(store, `/memories/dst/${lookalike}`)).toBe(
        `${fileHeader(`/memories/dst/${lookalike}`)}     1\t${lookalike}`,
      );
    }
  });

  test('rename: content round-trips exactly through a rename (NUL, BOM, CR, U+2028, U+FFFE, NFD)', async () => {
    const store = await suite.open();
    for (const [index, [, text]] of EXACT_TEXTS.entries()) {
      await store.create({ command: 'create', path: `/memories/before/${index}`, file_text: text });
    }
    await rename(store, '/memories/before', '/memories/after/dir');
    for (const [index, [label, text]] of EXACT_TEXTS.entries()) {
      await rename(store, `/memories/after/dir/${index}`, `/memories/after/${index}`);
      const shown = contentOf(await view(store, `/memories/after/${index}`));
      expect(
        shown === text,
        `${label}: stored ${JSON.stringify(text)}, viewed ${JSON.stringify(shown)}`,
      ).toBe(true);
    }
  });

  // --- errors -----------------------------------------------------------------------------------

  test('rename: a missing source is NOT_FOUND "The path {old_path} does not exist"', async () => {
    const store = await suite.open();
    await expectError(
      rename(store, '/memories/nope.md', '/memories/x.md'),
      'NOT_FOUND',
      'The path /memories/nope.md does not exist',
    );
    await expectError(
      view(store, '/memories/x.md'),
      'NOT_FOUND',
      'The path /memories/x.md does not exist. Please provide a valid path.',
    );
  });

  test('rename: an existing destination file is ALREADY_EXISTS and nothing is overwritten', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a', '/memories/b.md': 'b' });
    await expectError(
      rename(store, '/memories/a.md', '/memories/b.md'),
      'ALREADY_EXISTS',
      'The destination /memories/b.md already exists',
    );
    expect(await view(store, '/memories/a.md')).toBe(`${fileHeader('/memories/a.md')}     1\ta`);
    expect(await view(store, '/memories/b.md')).toBe(`${fileHeader('/memories/b.md')}     1\tb`);
  });

  test('rename: an existing destination directory is ALREADY_EXISTS, for a file or a directory source', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a', '/memories/src/x': 'x', '/memories/dst/y': 'y' });
    await expectError(
      rename(store, '/memories/a.md', '/memories/dst'),
      'ALREADY_EXISTS',
      'The destination /memories/dst already exists',
    );
    await expectError(
      rename(store, '/memories/src', '/memories/dst/'),
      'ALREADY_EXISTS',
      'The destination /memories/dst already exists',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}3B\t/memories\n1B\t/memories/a.md\n1B\t/memories/dst/\n1B\t/memories/dst/y\n1B\t/memories/src/\n1B\t/memories/src/x`,
    );
  });

  test('rename: a destination that is a hidden file is ALREADY_EXISTS', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a', '/memories/.b': 'b' });
    await expectError(
      rename(store, '/memories/a.md', '/memories/.b'),
      'ALREADY_EXISTS',
      'The destination /memories/.b already exists',
    );
  });

  test('rename: a path renamed onto itself is ALREADY_EXISTS', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    await expectError(
      rename(store, '/memories/a.md', '/memories/./a.md'),
      'ALREADY_EXISTS',
      'The destination /memories/a.md already exists',
    );
  });

  test('rename: a directory renamed onto its own parent is ALREADY_EXISTS', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/b/c.md': 'c' });
    await expectError(
      rename(store, '/memories/a/b', '/memories/a'),
      'ALREADY_EXISTS',
      'The destination /memories/a already exists',
    );
  });

  test('rename: /memories as the source is ROOT_PROTECTED', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    for (const path of ['/memories', '/memories/', '/memories/.']) {
      await expectError(
        rename(store, path, '/memories/x'),
        'ROOT_PROTECTED',
        'Cannot rename the /memories directory itself',
      );
    }
  });

  test('rename: /memories as the destination is ROOT_PROTECTED', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    for (const path of ['/memories', '/memories/', '/memories//.']) {
      await expectError(
        rename(store, '/memories/a.md', path),
        'ROOT_PROTECTED',
        'Cannot rename the /memories directory itself',
      );
    }
    expect(await view(store, '/memories/a.md')).toBe(`${fileHeader('/memories/a.md')}     1\ta`);
  });

  test('rename: a directory into itself is PATH_CONFLICT "Cannot move {old_path} into itself"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/x.md': 'x' });
    await expectError(
      rename(store, '/memories/d', '/memories/d/sub'),
      'PATH_CONFLICT',
      'Cannot move /memories/d into itself',
    );
    await expectError(
      rename(store, '/memories/d/', '/memories/d/sub/deeper/'),
      'PATH_CONFLICT',
      'Cannot move /memories/d into itself',
    );
    expect(await view(store, '/memories/d/x.md')).toBe(`${fileHeader('/memories/d/x.md')}     1\tx`);
  });

  test('rename: a file into itself is PATH_CONFLICT "Cannot move {old_path} into itself" (it comes before "a parent is a file")', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    await expectError(
      rename(store, '/memories/f.md', '/memories/f.md/g'),
      'PATH_CONFLICT',
      'Cannot move /memories/f.md into itself',
    );
  });

  test('rename: a parent of new_path that is a file is PATH_CONFLICT "Cannot create {new_path}: {parent} is a file"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a', '/memories/f.md': 'f' });
    await expectError(
      rename(store, '/memories/a.md', '/memories/f.md/a.md'),
      'PATH_CONFLICT',
      'Cannot create /memories/f.md/a.md: /memories/f.md is a file',
    );
    await expectError(
      rename(store, '/memories/a.md', '/memories/f.md/x/y'),
      'PATH_CONFLICT',
      'Cannot create /memories/f.md/x/y: /memories/f.md is a file',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}2B\t/memories\n1B\t/memories/a.md\n1B\t/memories/f.md`,
    );
  });

  // --- error order across both paths -------------------------------------------------------------

  test('rename: a missing source moved into itself is NOT_FOUND (NOT_FOUND outranks PATH_CONFLICT)', async () => {
    const store = await suite.open();
    await expectError(
      rename(store, '/memories/ghost', '/memories/ghost/inside'),
      'NOT_FOUND',
      'The path /memories/ghost does not exist',
    );
  });

  test('rename: a missing source onto an existing destination is NOT_FOUND', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/b.md': 'b' });
    await expectError(
      rename(store, '/memories/ghost', '/memories/b.md'),
      'NOT_FOUND',
      'The path /memories/ghost does not exist',
    );
  });

  test('rename: a missing source below a file destination parent is NOT_FOUND', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'f' });
    await expectError(
      rename(store, '/memories/ghost', '/memories/f.md/x'),
      'NOT_FOUND',
      'The path /memories/ghost does not exist',
    );
  });

  test('rename: a missing source to /memories is ROOT_PROTECTED (it outranks NOT_FOUND)', async () => {
    const store = await suite.open();
    await expectError(
      rename(store, '/memories/ghost', '/memories'),
      'ROOT_PROTECTED',
      'Cannot rename the /memories directory itself',
    );
  });

  test('rename: an invalid new_path outranks a root old_path', async () => {
    const store = await suite.open();
    await expectError(
      rename(store, '/memories', '/memories/../x'),
      'INVALID_PATH',
      'Path /memories/../x would escape /memories directory',
    );
  });

  test("rename: when both paths are invalid, old_path's error is reported", async () => {
    const store = await suite.open();
    await expectError(
      rename(store, '/elsewhere/a', '/memories/../b'),
      'INVALID_PATH',
      'Path must start with /memories, got: /elsewhere/a',
    );
    await expectError(
      rename(store, '/memories/../a', '/elsewhere/b'),
      'INVALID_PATH',
      'Path /memories/../a would escape /memories directory',
    );
  });

  test('rename: a missing or ill-typed old_path or new_path is INVALID_INPUT, before the paths are checked', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    for (const fields of [
      { old_path: '/memories/a.md' },
      { new_path: '/memories/b.md' },
      { old_path: '/memories/a.md', new_path: null },
      { old_path: 5, new_path: '/memories/b.md' },
      { old_path: '/etc/passwd', new_path: 5 },
      { path: '/memories/a.md', new_path: '/memories/b.md' },
    ]) {
      await expectError(store.rename({ command: 'rename', ...fields } as never), 'INVALID_INPUT');
    }
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/a.md`,
    );
  });
}
