// SPEC section 2 (paths) and section 8: hostile paths are refused and write nothing anywhere.

import type { MemoryStore } from '@memdir/core';
import { expect } from 'vitest';
import { expectError, fileHeader, listingHeader, seed, view } from './assertions.js';
import { landingSpots, pathOfBytes } from './fixtures.js';
import { FIXTURE, FIXTURE_HIDDEN_ROOTS } from './input.js';
import type { Suite } from './suite.js';

/** Paths outside /memories: "Path must start with /memories, got: {input}". */
const OUTSIDE_ROOT = [
  '/memoriesX/a',
  'memories/a',
  '/Memories/a',
  '',
  '/',
  ' /memories/a',
  '/etc/passwd',
  '../memories/a',
  '~/memories/a',
  'memories',
];

/** Paths with a `..` segment: "Path {input} would escape /memories directory". */
const ESCAPING = [
  '/memories/../a',
  '/memories/a/../b',
  '/memories/..',
  '/memories/a/..',
  '/memories/a/../../..',
  '/memories/./../x',
  '/memories//../x',
  '/memories/a/../',
];

/** Other invalid paths, one per rule (the wording of their messages is the implementation's). */
const OTHER_INVALID: ReadonlyArray<readonly [string, string]> = [
  ['NUL', '/memories/a\u0000b'],
  ['U+0001', '/memories/a\u0001b'],
  ['TAB', '/memories/a\tb'],
  ['LF', '/memories/a\nb'],
  ['CR', '/memories/a\rb'],
  ['U+001F', '/memories/a\u001fb'],
  ['DEL', '/memories/a\u007fb'],
  ['a backslash', '/memories/a\\b'],
  ['a backslash traversal', '/memories/..\\..\\x'],
  ['%2e%2e%2f', '/memories/%2e%2e%2fsecret'],
  ['%2E%2E%2F', '/memories/%2E%2E%2Fsecret'],
  ['%2e%2E mixed case', '/memories/%2e%2E/x'],
  ['%2f', '/memories/a%2fb'],
  ['%00', '/memories/a%00'],
  ['%20', '/memories/a%20b'],
  ['a 256-byte name', `/memories/${'x'.repeat(256)}`],
  ['a 256-byte name of 2-byte characters', `/memories/${'\u00e9'.repeat(128)}`],
  [
    'a 1025-byte path',
    `/memories/${'x'.repeat(202)}/${'x'.repeat(202)}/${'x'.repeat(202)}/${'x'.repeat(202)}/${'x'.repeat(203)}`,
  ],
];

/**
 * Hostile paths that a careless store could resolve to files of FIXTURE, to the root, or outside
 * the store: each must be refused by every command, and nothing may change anywhere.
 */
const HOSTILE = [
  '/memories/../memories/top.md',
  '/memories/notes/../top.md',
  '/memories/notes/..',
  '/memories/notes/a.md/../../top.md',
  '/memories/../../outside.md',
  '/memoriesnotes/a.md',
  '/memories_/top.md',
  'memories/top.md',
  '/Memories/top.md',
  '/etc/passwd',
  '',
  '/memories/notes\\a.md',
  '\\memories\\top.md',
  '/memories/%2e%2e/memories/top.md',
  '/memories/notes/%2E%2E/top.md',
  '/memories/notes%2fa.md',
  '/memories/%2e%2e%2f%2e%2e%2foutside.md',
  '/memories/top.md\u0000.txt',
  '/memories/top.md\n',
  '/memories/\u007ftop.md',
  '/memories/notes/\u001b[2Ja.md',
  `/memories/${'t'.repeat(256)}`,
  `/memories/notes/${'y'.repeat(210)}/${'y'.repeat(210)}/${'y'.repeat(210)}/${'y'.repeat(210)}/${'z'.repeat(210)}`,
  // Lone surrogates: a store that encodes them as U+FFFD (or drops them) would reach top.md.
  '/memories/top.md\ud83d',
  '/memories/\udc00top.md',
  '/memories/notes/\ud83d/../../top.md',
  // Over 4096 characters as sent, but /memories/top.md once normalised.
  `/memories${'/'.repeat(4090)}top.md`,
  `/memories/${'./'.repeat(2045)}top.md`,
];

/** Each command with `path` in each path field it has (rename twice: as the source and as the destination). */
function everyCommand(path: string): Array<[string, (store: MemoryStore) => Promise<string>]> {
  return [
    ['view', (s) => s.view({ command: 'view', path })],
    ['create', (s) => s.create({ command: 'create', path, file_text: 'x' })],
    ['str_replace', (s) => s.str_replace({ command: 'str_replace', path, old_str: 'top', new_str: 'x' })],
    ['insert', (s) => s.insert({ command: 'insert', path, insert_line: 0, insert_text: 'x' })],
    ['delete', (s) => s.delete({ command: 'delete', path })],
    ['rename from', (s) => s.rename({ command: 'rename', old_path: path, new_path: '/memories/renamed.md' })],
    ['rename to', (s) => s.rename({ command: 'rename', old_path: '/memories/top.md', new_path: path })],
  ];
}

function code(error: unknown): string {
  return (error as { code?: string }).code ?? String(error);
}

export function pathTests(suite: Suite): void {
  const { test } = suite;
  /** The longest path the store takes, in UTF-8 bytes: 1024, or the driver's lower limit. */
  const limit = suite.maxPathBytes;

  // --- normalisation ----------------------------------------------------------------------------

  test('paths: NFC and NFD spellings of a name are one file, echoed in NFC', async () => {
    const store = await suite.open({ overwrite: false });
    const nfd = '/memories/cafe\u0301.md';
    const nfc = '/memories/caf\u00e9.md';
    expect(await store.create({ command: 'create', path: nfd, file_text: 'x' })).toBe(
      `File created successfully at: ${nfc}`,
    );
    expect(await view(store, nfc)).toBe(`${fileHeader(nfc)}     1\tx`);
    expect(await view(store, nfd)).toBe(`${fileHeader(nfc)}     1\tx`);
    await expectError(
      store.create({ command: 'create', path: nfc, file_text: 'y' }),
      'ALREADY_EXISTS',
      `File ${nfc} already exists`,
    );
    expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}1B\t/memories\n1B\t${nfc}`);
  });

  test('paths: NFD directory names normalise too', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/re\u0301sume\u0301/cv.md': 'cv' });
    expect(await view(store, '/memories/r\u00e9sum\u00e9')).toBe(
      `${listingHeader('/memories/r\u00e9sum\u00e9')}2B\t/memories/r\u00e9sum\u00e9\n2B\t/memories/r\u00e9sum\u00e9/cv.md`,
    );
    expect(await store.delete({ command: 'delete', path: '/memories/re\u0301sume\u0301/cv.md' })).toBe(
      'Successfully deleted /memories/r\u00e9sum\u00e9/cv.md',
    );
  });

  test('paths: empty and "." segments are dropped', async () => {
    const store = await suite.open();
    expect(await store.create({ command: 'create', path: '/memories//a/.//b/./c.md', file_text: 'c' })).toBe(
      'File created successfully at: /memories/a/b/c.md',
    );
    expect(await view(store, '/memories/./a//b/./c.md')).toBe(`${fileHeader('/memories/a/b/c.md')}     1\tc`);
    expect(await view(store, '/memories/a/b/c.md')).toBe(`${fileHeader('/memories/a/b/c.md')}     1\tc`);
  });

  test('paths: a trailing slash is dropped, also from a file path', async () => {
    const store = await suite.open();
    expect(await store.create({ command: 'create', path: '/memories/x.md/', file_text: 'x' })).toBe(
      'File created successfully at: /memories/x.md',
    );
    expect(await view(store, '/memories/x.md/')).toBe(`${fileHeader('/memories/x.md')}     1\tx`);
  });

  test('paths: paths are case-sensitive', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/Notes.md': 'upper', '/memories/notes.md': 'lower' });
    expect(await view(store, '/memories/Notes.md')).toBe(`${fileHeader('/memories/Notes.md')}     1\tupper`);
    expect(await view(store, '/memories/notes.md')).toBe(`${fileHeader('/memories/notes.md')}     1\tlower`);
    await expectError(
      view(store, '/memories/NOTES.md'),
      'NOT_FOUND',
      'The path /memories/NOTES.md does not exist. Please provide a valid path.',
    );
  });

  test('paths: names with dots that are not "." or ".." are ordinary names ("...", "..a", "a..")', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a../x': '1', '/memories/..a': '2', '/memories/.../y': '3' });
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/a../\n1B\t/memories/a../x`,
    );
    expect(await view(store, '/memories/.../y')).toBe(`${fileHeader('/memories/.../y')}     1\t3`);
  });

  test('paths: spaces, a lone %, C1 controls and astral characters are allowed', async () => {
    const store = await suite.open();
    for (const path of [
      '/memories/my notes.md',
      '/memories/100%',
      '/memories/%zz',
      '/memories/a%2',
      '/memories/c1\u0085\u009f',
      '/memories/\u{1f600}/\u00a0',
    ]) {
      expect(await store.create({ command: 'create', path, file_text: 'ok' })).toBe(
        `File created successfully at: ${path}`,
      );
      expect(await view(store, path)).toBe(`${fileHeader(path)}     1\tok`);
    }
  });

  if (limit === 1024) {
    test('paths: a 255-byte name and a 1024-byte path are allowed', async () => {
      const store = await suite.open();
      const longName = `/memories/${'x'.repeat(255)}`;
      const twoByteName = `/memories/${'\u00e9'.repeat(127)}x`;
      const longPath = `/memories/${'x'.repeat(202)}/${'x'.repeat(202)}/${'x'.repeat(202)}/${'x'.repeat(202)}/${'x'.repeat(202)}`;
      expect(new TextEncoder().encode(longPath).length).toBe(1024);
      for (const path of [longName, twoByteName, longPath]) {
        expect(await store.create({ command: 'create', path, file_text: 'ok' })).toBe(
          `File created successfully at: ${path}`,
        );
        expect(await view(store, path)).toBe(`${fileHeader(path)}     1\tok`);
      }
    });
  } else {
    test(`paths: a 255-byte name is allowed under the store's limit of ${limit} bytes for whole paths`, async () => {
      const store = await suite.open();
      for (const path of [`/memories/${'x'.repeat(255)}`, `/memories/${'\u00e9'.repeat(127)}x`]) {
        expect(await store.create({ command: 'create', path, file_text: 'ok' })).toBe(
          `File created successfully at: ${path}`,
        );
        expect(await view(store, path)).toBe(`${fileHeader(path)}     1\tok`);
      }
    });
  }

  test('paths: lengths are measured after normalisation (NFC, dropped empty segments)', async () => {
    const store = await suite.open();
    // 300 bytes as NFD, 200 as NFC.
    const nfdName = `/memories/${'e\u0301'.repeat(100)}`;
    expect(await store.create({ command: 'create', path: nfdName, file_text: 'ok' })).toBe(
      `File created successfully at: /memories/${'\u00e9'.repeat(100)}`,
    );
    // 1210 bytes as sent, 11 after normalisation.
    expect(
      await store.create({ command: 'create', path: `/memories${'/'.repeat(1200)}a`, file_text: 'ok' }),
    ).toBe('File created successfully at: /memories/a');
  });

  // --- lengths as sent (SPEC section 2: at most 4096 characters, checked before anything else) ----

  test('paths: a path of exactly 4096 characters (slashes, then a name) is accepted and normalised', async () => {
    const store = await suite.open();
    const path = `/memories${'/'.repeat(4096 - '/memories'.length - 'a.md'.length)}a.md`;
    expect(path.length).toBe(4096);
    expect(await store.create({ command: 'create', path, file_text: 'ok' })).toBe(
      'File created successfully at: /memories/a.md',
    );
    expect(await view(store, path)).toBe(`${fileHeader('/memories/a.md')}     1\tok`);
    const dots = `/memories${'/.'.repeat((4096 - '/memories'.length - '/a.md'.length) / 2)}/a.md`;
    expect(dots.length).toBe(4096);
    expect(await view(store, dots)).toBe(`${fileHeader('/memories/a.md')}     1\tok`);
  });

  test('paths: a path of 4097 characters is INVALID_PATH for every command, whatever it normalises to, and the message does not echo it whole', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/top.md': 'top', '/memories/a.md': 'a' });
    const before = await suite.snapshot();
    const path = `/memories${'/'.repeat(4097 - '/memories'.length - 'a.md'.length)}a.md`;
    expect(path.length).toBe(4097);
    for (const [name, run] of everyCommand(path)) {
      const error = await expectError(run(store), 'INVALID_PATH');
      expect(error.message.includes(path), `${name}: the message echoes the whole path`).toBe(false);
      expect(error.message.length, `${name}: message length`).toBeLessThan(1000);
    }
    expect(await suite.snapshot()).toEqual(before);
  });

  test('paths: a path of 10 MB of slashes is INVALID_PATH for every command at once, with a short message', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/top.md': 'top' });
    const path = `/memories${'/'.repeat(10_000_000)}top.md`;
    for (const [name, run] of everyCommand(path)) {
      const error = await expectError(run(store), 'INVALID_PATH');
      expect(error.message.length, `${name}: message length`).toBeLessThan(1000);
    }
    expect(await view(store, '/memories/top.md')).toBe(`${fileHeader('/memories/top.md')}     1\ttop`);
  });

  // --- lone surrogates (SPEC section 2) ---------------------------------------------------------

  test('paths: a lone surrogate makes a path INVALID_PATH for every command, and nothing is written', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/top.md': 'top', '/memories/\ufffd': 'replacement character' });
    const before = await suite.snapshot(['/memories/\ufffd', '/memories/top.md\ufffd']);
    for (const path of [
      '/memories/\ud83d',
      '/memories/a\ude00b',
      '/memories/top.md\ud800',
      '/memories/\ude00\ud83d/x',
    ]) {
      for (const [name, run] of everyCommand(path)) {
        const outcome = await run(store).then(
          (result) => `succeeded: ${result}`,
          (error: unknown) => code(error),
        );
        expect(`${name} ${JSON.stringify(path)}: ${outcome}`).toBe(
          `${name} ${JSON.stringify(path)}: INVALID_PATH`,
        );
      }
    }
    expect(await suite.snapshot(['/memories/\ufffd', '/memories/top.md\ufffd'])).toEqual(before);
  });

  // The name spells the characters out: a lone surrogate in a test name would reach every reporter.
  test('paths: /memories/\\ud83d and /memories/\\ufffd are different: the first (a lone surrogate) is refused, the second is an ordinary name', async () => {
    const store = await suite.open({ overwrite: false });
    expect(await store.create({ command: 'create', path: '/memories/\ufffd', file_text: 'U+FFFD' })).toBe(
      'File created successfully at: /memories/\ufffd',
    );
    await expectError(
      store.create({ command: 'create', path: '/memories/\ud83d', file_text: 'lone' }),
      'INVALID_PATH',
    );
    await expectError(view(store, '/memories/\ud83d'), 'INVALID_PATH');
    await expectError(store.delete({ command: 'delete', path: '/memories/\ud83d' }), 'INVALID_PATH');
    expect(await view(store, '/memories/\ufffd')).toBe(`${fileHeader('/memories/\ufffd')}     1\tU+FFFD`);
    expect(await view(store, '/memories')).toBe(
      `${listingHeader('/memories')}6B\t/memories\n6B\t/memories/\ufffd`,
    );
    // A whole pair is an ordinary character.
    expect(await store.create({ command: 'create', path: '/memories/\ud83d\ude00', file_text: 'pair' })).toBe(
      'File created successfully at: /memories/\u{1f600}',
    );
  });

  // --- the store's own limit on whole paths (capabilities.maxPathBytes) --------------------------

  test(`paths: a path of exactly ${limit} bytes after normalisation (the store's limit) is allowed, and one of ${limit + 1} bytes is INVALID_PATH`, async () => {
    const store = await suite.open();
    const longest = pathOfBytes(limit);
    expect(new TextEncoder().encode(longest).length).toBe(limit);
    expect(await store.create({ command: 'create', path: longest, file_text: 'ok' })).toBe(
      `File created successfully at: ${longest}`,
    );
    expect(await view(store, longest)).toBe(`${fileHeader(longest)}     1\tok`);
    const over = pathOfBytes(limit + 1);
    for (const [name, run] of everyCommand(over)) {
      const error = await expectError(run(store), 'INVALID_PATH');
      if (limit < 1024)
        expect(error.message, `${name}: the message gives the store's limit`).toContain(String(limit));
    }
  });

  if (limit < 1024) {
    test(`paths: a 1024-byte path is INVALID_PATH beyond the store's limit of ${limit} bytes, and the message gives that limit`, async () => {
      const store = await suite.open();
      const path = pathOfBytes(1024);
      for (const [name, run] of everyCommand(path)) {
        const error = await expectError(run(store), 'INVALID_PATH');
        expect(error.message, name).toContain(String(limit));
      }
      expect(await view(store, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
    });
  }

  // --- invalid paths ----------------------------------------------------------------------------

  test('paths: a path not under /memories is INVALID_PATH "Path must start with /memories, got: {input}"', async () => {
    const store = await suite.open();
    for (const path of OUTSIDE_ROOT) {
      await expectError(view(store, path), 'INVALID_PATH', `Path must start with /memories, got: ${path}`);
    }
  });

  test('paths: a ".." segment anywhere is INVALID_PATH "Path {input} would escape /memories directory"', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a/x': 'x', '/memories/b': 'b' });
    for (const path of ESCAPING) {
      await expectError(view(store, path), 'INVALID_PATH', `Path ${path} would escape /memories directory`);
    }
  });

  for (const [rule, path] of OTHER_INVALID) {
    test(`paths: ${rule} makes a path INVALID_PATH`, async () => {
      const store = await suite.open();
      await expectError(view(store, path), 'INVALID_PATH');
      await expectError(store.create({ command: 'create', path, file_text: 'x' }), 'INVALID_PATH');
    });
  }

  test('paths: INVALID_PATH outranks NOT_FOUND, ROOT_PROTECTED and the content checks', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/f.md': 'aa' });
    await expectError(
      store.delete({ command: 'delete', path: '/memories/../memories' }),
      'INVALID_PATH',
      'Path /memories/../memories would escape /memories directory',
    );
    await expectError(
      store.str_replace({ command: 'str_replace', path: '/memories/x/../f.md', old_str: 'a', new_str: 'b' }),
      'INVALID_PATH',
      'Path /memories/x/../f.md would escape /memories directory',
    );
    await expectError(
      store.insert({ command: 'insert', path: 'memories/f.md', insert_line: 99, insert_text: 'x' }),
      'INVALID_PATH',
      'Path must start with /memories, got: memories/f.md',
    );
  });

  // --- hostile paths write nothing anywhere -----------------------------------------------------

  for (const hostile of HOSTILE) {
    test(`paths: the hostile path ${JSON.stringify(hostile.length > 60 ? `${hostile.slice(0, 40)}...` : hostile)} is refused by every command and writes nothing anywhere`, async () => {
      const store = await suite.open();
      await seed(store, FIXTURE);
      const roots = [...FIXTURE_HIDDEN_ROOTS, '/memories/renamed.md', ...landingSpots(hostile)];
      const before = await suite.snapshot(roots);
      const commands: Array<[string, (s: MemoryStore) => Promise<string>]> = [
        ['view', (s) => s.view({ command: 'view', path: hostile })],
        ['create', (s) => s.create({ command: 'create', path: hostile, file_text: 'pwned' })],
        [
          'str_replace',
          (s) => s.str_replace({ command: 'str_replace', path: hostile, old_str: 'top', new_str: 'pwned' }),
        ],
        [
          'insert',
          (s) => s.insert({ command: 'insert', path: hostile, insert_line: 0, insert_text: 'pwned' }),
        ],
        [
          'rename from',
          (s) => s.rename({ command: 'rename', old_path: hostile, new_path: '/memories/renamed.md' }),
        ],
        [
          'rename to',
          (s) => s.rename({ command: 'rename', old_path: '/memories/top.md', new_path: hostile }),
        ],
        ['delete', (s) => s.delete({ command: 'delete', path: hostile })],
      ];
      for (const [name, run] of commands) {
        const outcome = await run(store).then(
          (result) => `succeeded: ${result}`,
          (error: unknown) => code(error),
        );
        expect(`${name}: ${outcome}`).toBe(`${name}: INVALID_PATH`);
        expect(
          await suite.snapshot(roots),
          `${name} with ${JSON.stringify(hostile)} changed the stored files`,
        ).toEqual(before);
      }
    });
  }
}
