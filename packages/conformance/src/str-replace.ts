// SPEC section 4.3 (str_replace).
import { expect } from 'vitest';
import { contentOf, expectError, fileHeader, seed, snippetResult, view } from './assertions.js';
import { EXACT_TEXTS } from './fixtures.js';
import type { Suite } from './suite.js';

/** The MULTIPLE_MATCHES text for these occurrence lines (at most 100 given) out of `count`. */
function multiple(oldStr: string, lines: readonly number[], count = lines.length): string {
  const listed = count > lines.length ? `${lines.join(', ')}, ... (${count} occurrences)` : lines.join(', ');
  return `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${listed}. Please ensure it is unique`;
}

/** 1, 2, ..., n. */
function upTo(n: number): number[] {
  return Array.from({ length: n }, (_, index) => index + 1);
}

const EIGHT = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8';

export function strReplaceTests(suite: Suite): void {
  const { test } = suite;

  async function eightLines() {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': EIGHT });
    return store;
  }

  function replace(
    store: Awaited<ReturnType<typeof eightLines>>,
    old_str: string,
    new_str?: string | null,
    path = '/memories/f.md',
  ) {
    return store.str_replace(
      new_str === undefined
        ? { command: 'str_replace', path, old_str }
        : { command: 'str_replace', path, old_str, new_str },
    );
  }

  test('str_replace: success shows lines k-2 to k+2 of the new content, numbered as in view', async () => {
    const store = await eightLines();
    expect(await replace(store, 'l5', 'L5')).toBe(
      snippetResult(['     3\tl3', '     4\tl4', '     5\tL5', '     6\tl6', '     7\tl7']),
    );
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\tl1\n     2\tl2\n     3\tl3\n     4\tl4\n     5\tL5\n     6\tl6\n     7\tl7\n     8\tl8`,
    );
  });

  test('str_replace: the snippet window is cut at the start of the file', async () => {
    const store = await eightLines();
    expect(await replace(store, 'l1', 'first')).toBe(
      snippetResult(['     1\tfirst', '     2\tl2', '     3\tl3']),
    );
    expect(await replace(store, 'l2', 'second')).toBe(
      snippetResult(['     1\tfirst', '     2\tsecond', '     3\tl3', '     4\tl4']),
    );
  });

  test('str_replace: the snippet window is cut at the end of the file', async () => {
    const store = await eightLines();
    expect(await replace(store, 'l8', 'last')).toBe(
      snippetResult(['     6\tl6', '     7\tl7', '     8\tlast']),
    );
    expect(await replace(store, 'l7', 'seventh')).toBe(
      snippetResult(['     5\tl5', '     6\tl6', '     7\tseventh', '     8\tlast']),
    );
  });

  test('str_replace: a multi-line new_str shows the new lines in the snippet', async () => {
    const store = await eightLines();
    expect(await replace(store, 'l4', 'A\nB\nC')).toBe(
      snippetResult(['     2\tl2', '     3\tl3', '     4\tA', '     5\tB', '     6\tC']),
    );
  });

  test('str_replace: a multi-line old_str is matched against the whole content', async () => {
    const store = await eightLines();
    expect(await replace(store, 'l3\nl4\nl5', 'X')).toBe(
      snippetResult(['     1\tl1', '     2\tl2', '     3\tX', '     4\tl6', '     5\tl7']),
    );
    expect(await view(store, '/memories/f.md')).toBe(
      `${fileHeader('/memories/f.md')}     1\tl1\n     2\tl2\n     3\tX\n     4\tl6\n     5\tl7\n     6\tl8`,
    );
  });

  test('str_replace: an old_str starting with \\n starts on the line that newline ends', async () => {
    const store = await eightLines();
    expect(await replace(store, '\nl4', '')).toBe(
      snippetResult(['     1\tl1', '     2\tl2', '     3\tl3', '     4\tl5', '     5\tl6']),
    );
  });

  test('str_replace: an omitted new_str deletes old_str', async () => {
    const store = await eightLines();
    expect(await replace(store, 'l4\n')).toBe(
      snippetResult(['     2\tl2', '     3\tl3', '     4\tl5', '     5\tl6', '     6\tl7']),
    );
    expect(await view(store, '/memories/f.md', [3, 5])).toBe(
      `${fileHeader('/memories/f.md')}     3\tl3\n     4\tl5\n     5\tl6`,
    );
  });

  test('str_replace: a null new_str counts as omitted and deletes old_str', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'keep DROP keep' });
    expect(await replace(store, 'DROP ', null)).toBe(snippetResult(['     1\tkeep keep']));
  });

  test('str_replace: replacing the whole content with nothing leaves an empty file', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'only' });
    expect(await replace(store, 'only', '')).toBe(snippetResult(['     1\t']));
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\t`);
  });

  test('str_replace: $&, $1, $$ and $` in new_str are literal', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'price: X here' });
    expect(await replace(store, 'X', "$& $1 $$ $` $'")).toBe(
      snippetResult(["     1\tprice: $& $1 $$ $` $' here"]),
    );
  });

  test('str_replace: the match is case-sensitive and verbatim', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'Hello world' });
    await expectError(
      replace(store, 'hello', 'x'),
      'NO_MATCH',
      'No replacement was performed, old_str `hello` did not appear verbatim in /memories/f.md.',
    );
    expect(await replace(store, 'Hello', 'Goodbye')).toBe(snippetResult(['     1\tGoodbye world']));
  });

  test('str_replace: \\r\\n in old_str matches only \\r\\n', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'a\r\nb\nc' });
    expect(await replace(store, 'a\r\nb', 'ab')).toBe(snippetResult(['     1\tab', '     2\tc']));
  });

  test('str_replace: hidden files can be edited by their exact path', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/.cfg/settings': 'mode=a' });
    expect(await replace(store, 'mode=a', 'mode=b', '/memories/.cfg/settings')).toBe(
      snippetResult(['     1\tmode=b']),
    );
  });

  test('str_replace: the path is echoed normalised', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/d/f.md': 'text' });
    await expectError(
      replace(store, 'zzz', 'y', '/memories//d/./f.md'),
      'NO_MATCH',
      'No replacement was performed, old_str `zzz` did not appear verbatim in /memories/d/f.md.',
    );
  });

  // --- errors -----------------------------------------------------------------------------------

  test('str_replace: a missing file is NOT_FOUND', async () => {
    const store = await suite.open();
    await expectError(
      replace(store, 'a', 'b', '/memories/missing.md'),
      'NOT_FOUND',
      'The path /memories/missing.md does not exist. Please provide a valid path.',
    );
  });

  test('str_replace: a directory is NOT_A_FILE', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/notes/a.md': 'a' });
    await expectError(
      replace(store, 'a', 'b', '/memories/notes'),
      'NOT_A_FILE',
      'The path /memories/notes is not a file.',
    );
    await expectError(
      replace(store, 'a', 'b', '/memories/notes/'),
      'NOT_A_FILE',
      'The path /memories/notes is not a file.',
    );
  });

  test('str_replace: /memories is NOT_A_FILE', async () => {
    const store = await suite.open();
    await expectError(
      replace(store, 'a', 'b', '/memories'),
      'NOT_A_FILE',
      'The path /memories is not a file.',
    );
    await expectError(
      replace(store, 'a', 'b', '/memories/'),
      'NOT_A_FILE',
      'The path /memories is not a file.',
    );
  });

  test('str_replace: an empty old_str is INVALID_INPUT, before the path is looked at', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'text', '/memories/d/x': 'x' });
    const message = 'No replacement was performed, old_str must not be empty.';
    await expectError(replace(store, '', 'x'), 'INVALID_INPUT', message);
    await expectError(replace(store, '', 'x', '/memories/missing.md'), 'INVALID_INPUT', message);
    await expectError(replace(store, '', 'x', '/memories/d'), 'INVALID_INPUT', message);
    await expectError(replace(store, '', 'x', '/memories/../x'), 'INVALID_INPUT', message);
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\ttext`);
  });

  test('str_replace: no occurrence is NO_MATCH, echoing old_str', async () => {
    const store = await eightLines();
    await expectError(
      replace(store, 'l9', 'x'),
      'NO_MATCH',
      'No replacement was performed, old_str `l9` did not appear verbatim in /memories/f.md.',
    );
  });

  test('str_replace: a multi-line old_str that does not occur is echoed with its newlines', async () => {
    const store = await eightLines();
    await expectError(
      replace(store, 'l1\nl3', 'x'),
      'NO_MATCH',
      'No replacement was performed, old_str `l1\nl3` did not appear verbatim in /memories/f.md.',
    );
  });

  test('str_replace: an old_str of more than 1,000 characters is echoed as its first 1,000 and its length in NO_MATCH', async () => {
    const store = await eightLines();
    const long = `${'q'.repeat(999)}r${'s'.repeat(500)}`;
    await expectError(
      replace(store, long, 'x'),
      'NO_MATCH',
      `No replacement was performed, old_str \`${'q'.repeat(999)}r... (1500 characters)\` did not appear verbatim in /memories/f.md.`,
    );
    // Exactly 1,000 characters are echoed whole.
    await expectError(
      replace(store, 'q'.repeat(1000), 'x'),
      'NO_MATCH',
      `No replacement was performed, old_str \`${'q'.repeat(1000)}\` did not appear verbatim in /memories/f.md.`,
    );
  });

  test('str_replace: a 20 MB old_str that matches nothing comes back as 1,000 characters and its length', async () => {
    const store = await eightLines();
    const huge = 'z'.repeat(20_000_000);
    await expectError(
      replace(store, huge, 'x'),
      'NO_MATCH',
      `No replacement was performed, old_str \`${'z'.repeat(1000)}... (20000000 characters)\` did not appear verbatim in /memories/f.md.`,
    );
  });

  test('str_replace: the cut echo of a long old_str keeps surrogate pairs whole (999 characters when the 1,000th is a high surrogate)', async () => {
    const store = await eightLines();
    const long = `${'p'.repeat(999)}\u{1f600}${'t'.repeat(100)}`;
    await expectError(
      replace(store, long, 'x'),
      'NO_MATCH',
      `No replacement was performed, old_str \`${'p'.repeat(999)}... (${long.length} characters)\` did not appear verbatim in /memories/f.md.`,
    );
  });

  test('str_replace: MULTIPLE_MATCHES echoes an old_str of more than 1,000 characters cut, with its length', async () => {
    const store = await suite.open();
    const long = 'm'.repeat(1200);
    await seed(store, { '/memories/twice.md': `${long}\n${long}` });
    await expectError(
      replace(store, long, 'x', '/memories/twice.md'),
      'MULTIPLE_MATCHES',
      `No replacement was performed. Multiple occurrences of old_str \`${'m'.repeat(1000)}... (1200 characters)\` in lines: 1, 2. Please ensure it is unique`,
    );
  });

  test('str_replace: several occurrences are MULTIPLE_MATCHES listing the line of each', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'foo bar\nbaz\nfoo\nqux' });
    await expectError(
      replace(store, 'foo', 'x'),
      'MULTIPLE_MATCHES',
      'No replacement was performed. Multiple occurrences of old_str `foo` in lines: 1, 3. Please ensure it is unique',
    );
  });

  test('str_replace: two matches on one line are reported as "1, 1"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'a x a' });
    await expectError(
      replace(store, 'a', 'b'),
      'MULTIPLE_MATCHES',
      'No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 1. Please ensure it is unique',
    );
  });

  test('str_replace: overlapping occurrences count ("aa" occurs twice in "aaa")', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'aaa', '/memories/g.md': 'x\naaaa' });
    await expectError(
      replace(store, 'aa', 'b'),
      'MULTIPLE_MATCHES',
      'No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1, 1. Please ensure it is unique',
    );
    await expectError(
      replace(store, 'aa', 'b', '/memories/g.md'),
      'MULTIPLE_MATCHES',
      'No replacement was performed. Multiple occurrences of old_str `aa` in lines: 2, 2, 2. Please ensure it is unique',
    );
  });

  test('str_replace: repeated multi-line occurrences are reported by the line each starts on', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'x\ny\nx\ny\nz\nx\ny' });
    await expectError(
      replace(store, 'x\ny', 'q'),
      'MULTIPLE_MATCHES',
      'No replacement was performed. Multiple occurrences of old_str `x\ny` in lines: 1, 3, 6. Please ensure it is unique',
    );
  });

  test('str_replace: exactly 100 occurrences are all listed, with no count', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': Array.from({ length: 100 }, () => 'hit').join('\n') });
    const error = await expectError(
      replace(store, 'hit', 'x'),
      'MULTIPLE_MATCHES',
      multiple('hit', upTo(100)),
    );
    expect(error.message).toBe(
      `No replacement was performed. Multiple occurrences of old_str \`hit\` in lines: ${upTo(100).join(', ')}. Please ensure it is unique`,
    );
  });

  test('str_replace: 101 occurrences list the first 100 lines, then ", ... (101 occurrences)"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': Array.from({ length: 101 }, () => 'hit').join('\n') });
    await expectError(
      replace(store, 'hit', 'x'),
      'MULTIPLE_MATCHES',
      `No replacement was performed. Multiple occurrences of old_str \`hit\` in lines: ${upTo(100).join(', ')}, ... (101 occurrences). Please ensure it is unique`,
    );
  });

  test('str_replace: a thousand occurrences on a thousand lines list lines 1 to 100, then ", ... (1000 occurrences)"', async () => {
    const store = await suite.open();
    await seed(store, {
      '/memories/f.md': Array.from({ length: 1000 }, (_, index) => `line ${index} hit`).join('\n'),
    });
    await expectError(replace(store, 'hit', 'x'), 'MULTIPLE_MATCHES', multiple('hit', upTo(100), 1000));
  });

  test('str_replace: a thousand overlapping occurrences on one line list "1" 100 times, then the count', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': `${'a'.repeat(1001)}\nb` });
    await expectError(
      replace(store, 'aa', 'x'),
      'MULTIPLE_MATCHES',
      multiple('aa', Array(100).fill(1), 1000),
    );
  });

  test('str_replace: "a" in a 1 MiB file of "a" is MULTIPLE_MATCHES with the first 100 lines and the count of all 1,048,576', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a'.repeat(1_048_576) });
    await expectError(
      replace(store, 'a', 'b', '/memories/a.md'),
      'MULTIPLE_MATCHES',
      multiple('a', Array(100).fill(1), 1_048_576),
    );
    expect((await view(store, '/memories/a.md', [1, 1])).length).toBeLessThan(20_000);
  });

  test('str_replace: old_str is matched without Unicode normalisation (NFD e\u0301 matches only NFD)', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/nfd.md': 'cafe\u0301', '/memories/nfc.md': 'caf\u00e9' });
    await expectError(
      replace(store, 'caf\u00e9', 'x', '/memories/nfd.md'),
      'NO_MATCH',
      'No replacement was performed, old_str `caf\u00e9` did not appear verbatim in /memories/nfd.md.',
    );
    await expectError(
      replace(store, 'e\u0301', 'x', '/memories/nfc.md'),
      'NO_MATCH',
      'No replacement was performed, old_str `e\u0301` did not appear verbatim in /memories/nfc.md.',
    );
    expect(await replace(store, 'e\u0301', 'E\u0301', '/memories/nfd.md')).toBe(
      snippetResult(['     1\tcafE\u0301']),
    );
  });

  test('str_replace: the rest of the content is kept exactly, and new_str is written as given (NUL, BOM, CR, U+2028, U+FFFE, NFD)', async () => {
    const store = await suite.open();
    for (const [index, [label, text]] of EXACT_TEXTS.entries()) {
      const path = `/memories/exact/${index}`;
      await seed(store, { [path]: `${text}[MARK]${text}` });
      await replace(store, '[MARK]', `<${text}>`, path);
      const shown = contentOf(await view(store, path));
      const expected = `${text}<${text}>${text}`;
      expect(
        shown === expected,
        `${label}: expected ${JSON.stringify(expected)}, viewed ${JSON.stringify(shown)}`,
      ).toBe(true);
    }
  });

  test('str_replace: an edit over maxFileBytes is TOO_LARGE and nothing is written', async () => {
    const store = await suite.open({ maxFileBytes: 10 });
    await seed(store, { '/memories/f.md': '0123456789' });
    await expectError(replace(store, '0', 'ab'), 'TOO_LARGE');
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\t0123456789`);
    expect(await replace(store, '01', 'x')).toBe(snippetResult(['     1\tx23456789']));
  });

  test('str_replace: MULTIPLE_MATCHES and NO_MATCH outrank TOO_LARGE', async () => {
    const store = await suite.open({ maxFileBytes: 6 });
    await seed(store, { '/memories/f.md': 'aaaa' });
    await expectError(
      replace(store, 'a', 'much too long'),
      'MULTIPLE_MATCHES',
      'No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 1, 1, 1. Please ensure it is unique',
    );
    await expectError(
      replace(store, 'b', 'much too long'),
      'NO_MATCH',
      'No replacement was performed, old_str `b` did not appear verbatim in /memories/f.md.',
    );
  });

  test('str_replace: a missing or ill-typed old_str or path, or an ill-typed new_str, is INVALID_INPUT', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'text' });
    const bad: unknown[] = [
      { path: '/memories/f.md' },
      { path: '/memories/f.md', old_str: 5, new_str: 'x' },
      { path: '/memories/f.md', old_str: null, new_str: 'x' },
      { path: '/memories/f.md', old_str: 'text', new_str: 5 },
      { path: '/memories/f.md', old_str: 'text', new_str: ['x'] },
      { path: '/memories/f.md', old_str: 'text', new_str: false },
      { old_str: 'text', new_str: 'x' },
      { path: 3, old_str: 'text', new_str: 'x' },
    ];
    for (const fields of bad) {
      await expectError(
        store.str_replace({ command: 'str_replace', ...(fields as object) } as never),
        'INVALID_INPUT',
      );
    }
    expect(await view(store, '/memories/f.md')).toBe(`${fileHeader('/memories/f.md')}     1\ttext`);
  });
}
