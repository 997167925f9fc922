// SPEC section 4.1 (view) and section 5 (sizes, seen through listings).

import { utf8Length } from '@memdir/core/driver';
import { expect } from 'vitest';
import { expectError, fileHeader, listingHeader, seed, view } from './assertions.js';
import { LITERALS, LOOKALIKES } from './fixtures.js';
import type { Suite } from './suite.js';

/**
 * Names in the order a listing shows them (UTF-16 code units): the astral ones first, since their
 * high surrogates (U+D800-U+DBFF) sort below U+E000. UTF-8 bytes and code points order them the
 * other way round, so a backend that sorts bytes and cuts the listing short shows the wrong names.
 */
const UTF16_ORDER = ['\u{10000}', '\u{1f600}', '\u{20000}', '\ue000', '\uf8ff', '\uff5a', '\ufffd'];

/** `n` numbered lines whose text is empty, as view renders them (`"     1\t"`...). */
function emptyNumberedLines(first: number, last: number): string {
  const lines: string[] = [];
  for (let number = first; number <= last; number++) lines.push(`${String(number).padStart(6, ' ')}\t`);
  return lines.join('\n');
}

export function viewTests(suite: Suite): void {
  const { test } = suite;

  // --- directories ------------------------------------------------------------------------------

  test('view: an empty store lists /memories alone with size 0B', async () => {
    const store = await suite.open();
    expect(await view(store, '/memories')).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  });

  test('view: /memories/ lists the root under its normalised name /memories', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    expect(await view(store, '/memories/')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/a.md`,
    );
  });

  test('view: siblings are sorted by UTF-16 code units, case-sensitively (Zeta.md before alpha.md)', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/alpha.md': 'a',
      '/memories/Zeta.md': 'z',
      '/memories/_under.md': '_',
      '/memories/Beta/x.md': 'x',
      '/memories/10.md': '1',
      '/memories/9.md': '9',
    });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}6B\t/memories\n1B\t/memories/10.md\n1B\t/memories/9.md\n1B\t/memories/Beta/\n1B\t/memories/Beta/x.md\n1B\t/memories/Zeta.md\n1B\t/memories/_under.md\n1B\t/memories/alpha.md`,
    );
  });

  test('view: an astral character (U+1F600) sorts before U+FF5A, as UTF-16 code units order them', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/\uff5a.md': 'z', '/memories/\u{1f600}.md': 'e' });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}2B\t/memories\n1B\t/memories/\u{1f600}.md\n1B\t/memories/\uff5a.md`,
    );
  });

  test('view: each directory line is followed by its own children; depth-2 directories are listed but not opened', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/b/deep/deeper/x.md': 'xx',
      '/memories/b/deep/y.md': 'yyy',
      '/memories/b/top.md': 'tttt',
      '/memories/a.md': 'a',
      '/memories/c/z.md': 'zzzzz',
    });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}15B\t/memories\n1B\t/memories/a.md\n9B\t/memories/b/\n5B\t/memories/b/deep/\n4B\t/memories/b/top.md\n5B\t/memories/c/\n5B\t/memories/c/z.md`,
    );
  });

  test('view: a subdirectory lists two levels below itself, its own line without a trailing slash', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/notes/deep/deeper/x.md': 'xx',
      '/memories/notes/deep/y.md': 'yyy',
      '/memories/notes/top.md': 'tttt',
      '/memories/other.md': 'o',
    });
    expect(await view(store, '/memories/notes')).toBe(
      `${listingHeader('/memories/notes')}9B\t/memories/notes\n5B\t/memories/notes/deep/\n2B\t/memories/notes/deep/deeper/\n3B\t/memories/notes/deep/y.md\n4B\t/memories/notes/top.md`,
    );
    expect(await view(store, '/memories/notes/')).toBe(await view(store, '/memories/notes'));
  });

  test('view: a directory size is the total of the visible files beneath it at any depth', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/d/1.md': 'x'.repeat(100),
      '/memories/d/e/2.md': 'x'.repeat(200),
      '/memories/d/e/f/g/3.md': 'x'.repeat(1000),
      '/memories/d/e/.hidden/4.md': 'x'.repeat(5000),
      '/memories/d/node_modules/5.md': 'x'.repeat(7000),
    });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1.3K\t/memories\n1.3K\t/memories/d/\n100B\t/memories/d/1.md\n1.2K\t/memories/d/e/`,
    );
  });

  test('view: hidden names (.name, node_modules) and everything beneath them are left out of listings', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/.hidden.md': 'h',
      '/memories/.archive/old.md': 'old',
      '/memories/node_modules/pkg/index.md': 'p',
      '/memories/notes/.git/HEAD': 'ref',
      '/memories/notes/node_modules/x.md': 'x',
      '/memories/notes/visible.md': 'v',
      '/memories/notes/sub/.secret': 's',
    });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/notes/\n0B\t/memories/notes/sub/\n1B\t/memories/notes/visible.md`,
    );
  });

  test('view: a directory holding only hidden files is still listed, with size 0B', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/only-hidden/.keep': 'keep', '/memories/only-hidden/deep/.x/y.md': 'y' });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}0B\t/memories\n0B\t/memories/only-hidden/\n0B\t/memories/only-hidden/deep/`,
    );
    expect(await view(store, '/memories/only-hidden')).toBe(
      `${listingHeader('/memories/only-hidden')}0B\t/memories/only-hidden\n0B\t/memories/only-hidden/deep/`,
    );
  });

  test('view: hidden files and directories can be viewed by their exact path', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/.hidden.md': 'secret',
      '/memories/node_modules/pkg/index.md': 'p',
      '/memories/notes/.git/HEAD': 'ref',
    });
    expect(await view(store, '/memories/.hidden.md')).toBe(
      `${fileHeader('/memories/.hidden.md')}     1\tsecret`,
    );
    expect(await view(store, '/memories/notes/.git/HEAD')).toBe(
      `${fileHeader('/memories/notes/.git/HEAD')}     1\tref`,
    );
    expect(await view(store, '/memories/node_modules')).toBe(
      `${listingHeader('/memories/node_modules')}1B\t/memories/node_modules\n1B\t/memories/node_modules/pkg/\n1B\t/memories/node_modules/pkg/index.md`,
    );
  });

  test('view: /memories/.archive lists the visible entries inside it (hiddenness is judged below the viewed directory)', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/.archive/2024/jan.md': 'january',
      '/memories/.archive/b.md': 'bb',
      '/memories/.archive/.deeper/c.md': 'ccc',
      '/memories/.archive/node_modules/d.md': 'dddd',
      '/memories/visible.md': 'v',
    });
    expect(await view(store, '/memories/.archive')).toBe(
      `${listingHeader('/memories/.archive')}9B\t/memories/.archive\n7B\t/memories/.archive/2024/\n7B\t/memories/.archive/2024/jan.md\n2B\t/memories/.archive/b.md`,
    );
  });

  test('view: sizes format as 0B, 1023B, 1K, 10K, 1.3K (1280 bytes), 1.5K, 4K, and a directory total as 18.7K', async () => {
    const store = await suite.open();
    const sizes = [0, 1023, 1024, 1280, 1536, 4096, 10240];
    for (const size of sizes) {
      await store.create({
        command: 'create',
        path: `/memories/sizes/b${size}`,
        file_text: 'x'.repeat(size),
      });
    }
    expect(await view(store, '/memories/sizes')).toBe(
      `${listingHeader('/memories/sizes')}18.7K\t/memories/sizes\n0B\t/memories/sizes/b0\n1023B\t/memories/sizes/b1023\n1K\t/memories/sizes/b1024\n10K\t/memories/sizes/b10240\n1.3K\t/memories/sizes/b1280\n1.5K\t/memories/sizes/b1536\n4K\t/memories/sizes/b4096`,
    );
  });

  test('view: 1,048,575 bytes show as 1024.0K, 1,048,576 as 1M, and their total as 2.0M', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a': 'x'.repeat(1_048_575), '/memories/b': 'x'.repeat(1_048_576) });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}2.0M\t/memories\n1024.0K\t/memories/a\n1M\t/memories/b`,
    );
  });

  test('view: sizes count UTF-8 bytes, not characters', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/e.md': '\u00e9',
      '/memories/emoji.md': '\u{1f600}',
      '/memories/euro.md': '\u20ac\n',
    });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}10B\t/memories\n2B\t/memories/e.md\n4B\t/memories/emoji.md\n4B\t/memories/euro.md`,
    );
  });

  test('view: a listing truncated at maxViewChars ends with the notice and exact counts', async () => {
    // Body: "5B\t/memories" (12 chars), then entry lines of 17 chars, each after a "\n".
    const store = await suite.open({ maxViewChars: 12 + 3 * 18 });
    await seed(store, {
      '/memories/a.md': 'a',
      '/memories/b.md': 'b',
      '/memories/c.md': 'c',
      '/memories/d.md': 'd',
      '/memories/e.md': 'e',
    });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}5B\t/memories\n1B\t/memories/a.md\n1B\t/memories/b.md\n1B\t/memories/c.md\n[Listing truncated: 3 of 5 entries shown. View a subdirectory to see the rest.]`,
    );
  });

  test('view: a listing whose body is exactly maxViewChars long is not truncated', async () => {
    const store = await suite.open({ maxViewChars: 12 + 2 * 18 });
    await seed(store, { '/memories/a.md': 'a', '/memories/b.md': 'bb' });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}3B\t/memories\n1B\t/memories/a.md\n2B\t/memories/b.md`,
    );
  });

  test('view: listing truncation counts directories and depth-2 entries, and stops at the first line that does not fit', async () => {
    // "5B\t/memories" (12) + "\n4B\t/memories/notes/" (20) + "\n2B\t/memories/notes/a.md" (24) = 56.
    const store = await suite.open({ maxViewChars: 56 + 5 });
    await seed(store, { '/memories/notes/a.md': 'aa', '/memories/notes/bb.md': 'bb', '/memories/x': 'x' });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}5B\t/memories\n4B\t/memories/notes/\n2B\t/memories/notes/a.md\n[Listing truncated: 2 of 4 entries shown. View a subdirectory to see the rest.]`,
    );
  });

  test("view: the directory's own line is always shown, even when it alone exceeds maxViewChars", async () => {
    const store = await suite.open({ maxViewChars: 5 });
    await seed(store, { '/memories/a.md': 'a', '/memories/b/c.md': 'c' });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}2B\t/memories\n[Listing truncated: 0 of 3 entries shown. View a subdirectory to see the rest.]`,
    );
  });

  test('view: listing truncation keeps UTF-16 order when names mix U+E000-U+FFFF with astral characters (U+1F600 before U+E000)', async () => {
    // Body: "7B\t/memories/flat" (17), then "\n1B\t/memories/flat/{name}" per entry: 21 for an
    // astral name (two code units), 20 for the others. Room for exactly the three astral ones.
    const store = await suite.open({ maxViewChars: 17 + 3 * 21 });
    const shuffled = [...UTF16_ORDER].reverse();
    await seed(store, Object.fromEntries(shuffled.map((name) => [`/memories/flat/${name}`, 'x'])));
    expect(await view(store, '/memories/flat')).toBe(
      `${listingHeader('/memories/flat')}7B\t/memories/flat\n1B\t/memories/flat/\u{10000}\n1B\t/memories/flat/\u{1f600}\n1B\t/memories/flat/\u{20000}\n[Listing truncated: 3 of 7 entries shown. View a subdirectory to see the rest.]`,
    );
  });

  test('view: listing truncation keeps UTF-16 order at depth 2 too (the cut falls between astral and U+E000-U+FFFF names)', async () => {
    // "7B\t/memories" (12) + "\n7B\t/memories/d/" (16) + the three astral children, 1 + 17 each.
    const store = await suite.open({ maxViewChars: 12 + 16 + 3 * 18 });
    await seed(
      store,
      Object.fromEntries([...UTF16_ORDER].reverse().map((name) => [`/memories/d/${name}`, 'x'])),
    );
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}7B\t/memories\n7B\t/memories/d/\n1B\t/memories/d/\u{10000}\n1B\t/memories/d/\u{1f600}\n1B\t/memories/d/\u{20000}\n[Listing truncated: 4 of 8 entries shown. View a subdirectory to see the rest.]`,
    );
    // And with room for all of them, the full order.
    const roomy = await suite.open();
    expect(await view(roomy, '/memories/d')).toBe(
      `${listingHeader('/memories/d')}7B\t/memories/d\n${UTF16_ORDER.map((name) => `1B\t/memories/d/${name}`).join('\n')}`,
    );
  });

  test('view: names holding _ % * ? [ ] { } \' " : and spaces are literal: each shows only itself, never the names its wildcards would match', async () => {
    const store = await suite.open();
    const names = [...LITERALS, ...LOOKALIKES];
    for (const name of names) {
      await seed(store, { [`/memories/dirs/${name}/f`]: name, [`/memories/files/${name}`]: name });
    }
    for (const name of names) {
      const size = `${utf8Length(name)}B`;
      expect(
        await view(store, `/memories/dirs/${name}`),
        `view of the directory ${JSON.stringify(name)}`,
      ).toBe(
        `${listingHeader(`/memories/dirs/${name}`)}${size}\t/memories/dirs/${name}\n${size}\t/memories/dirs/${name}/f`,
      );
      expect(await view(store, `/memories/files/${name}`), `view of the file ${JSON.stringify(name)}`).toBe(
        `${fileHeader(`/memories/files/${name}`)}     1\t${name}`,
      );
    }
    const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const total = names.reduce((sum, name) => sum + utf8Length(name), 0);
    expect(await view(store, '/memories/files')).toBe(
      `${listingHeader('/memories/files')}${total}B\t/memories/files\n${sorted.map((name) => `${utf8Length(name)}B\t/memories/files/${name}`).join('\n')}`,
    );
    // Looking up a literal that is not there is NOT_FOUND, whatever its wildcards would match.
    for (const name of ['a_', 'a%b', '*', '?', '[a]', '{a}']) {
      await expectError(
        view(store, `/memories/files/${name}`),
        'NOT_FOUND',
        `The path /memories/files/${name} does not exist. Please provide a valid path.`,
      );
    }
  });

  test('view: a missing path is NOT_FOUND', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    await expectError(
      view(store, '/memories/missing.md'),
      'NOT_FOUND',
      'The path /memories/missing.md does not exist. Please provide a valid path.',
    );
    await expectError(
      view(store, '/memories//missing/./x.md'),
      'NOT_FOUND',
      'The path /memories/missing/x.md does not exist. Please provide a valid path.',
    );
  });

  test('view: a path beneath a file is NOT_FOUND', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    await expectError(
      view(store, '/memories/a.md/b'),
      'NOT_FOUND',
      'The path /memories/a.md/b does not exist. Please provide a valid path.',
    );
  });

  test('view: a directory that lost its last file no longer exists', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/gone/x.md': 'x' });
    await store.delete({ command: 'delete', path: '/memories/gone/x.md' });
    await expectError(
      view(store, '/memories/gone'),
      'NOT_FOUND',
      'The path /memories/gone does not exist. Please provide a valid path.',
    );
  });

  // --- files ------------------------------------------------------------------------------------

  test('view: a file shows each line numbered, right-aligned in 6 columns, then a TAB', async () => {
    const store = await suite.open();
    const content = Array.from({ length: 11 }, (_, index) => `line ${index + 1}`).join('\n');
    await seed(store, { '/memories/n.md': content });
    expect(await view(store, '/memories/n.md')).toBe(
      "Here's the content of /memories/n.md with line numbers:\n     1\tline 1\n     2\tline 2\n     3\tline 3\n     4\tline 4\n     5\tline 5\n     6\tline 6\n     7\tline 7\n     8\tline 8\n     9\tline 9\n    10\tline 10\n    11\tline 11",
    );
  });

  test('view: a file ending in \\n shows an empty last numbered line', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/t.md': 'Hello\nWorld\n' });
    expect(await view(store, '/memories/t.md')).toBe(
      `${fileHeader('/memories/t.md')}     1\tHello\n     2\tWorld\n     3\t`,
    );
  });

  test('view: an empty file shows one empty line 1', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/empty.md': '' });
    expect(await view(store, '/memories/empty.md')).toBe(`${fileHeader('/memories/empty.md')}     1\t`);
  });

  test('view: lines split on \\n only, so \\r stays part of its line', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/crlf.md': 'a\r\nb\r\n\rc' });
    expect(await view(store, '/memories/crlf.md')).toBe(
      `${fileHeader('/memories/crlf.md')}     1\ta\r\n     2\tb\r\n     3\t\rc`,
    );
  });

  test('view: tabs, unicode and blank lines are shown as they are', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/u.md': '\tindent\n\n\u00e9t\u00e9 \u{1f600}' });
    expect(await view(store, '/memories/u.md')).toBe(
      `${fileHeader('/memories/u.md')}     1\t\tindent\n     2\t\n     3\t\u00e9t\u00e9 \u{1f600}`,
    );
  });

  test('view: the file path is echoed normalised', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/b.md': 'b' });
    expect(await view(store, '/memories//a/./b.md')).toBe(`${fileHeader('/memories/a/b.md')}     1\tb`);
  });

  // --- view_range -------------------------------------------------------------------------------

  const fiveLines = 'one\ntwo\nthree\nfour\nfive';

  test('view_range: [2, 4] shows lines 2 to 4, numbered as in the file', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    expect(await view(store, '/memories/r.md', [2, 4])).toBe(
      `${fileHeader('/memories/r.md')}     2\ttwo\n     3\tthree\n     4\tfour`,
    );
  });

  test('view_range: end -1 reads to the end of the file', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    expect(await view(store, '/memories/r.md', [4, -1])).toBe(
      `${fileHeader('/memories/r.md')}     4\tfour\n     5\tfive`,
    );
  });

  test('view_range: an end past the last line is clamped to it', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    expect(await view(store, '/memories/r.md', [3, 1000])).toBe(
      `${fileHeader('/memories/r.md')}     3\tthree\n     4\tfour\n     5\tfive`,
    );
  });

  test('view_range: [n, n] shows the last line alone, including the empty line after a final \\n', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines, '/memories/nl.md': 'a\nb\n' });
    expect(await view(store, '/memories/r.md', [5, 5])).toBe(`${fileHeader('/memories/r.md')}     5\tfive`);
    expect(await view(store, '/memories/nl.md', [3, -1])).toBe(`${fileHeader('/memories/nl.md')}     3\t`);
  });

  test('view_range: [1, 1] on an empty file shows the empty line 1', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/e.md': '' });
    expect(await view(store, '/memories/e.md', [1, 1])).toBe(`${fileHeader('/memories/e.md')}     1\t`);
  });

  test('view_range: a start past the last line is INVALID_INPUT and the message gives the line count', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    const error = await expectError(view(store, '/memories/r.md', [6, -1]), 'INVALID_INPUT');
    expect(error.message).toContain('5');
    const far = await expectError(view(store, '/memories/r.md', [99, 120]), 'INVALID_INPUT');
    expect(far.message).toContain('5');
  });

  test('view_range: a start below 1 is INVALID_INPUT, checked before the path', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    await expectError(view(store, '/memories/r.md', [0, 2]), 'INVALID_INPUT');
    await expectError(view(store, '/memories/r.md', [-1, -1]), 'INVALID_INPUT');
    await expectError(view(store, '/memories/missing.md', [0, 2]), 'INVALID_INPUT');
    await expectError(view(store, '/elsewhere/r.md', [0, 2]), 'INVALID_INPUT');
  });

  test('view_range: an end below the start (other than -1) is INVALID_INPUT, checked before the path', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    await expectError(view(store, '/memories/r.md', [3, 2]), 'INVALID_INPUT');
    await expectError(view(store, '/memories/r.md', [1, -2]), 'INVALID_INPUT');
    await expectError(view(store, '/memories/missing.md', [3, 2]), 'INVALID_INPUT');
    await expectError(view(store, '/memories/../x', [3, 2]), 'INVALID_INPUT');
  });

  test('view_range: anything but two integers is INVALID_INPUT, checked before the path', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': fiveLines });
    const bad: unknown[] = [
      [],
      [1],
      [1, 2, 3],
      ['1', 2],
      [1, '2'],
      [1.5, 2],
      [1, 2.5],
      [Number.NaN, 1],
      [1, Number.POSITIVE_INFINITY],
      [1, null],
      'all',
      3,
      {},
      { 0: 1, 1: 2 },
      true,
    ];
    for (const range of bad) {
      for (const path of ['/memories/r.md', '/memories/missing.md', 'relative/path', '/memories/a\\b']) {
        await expectError(store.view({ command: 'view', path, view_range: range } as never), 'INVALID_INPUT');
      }
    }
  });

  test('view_range: null counts as omitted', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/r.md': 'a\nb' });
    expect(await store.view({ command: 'view', path: '/memories/r.md', view_range: null })).toBe(
      `${fileHeader('/memories/r.md')}     1\ta\n     2\tb`,
    );
  });

  test('view_range: a well-formed range is ignored on a directory, even past every line', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/x.md': 'x' });
    const listing = `${listingHeader('/memories/d')}1B\t/memories/d\n1B\t/memories/d/x.md`;
    expect(await view(store, '/memories/d', [1, 1])).toBe(listing);
    expect(await view(store, '/memories/d', [50, -1])).toBe(listing);
    expect(await view(store, '/memories', [7, 9])).toBe(await view(store, '/memories'));
  });

  test('view_range: a missing path with a well-formed range is NOT_FOUND', async () => {
    const store = await suite.open();
    await expectError(
      view(store, '/memories/nope.md', [10, 20]),
      'NOT_FOUND',
      'The path /memories/nope.md does not exist. Please provide a valid path.',
    );
  });

  // --- file truncation --------------------------------------------------------------------------

  // "     1\taaaa" is 11 characters; three lines joined by "\n" are 35.
  const abc = 'aaaa\nbbbb\ncccc';

  test('view: file lines are added while the body stays within maxViewChars, then the notice gives first-last of total', async () => {
    const store = await suite.open({ maxViewChars: 34 });
    await seed(store, { '/memories/t.md': abc });
    expect(await view(store, '/memories/t.md')).toBe(
      `${fileHeader('/memories/t.md')}     1\taaaa\n     2\tbbbb\n[Output truncated: showing lines 1-2 of 3. Use view_range to see the rest.]`,
    );
  });

  test('view: a file body of exactly maxViewChars is not truncated', async () => {
    const store = await suite.open({ maxViewChars: 35 });
    await seed(store, { '/memories/t.md': abc });
    expect(await view(store, '/memories/t.md')).toBe(
      `${fileHeader('/memories/t.md')}     1\taaaa\n     2\tbbbb\n     3\tcccc`,
    );
  });

  test('view: a first line longer than maxViewChars is cut to exactly maxViewChars characters', async () => {
    const store = await suite.open({ maxViewChars: 9 });
    await seed(store, { '/memories/t.md': abc });
    expect(await view(store, '/memories/t.md')).toBe(
      `${fileHeader('/memories/t.md')}     1\taa\n[Output truncated: showing lines 1-1 of 3. Use view_range to see the rest.]`,
    );
  });

  test('view: a one-line file cut at maxViewChars gets the notice "1-1 of 1"', async () => {
    const store = await suite.open({ maxViewChars: 20 });
    await seed(store, { '/memories/long.md': 'x'.repeat(100) });
    expect(await view(store, '/memories/long.md')).toBe(
      `${fileHeader('/memories/long.md')}     1\txxxxxxxxxxxxx\n[Output truncated: showing lines 1-1 of 1. Use view_range to see the rest.]`,
    );
  });

  test('view: truncation inside a view_range numbers from the range start and counts every line of the file', async () => {
    const store = await suite.open({ maxViewChars: 11 });
    await seed(store, { '/memories/t.md': abc });
    expect(await view(store, '/memories/t.md', [2, -1])).toBe(
      `${fileHeader('/memories/t.md')}     2\tbbbb\n[Output truncated: showing lines 2-2 of 3. Use view_range to see the rest.]`,
    );
    expect(await view(store, '/memories/t.md', [3, 3])).toBe(`${fileHeader('/memories/t.md')}     3\tcccc`);
  });

  test('view: the default maxViewChars (16,000) shows 2,000 short lines of a long file', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/blank.md': '\n'.repeat(5000) });
    expect(await view(store, '/memories/blank.md')).toBe(
      `${fileHeader('/memories/blank.md')}${emptyNumberedLines(1, 2000)}\n[Output truncated: showing lines 1-2000 of 5001. Use view_range to see the rest.]`,
    );
  });

  // --- too many lines ---------------------------------------------------------------------------

  test('view: a file of more than 999,999 lines is TOO_LARGE', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/huge.txt': '\n'.repeat(999_999) });
    await expectError(
      view(store, '/memories/huge.txt'),
      'TOO_LARGE',
      'File /memories/huge.txt has too many lines (1000000). Maximum is 999,999 lines.',
    );
    await expectError(
      view(store, '/memories/huge.txt', [1, 10]),
      'TOO_LARGE',
      'File /memories/huge.txt has too many lines (1000000). Maximum is 999,999 lines.',
    );
  });

  test('view: a file of exactly 999,999 lines can be viewed, and its last line is numbered 999999', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/max.txt': '\n'.repeat(999_998) });
    expect(await view(store, '/memories/max.txt', [999_998, -1])).toBe(
      `${fileHeader('/memories/max.txt')}999998\t\n999999\t`,
    );
  });

  test('view: a view_range past the end of a file of more than 999,999 lines is INVALID_INPUT (it outranks TOO_LARGE)', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/huge.txt': '\n'.repeat(999_999) });
    const error = await expectError(view(store, '/memories/huge.txt', [1_000_001, -1]), 'INVALID_INPUT');
    expect(error.message).toContain('1000000');
  });
}
