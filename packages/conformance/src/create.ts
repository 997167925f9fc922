// SPEC section 4.2 (create), the maxFileBytes limit of section 3, and the error order of section 1.

import { utf8Length } from '@memdir/core/driver';
import { expect } from 'vitest';
import { contentOf, expectError, fileHeader, listingHeader, seed, view } from './assertions.js';
import { EXACT_TEXTS, LITERAL_NAMES } from './fixtures.js';
import type { Suite } from './suite.js';

export function createTests(suite: Suite): void {
  const { test } = suite;

  test('create: a new file reports "File created successfully at: {path}" and holds the text', async () => {
    const store = await suite.open();
    expect(
      await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Hello\nWorld' }),
    ).toBe('File created successfully at: /memories/notes.md');
    expect(await view(store, '/memories/notes.md')).toBe(
      `${fileHeader('/memories/notes.md')}     1\tHello\n     2\tWorld`,
    );
  });

  test('create: parent directories are created implicitly', async () => {
    const store = await suite.open();
    expect(await store.create({ command: 'create', path: '/memories/a/b/c/d.md', file_text: 'deep' })).toBe(
      'File created successfully at: /memories/a/b/c/d.md',
    );
    expect(await view(store, '/memories/a/b')).toBe(
      `${listingHeader('/memories/a/b')}4B\t/memories/a/b\n4B\t/memories/a/b/c/\n4B\t/memories/a/b/c/d.md`,
    );
  });

  test('create: the result echoes the normalised path', async () => {
    const store = await suite.open();
    expect(await store.create({ command: 'create', path: '/memories//x/./y.md', file_text: 'y' })).toBe(
      'File created successfully at: /memories/x/y.md',
    );
    expect(await view(store, '/memories/x/y.md')).toBe(`${fileHeader('/memories/x/y.md')}     1\ty`);
  });

  test('create: an empty file_text creates an empty file', async () => {
    const store = await suite.open();
    expect(await store.create({ command: 'create', path: '/memories/empty.md', file_text: '' })).toBe(
      'File created successfully at: /memories/empty.md',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}0B\t/memories\n0B\t/memories/empty.md`,
    );
  });

  test('create: content is stored byte for byte (\\r\\n, trailing newlines, unicode, $ signs)', async () => {
    const store = await suite.open();
    const text = 'a\r\n$& $1 $$\n\u00e9\u{1f600}\u0085\n\n';
    await seed(store, { '/memories/raw.md': text });
    expect(await view(store, '/memories/raw.md')).toBe(
      `${fileHeader('/memories/raw.md')}     1\ta\r\n     2\t$& $1 $$\n     3\t\u00e9\u{1f600}\u0085\n     4\t\n     5\t`,
    );
  });

  test('create: content round-trips exactly: NUL, BOM, CR, CRLF, U+2028, U+FFFE, NFD e\u0301 (no normalisation, newline conversion or BOM handling)', async () => {
    const store = await suite.open();
    for (const [index, [, text]] of EXACT_TEXTS.entries()) {
      await store.create({ command: 'create', path: `/memories/exact/${index}`, file_text: text });
    }
    for (const [index, [label, text]] of EXACT_TEXTS.entries()) {
      const path = `/memories/exact/${index}`;
      const shown = contentOf(await view(store, path));
      expect(
        shown === text,
        `${label}: stored ${JSON.stringify(text)}, viewed ${JSON.stringify(shown)}`,
      ).toBe(true);
    }
    // The sizes are those of the text as written (a dropped BOM or a converted newline shows here).
    const total = EXACT_TEXTS.reduce((sum, [, text]) => sum + utf8Length(text), 0);
    const lines = EXACT_TEXTS.map(
      ([, text], index) => [String(index), `${utf8Length(text)}B\t/memories/exact/${index}`] as const,
    )
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, line]) => line);
    expect(await view(store, '/memories/exact')).toBe(
      `${listingHeader('/memories/exact')}${total}B\t/memories/exact\n${lines.join('\n')}`,
    );
  });

  test('create: half of a surrogate pair in file_text is INVALID_INPUT; a whole pair (U+1F600) is stored as it is', async () => {
    const store = await suite.open();
    await store.create({ command: 'create', path: '/memories/pair.md', file_text: '\ud83d\ude00' });
    expect(await view(store, '/memories/pair.md')).toBe(
      `${fileHeader('/memories/pair.md')}     1\t\u{1f600}`,
    );
    await expectError(
      store.create({ command: 'create', path: '/memories/half.md', file_text: '\ud83d' }),
      'INVALID_INPUT',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}4B\t/memories\n4B\t/memories/pair.md`,
    );
  });

  test('create: names holding _ % * ? [ ] { } \' " : and spaces are literal: with overwrite: false each is created beside the names its wildcards would match', async () => {
    const store = await suite.open({ overwrite: false });
    for (const [literal, lookalikes] of LITERAL_NAMES) {
      for (const lookalike of lookalikes) {
        await seed(store, {
          [`/memories/files/${literal}-case/${lookalike}`]: lookalike,
          [`/memories/dirs/${literal}-case/${lookalike}/f`]: lookalike,
          [`/memories/parents/${literal}-case/${lookalike}`]: lookalike,
        });
      }
    }
    for (const [literal, lookalikes] of LITERAL_NAMES) {
      // Not ALREADY_EXISTS beside a file, not "is a directory" beside a directory, not "parent is a file" below.
      for (const path of [
        `/memories/files/${literal}-case/${literal}`,
        `/memories/dirs/${literal}-case/${literal}`,
        `/memories/parents/${literal}-case/${literal}/child`,
      ]) {
        expect(await store.create({ command: 'create', path, file_text: literal }), path).toBe(
          `File created successfully at: ${path}`,
        );
        expect(await view(store, path)).toBe(`${fileHeader(path)}     1\t${literal}`);
      }
      for (const lookalike of lookalikes) {
        expect(await view(store, `/memories/files/${literal}-case/${lookalike}`)).toBe(
          `${fileHeader(`/memories/files/${literal}-case/${lookalike}`)}     1\t${lookalike}`,
        );
      }
      // And the literal name is now taken, by itself alone.
      await expectError(
        store.create({
          command: 'create',
          path: `/memories/files/${literal}-case/${literal}`,
          file_text: 'again',
        }),
        'ALREADY_EXISTS',
        `File /memories/files/${literal}-case/${literal} already exists`,
      );
    }
  });

  test('create: an existing file is overwritten by default, with the same success text', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'old content\nline 2' });
    expect(await store.create({ command: 'create', path: '/memories/f.md', file_text: 'new' })).toBe(
      'File created successfully at: /memories/f.md',
    );
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tnew`);
  });

  test('create: overwrite: true replaces an existing file', async () => {
    const store = await suite.open({ overwrite: true });
    await seed(store, { '/memories/f.md': 'old' });
    expect(await store.create({ command: 'create', path: '/memories/f.md', file_text: 'new' })).toBe(
      'File created successfully at: /memories/f.md',
    );
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tnew`);
  });

  test('create: with overwrite: false an existing file is ALREADY_EXISTS and keeps its content', async () => {
    const store = await suite.open({ overwrite: false });
    await seed(store, { '/memories/f.md': 'old' });
    await expectError(
      store.create({ command: 'create', path: '/memories/f.md', file_text: 'new' }),
      'ALREADY_EXISTS',
      'File /memories/f.md already exists',
    );
    await expectError(
      store.create({ command: 'create', path: '/memories/./f.md', file_text: 'new' }),
      'ALREADY_EXISTS',
      'File /memories/f.md already exists',
    );
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\told`);
  });

  test('create: with overwrite: false a new file is created', async () => {
    const store = await suite.open({ overwrite: false });
    expect(await store.create({ command: 'create', path: '/memories/new.md', file_text: 'n' })).toBe(
      'File created successfully at: /memories/new.md',
    );
  });

  test('create: an existing directory is PATH_CONFLICT "The path {path} is a directory"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/notes/a.md': 'a' });
    await expectError(
      store.create({ command: 'create', path: '/memories/notes', file_text: 'x' }),
      'PATH_CONFLICT',
      'The path /memories/notes is a directory',
    );
    await expectError(
      store.create({ command: 'create', path: '/memories/notes/', file_text: 'x' }),
      'PATH_CONFLICT',
      'The path /memories/notes is a directory',
    );
    expect(await view(store, '/memories/notes/a.md')).toBe(`${fileHeader('/memories/notes/a.md')}     1\ta`);
  });

  test('create: a directory holding only hidden files is still a directory', async () => {
    const store = await suite.open({ overwrite: false });
    await seed(store, { '/memories/d/.keep': '' });
    await expectError(
      store.create({ command: 'create', path: '/memories/d', file_text: 'x' }),
      'PATH_CONFLICT',
      'The path /memories/d is a directory',
    );
  });

  test('create: /memories itself, however written, is PATH_CONFLICT', async () => {
    const store = await suite.open();
    for (const path of ['/memories', '/memories/', '/memories/.', '/memories//./']) {
      await expectError(
        store.create({ command: 'create', path, file_text: 'x' }),
        'PATH_CONFLICT',
        'The path /memories is a directory',
      );
    }
  });

  test('create: a parent that is a file is PATH_CONFLICT "Cannot create {path}: {parent} is a file"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    await expectError(
      store.create({ command: 'create', path: '/memories/a.md/b', file_text: 'x' }),
      'PATH_CONFLICT',
      'Cannot create /memories/a.md/b: /memories/a.md is a file',
    );
    await expectError(
      store.create({ command: 'create', path: '/memories/a.md/b/c.md', file_text: 'x' }),
      'PATH_CONFLICT',
      'Cannot create /memories/a.md/b/c.md: /memories/a.md is a file',
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/a.md`,
    );
  });

  test('create: a deeper parent that is a file is named in the message', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/x/y/z.md': 'z' });
    await expectError(
      store.create({ command: 'create', path: '/memories/x/y/z.md/w/v', file_text: 'x' }),
      'PATH_CONFLICT',
      'Cannot create /memories/x/y/z.md/w/v: /memories/x/y/z.md is a file',
    );
  });

  test('create: hidden files can be created and do not appear in listings', async () => {
    const store = await suite.open();
    expect(await store.create({ command: 'create', path: '/memories/.hidden/x.md', file_text: 'h' })).toBe(
      'File created successfully at: /memories/.hidden/x.md',
    );
    expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
    expect(await view(store, '/memories/.hidden/x.md')).toBe(
      `${fileHeader('/memories/.hidden/x.md')}     1\th`,
    );
  });

  // --- limits -----------------------------------------------------------------------------------

  test('create: a file of exactly maxFileBytes is written', async () => {
    const store = await suite.open({ maxFileBytes: 10 });
    expect(await store.create({ command: 'create', path: '/memories/ten.md', file_text: '0123456789' })).toBe(
      'File created successfully at: /memories/ten.md',
    );
  });

  test('create: a file over maxFileBytes is TOO_LARGE and nothing is written', async () => {
    const store = await suite.open({ maxFileBytes: 10 });
    await expectError(
      store.create({ command: 'create', path: '/memories/big.md', file_text: '01234567890' }),
      'TOO_LARGE',
    );
    await expectError(
      view(store, '/memories/big.md'),
      'NOT_FOUND',
      'The path /memories/big.md does not exist. Please provide a valid path.',
    );
    expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
  });

  test('create: maxFileBytes counts UTF-8 bytes, not characters', async () => {
    const store = await suite.open({ maxFileBytes: 10 });
    // Five characters, ten bytes: fits. Six characters, eleven bytes: too large.
    expect(
      await store.create({ command: 'create', path: '/memories/e.md', file_text: '\u00e9'.repeat(5) }),
    ).toBe('File created successfully at: /memories/e.md');
    await expectError(
      store.create({ command: 'create', path: '/memories/f.md', file_text: `${'\u00e9'.repeat(5)}x` }),
      'TOO_LARGE',
    );
    await expectError(
      store.create({ command: 'create', path: '/memories/g.md', file_text: '\u{1f600}'.repeat(3) }),
      'TOO_LARGE',
    );
  });

  test('create: a too-large overwrite keeps the old content', async () => {
    const store = await suite.open({ maxFileBytes: 10 });
    await seed(store, { '/memories/f.md': 'small' });
    await expectError(
      store.create({ command: 'create', path: '/memories/f.md', file_text: 'x'.repeat(11) }),
      'TOO_LARGE',
    );
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\tsmall`);
  });

  test('create: the default maxFileBytes is 1,048,576 bytes', async () => {
    const store = await suite.open();
    expect(
      await store.create({ command: 'create', path: '/memories/mib.md', file_text: 'x'.repeat(1_048_576) }),
    ).toBe('File created successfully at: /memories/mib.md');
    await expectError(
      store.create({ command: 'create', path: '/memories/over.md', file_text: 'x'.repeat(1_048_577) }),
      'TOO_LARGE',
    );
  });

  // --- error order (SPEC section 1: TOO_LARGE is last) -------------------------------------------

  test('create: too large over a directory is PATH_CONFLICT (PATH_CONFLICT outranks TOO_LARGE)', async () => {
    const store = await suite.open({ maxFileBytes: 4 });
    await seed(store, { '/memories/dir/a.md': 'a' });
    await expectError(
      store.create({ command: 'create', path: '/memories/dir', file_text: 'too large' }),
      'PATH_CONFLICT',
      'The path /memories/dir is a directory',
    );
    await expectError(
      store.create({ command: 'create', path: '/memories', file_text: 'too large' }),
      'PATH_CONFLICT',
      'The path /memories is a directory',
    );
  });

  test('create: too large beneath a file is PATH_CONFLICT naming the parent', async () => {
    const store = await suite.open({ maxFileBytes: 4 });
    await seed(store, { '/memories/f': 'f' });
    await expectError(
      store.create({ command: 'create', path: '/memories/f/g/h', file_text: 'too large' }),
      'PATH_CONFLICT',
      'Cannot create /memories/f/g/h: /memories/f is a file',
    );
  });

  test('create: too large over an existing file with overwrite: false is ALREADY_EXISTS', async () => {
    const store = await suite.open({ maxFileBytes: 4, overwrite: false });
    await seed(store, { '/memories/f': 'f' });
    await expectError(
      store.create({ command: 'create', path: '/memories/f', file_text: 'too large' }),
      'ALREADY_EXISTS',
      'File /memories/f already exists',
    );
  });

  test('create: an invalid path outranks a directory conflict and the size limit', async () => {
    const store = await suite.open({ maxFileBytes: 4 });
    await expectError(
      store.create({ command: 'create', path: '/memories/../memories', file_text: 'too large' }),
      'INVALID_PATH',
      'Path /memories/../memories would escape /memories directory',
    );
  });

  test('create: a missing or ill-typed file_text is INVALID_INPUT, before the path is checked', async () => {
    const store = await suite.open();
    for (const file_text of [undefined, null, 42, ['a'], { text: 'a' }, true]) {
      await expectError(
        store.create({ command: 'create', path: '/memories/x.md', file_text } as never),
        'INVALID_INPUT',
      );
      await expectError(
        store.create({ command: 'create', path: '/etc/passwd', file_text } as never),
        'INVALID_INPUT',
      );
    }
    await expectError(
      view(store, '/memories/x.md'),
      'NOT_FOUND',
      'The path /memories/x.md does not exist. Please provide a valid path.',
    );
  });

  test('create: a missing or ill-typed path is INVALID_INPUT', async () => {
    const store = await suite.open();
    for (const path of [undefined, null, 7, ['/memories/a'], {}]) {
      await expectError(store.create({ command: 'create', path, file_text: 'x' } as never), 'INVALID_INPUT');
    }
    expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
  });
}
