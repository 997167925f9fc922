// SPEC section 4.4 (insert).
import { expect } from 'vitest';
import { contentOf, expectError, fileHeader, seed, view } from './assertions.js';
import { EXACT_TEXTS } from './fixtures.js';
import type { Suite } from './suite.js';

export function insertTests(suite: Suite): void {
  const { test } = suite;

  async function withFile(content: string, options = {}) {
    const store = await suite.open(options);
    await seed(store, { '/memories/f.md': content });
    return store;
  }

  function insert(
    store: Awaited<ReturnType<typeof withFile>>,
    insert_line: number,
    insert_text: string,
    path = '/memories/f.md',
  ) {
    return store.insert({ command: 'insert', path, insert_line, insert_text });
  }

  test('insert: insert_line 0 inserts at the top and reports "The file {path} has been edited."', async () => {
    const store = await withFile('a\nb\nc');
    expect(await insert(store, 0, 'top')).toBe('The file /memories/f.md has been edited.');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ttop\n     2\ta\n     3\tb\n     4\tc`,
    );
  });

  test('insert: insert_line n (the line count) appends after the last line, adding no final newline', async () => {
    const store = await withFile('a\nb\nc');
    expect(await insert(store, 3, 'end')).toBe('The file /memories/f.md has been edited.');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tb\n     3\tc\n     4\tend`,
    );
  });

  test('insert: insert_line k inserts after line k', async () => {
    const store = await withFile('a\nb\nc');
    await insert(store, 1, 'mid');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tmid\n     3\tb\n     4\tc`,
    );
  });

  test('insert: one trailing \\n of insert_text is removed', async () => {
    const store = await withFile('a\nb');
    await insert(store, 1, 'x\n');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tx\n     3\tb`,
    );
  });

  test('insert: only one trailing \\n is removed ("x\\n\\n" inserts "x" and an empty line)', async () => {
    const store = await withFile('a\nb');
    await insert(store, 1, 'x\n\n');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tx\n     3\t\n     4\tb`,
    );
  });

  test('insert: a multi-line insert_text inserts several lines', async () => {
    const store = await withFile('a\nb');
    await insert(store, 1, 'x\ny\n');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tx\n     3\ty\n     4\tb`,
    );
  });

  test('insert: an empty insert_text inserts an empty line', async () => {
    const store = await withFile('a\nb');
    await insert(store, 1, '');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\t\n     3\tb`,
    );
  });

  test('insert: a file ending in \\n has an empty last line, after which insert_line n appends', async () => {
    const store = await withFile('a\nb\n');
    await insert(store, 3, 'c');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tb\n     3\t\n     4\tc`,
    );
  });

  test('insert: inserting after line n-1 of a file ending in \\n keeps the final newline', async () => {
    const store = await withFile('a\nb\n');
    await insert(store, 2, 'c');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tb\n     3\tc\n     4\t`,
    );
  });

  test('insert: an empty file has one line, so 0 and 1 are valid', async () => {
    const store = await withFile('');
    await insert(store, 0, 'x');
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tx\n     2\t`);
    const other = await suite.open();
    await seed(other, { '/memories/g.md': '' });
    await insert(other, 1, 'y', '/memories/g.md');
    expect(await view(other, '/memories/g.md')).toBe(`${fileHeader('/memories/g.md')}     1\t\n     2\ty`);
  });

  test('insert: \\r is kept; lines are split on \\n only', async () => {
    const store = await withFile('a\r\nb');
    await insert(store, 1, 'x\r');
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\r\n     2\tx\r\n     3\tb`,
    );
  });

  test('insert: hidden files can be edited by their exact path, and the path is echoed normalised', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/.log/today': 'first' });
    expect(await insert(store, 1, 'second', '/memories//.log/./today')).toBe(
      'The file /memories/.log/today has been edited.',
    );
    expect(await view(store, '/memories/.log/today')).toBe(
      `${fileHeader('/memories/.log/today')}     1\tfirst\n     2\tsecond`,
    );
  });

  test('insert: the file and insert_text are kept exactly (NUL, BOM, CR, U+2028, U+FFFE, NFD), but for the one trailing \\n removed', async () => {
    const store = await suite.open();
    for (const [index, [label, text]] of EXACT_TEXTS.entries()) {
      const path = `/memories/exact/${index}`;
      await seed(store, { [path]: `first\n${text}` });
      await insert(store, 1, `${text}\n`, path);
      const shown = contentOf(await view(store, path));
      const expected = `first\n${text}\n${text}`;
      expect(
        shown === expected,
        `${label}: expected ${JSON.stringify(expected)}, viewed ${JSON.stringify(shown)}`,
      ).toBe(true);
    }
  });

  // --- errors -----------------------------------------------------------------------------------

  test('insert: insert_line past the line count is INVALID_LINE with the range [0, n]', async () => {
    const store = await withFile('a\nb\nc');
    await expectError(
      insert(store, 4, 'x'),
      'INVALID_LINE',
      'Invalid `insert_line` parameter: 4. It should be within the range of lines of the file: [0, 3]',
    );
    await expectError(
      insert(store, 1000, 'x'),
      'INVALID_LINE',
      'Invalid `insert_line` parameter: 1000. It should be within the range of lines of the file: [0, 3]',
    );
  });

  test('insert: insert_line -1 is INVALID_LINE', async () => {
    const store = await withFile('a\nb\nc');
    await expectError(
      insert(store, -1, 'x'),
      'INVALID_LINE',
      'Invalid `insert_line` parameter: -1. It should be within the range of lines of the file: [0, 3]',
    );
  });

  test('insert: the range counts the empty line after a final \\n, and the one line of an empty file', async () => {
    const store = await withFile('a\n');
    await expectError(
      insert(store, 3, 'x'),
      'INVALID_LINE',
      'Invalid `insert_line` parameter: 3. It should be within the range of lines of the file: [0, 2]',
    );
    const empty = await suite.open();
    await seed(empty, { '/memories/e.md': '' });
    await expectError(
      insert(empty, 2, 'x', '/memories/e.md'),
      'INVALID_LINE',
      'Invalid `insert_line` parameter: 2. It should be within the range of lines of the file: [0, 1]',
    );
  });

  test('insert: a missing file is NOT_FOUND, even with an out-of-range insert_line', async () => {
    const store = await suite.open();
    const message = 'The path /memories/missing.md does not exist. Please provide a valid path.';
    await expectError(insert(store, 0, 'x', '/memories/missing.md'), 'NOT_FOUND', message);
    await expectError(insert(store, 99, 'x', '/memories/missing.md'), 'NOT_FOUND', message);
    await expectError(view(store, '/memories/missing.md'), 'NOT_FOUND', message);
  });

  test('insert: a directory, or /memories, is NOT_A_FILE, even with an out-of-range insert_line', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/a.md': 'a' });
    await expectError(
      insert(store, 0, 'x', '/memories/d'),
      'NOT_A_FILE',
      'The path /memories/d is not a file.',
    );
    await expectError(
      insert(store, 99, 'x', '/memories/d/'),
      'NOT_A_FILE',
      'The path /memories/d is not a file.',
    );
    await expectError(insert(store, 0, 'x', '/memories'), 'NOT_A_FILE', 'The path /memories is not a file.');
  });

  test('insert: an insert over maxFileBytes is TOO_LARGE and nothing is written', async () => {
    const store = await withFile('abcde', { maxFileBytes: 10 });
    await expectError(insert(store, 1, 'fghij'), 'TOO_LARGE');
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tabcde`);
    expect(await insert(store, 1, 'fghi')).toBe('The file /memories/f.md has been edited.');
  });

  test('insert: INVALID_LINE outranks TOO_LARGE', async () => {
    const store = await withFile('abcde', { maxFileBytes: 10 });
    await expectError(
      insert(store, 5, 'far too long for the limit'),
      'INVALID_LINE',
      'Invalid `insert_line` parameter: 5. It should be within the range of lines of the file: [0, 1]',
    );
  });

  test('insert: a non-integer insert_line is INVALID_INPUT, before the path is checked', async () => {
    const store = await withFile('a\nb\nc');
    for (const insert_line of [
      1.5,
      '1',
      null,
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      [1],
      true,
      {},
    ]) {
      for (const path of ['/memories/f.md', '/memories/missing.md', '/nope']) {
        await expectError(
          store.insert({ command: 'insert', path, insert_line, insert_text: 'x' } as never),
          'INVALID_INPUT',
        );
      }
    }
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\ta\n     2\tb\n     3\tc`,
    );
  });

  test('insert: a missing or ill-typed insert_text or path is INVALID_INPUT', async () => {
    const store = await withFile('a');
    for (const fields of [
      { path: '/memories/f.md', insert_line: 0 },
      { path: '/memories/f.md', insert_line: 0, insert_text: null },
      { path: '/memories/f.md', insert_line: 0, insert_text: 12 },
      { insert_line: 0, insert_text: 'x' },
      { path: null, insert_line: 0, insert_text: 'x' },
    ]) {
      await expectError(store.insert({ command: 'insert', ...fields } as never), 'INVALID_INPUT');
    }
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\ta`);
  });
}
