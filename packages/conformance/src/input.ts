// SPEC section 1: untrusted tool input through `execute`, and "a failed command changes nothing".

import { isMemoryToolError, mcpCallTool } from '@memdir/core';
import { expect } from 'vitest';
import { expectError, fileHeader, listingHeader, seed, snippetResult } from './assertions.js';
import type { Suite } from './suite.js';

/** A tree with visible, hidden and nested files, for "nothing changed" checks. */
export const FIXTURE: Readonly<Record<string, string>> = {
  '/memories/notes/a.md': 'alpha\nbeta\nalpha beta',
  '/memories/notes/deep/er/x.md': 'x',
  '/memories/top.md': 'top',
  '/memories/.hidden/secret.md': 'secret',
  '/memories/node_modules/pkg.md': 'pkg',
  '/memories/notes/.git/HEAD': 'ref: main',
};

/** The hidden places of {@link FIXTURE}, which listings from /memories do not reach. */
export const FIXTURE_HIDDEN_ROOTS: readonly string[] = [
  '/memories/.hidden',
  '/memories/node_modules',
  '/memories/notes/.git',
];

/** Failing commands, each with the code it must fail with, on a store over FIXTURE with maxFileBytes 64, overwrite false. */
const FAILING: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  [
    'create over an existing file (overwrite: false)',
    { command: 'create', path: '/memories/top.md', file_text: 'new' },
    'ALREADY_EXISTS',
  ],
  [
    'create over a directory',
    { command: 'create', path: '/memories/notes', file_text: 'x' },
    'PATH_CONFLICT',
  ],
  [
    'create beneath a file',
    { command: 'create', path: '/memories/top.md/x', file_text: 'x' },
    'PATH_CONFLICT',
  ],
  [
    'create over maxFileBytes',
    { command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(65) },
    'TOO_LARGE',
  ],
  ['create without file_text', { command: 'create', path: '/memories/new.md' }, 'INVALID_INPUT'],
  [
    'str_replace with no match',
    { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'gamma', new_str: 'x' },
    'NO_MATCH',
  ],
  [
    'str_replace with several matches',
    { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'alpha', new_str: 'x' },
    'MULTIPLE_MATCHES',
  ],
  [
    'str_replace with an empty old_str',
    { command: 'str_replace', path: '/memories/notes/a.md', old_str: '', new_str: 'x' },
    'INVALID_INPUT',
  ],
  [
    'str_replace over maxFileBytes',
    { command: 'str_replace', path: '/memories/top.md', old_str: 'top', new_str: 'x'.repeat(65) },
    'TOO_LARGE',
  ],
  [
    'str_replace on a directory',
    { command: 'str_replace', path: '/memories/notes', old_str: 'a', new_str: 'b' },
    'NOT_A_FILE',
  ],
  [
    'str_replace on a missing file',
    { command: 'str_replace', path: '/memories/missing.md', old_str: 'a', new_str: 'b' },
    'NOT_FOUND',
  ],
  [
    'insert out of range',
    { command: 'insert', path: '/memories/top.md', insert_line: 5, insert_text: 'x' },
    'INVALID_LINE',
  ],
  [
    'insert over maxFileBytes',
    { command: 'insert', path: '/memories/top.md', insert_line: 1, insert_text: 'x'.repeat(64) },
    'TOO_LARGE',
  ],
  [
    'insert with a non-integer insert_line',
    { command: 'insert', path: '/memories/top.md', insert_line: '1', insert_text: 'x' },
    'INVALID_INPUT',
  ],
  [
    'insert on a directory',
    { command: 'insert', path: '/memories/notes', insert_line: 0, insert_text: 'x' },
    'NOT_A_FILE',
  ],
  ['delete of /memories', { command: 'delete', path: '/memories/' }, 'ROOT_PROTECTED'],
  ['delete of a missing path', { command: 'delete', path: '/memories/notes/missing' }, 'NOT_FOUND'],
  [
    'rename onto an existing file',
    { command: 'rename', old_path: '/memories/top.md', new_path: '/memories/notes/a.md' },
    'ALREADY_EXISTS',
  ],
  [
    'rename onto an existing directory',
    { command: 'rename', old_path: '/memories/top.md', new_path: '/memories/notes/deep' },
    'ALREADY_EXISTS',
  ],
  [
    'rename into itself',
    { command: 'rename', old_path: '/memories/notes', new_path: '/memories/notes/deep/notes' },
    'PATH_CONFLICT',
  ],
  [
    'rename beneath a file',
    { command: 'rename', old_path: '/memories/notes', new_path: '/memories/top.md/notes' },
    'PATH_CONFLICT',
  ],
  [
    'rename of a missing path',
    { command: 'rename', old_path: '/memories/missing', new_path: '/memories/found' },
    'NOT_FOUND',
  ],
  [
    'rename of /memories',
    { command: 'rename', old_path: '/memories', new_path: '/memories/moved' },
    'ROOT_PROTECTED',
  ],
  [
    'rename onto /memories',
    { command: 'rename', old_path: '/memories/notes', new_path: '/memories' },
    'ROOT_PROTECTED',
  ],
  ['rename without new_path', { command: 'rename', old_path: '/memories/notes' }, 'INVALID_INPUT'],
  [
    'an unknown command',
    { command: 'move', old_path: '/memories/notes', new_path: '/memories/x' },
    'INVALID_INPUT',
  ],
  [
    'view with a range past the end',
    { command: 'view', path: '/memories/top.md', view_range: [3, -1] },
    'INVALID_INPUT',
  ],
];

/** Lone surrogates as a model can send them in JSON (`"\ud83d"`): alone, inside text, reversed, at the end. */
const LONE_SURROGATES = ['\ud83d', 'a\ud83db', '\ude00', '\ude00\ud83d', 'end\ud800', '\udbff\udbff\udc00'];

/** The text fields of the commands, each with a command that is valid but for that field. */
const TEXT_FIELDS: ReadonlyArray<
  readonly [field: string, command: (text: string) => Record<string, unknown>]
> = [
  ['file_text', (text) => ({ command: 'create', path: '/memories/top.md', file_text: text })],
  ['old_str', (text) => ({ command: 'str_replace', path: '/memories/top.md', old_str: text, new_str: 'x' })],
  [
    'new_str',
    (text) => ({ command: 'str_replace', path: '/memories/top.md', old_str: 'top', new_str: text }),
  ],
  [
    'insert_text',
    (text) => ({ command: 'insert', path: '/memories/top.md', insert_line: 0, insert_text: text }),
  ],
];

/** An array nested `depth` levels deep: `[[[...[1, 2]...], 1], 1]`. */
function nested(depth: number): unknown[] {
  let value: unknown[] = [1, 2];
  for (let level = 0; level < depth; level++) value = [value, 1];
  return value;
}

/** An object nested `depth` levels deep. */
function nestedObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { end: true };
  for (let level = 0; level < depth; level++) value = { inner: value };
  return value;
}

/** `[, 2]` or `[1, ,]`: an array of length 2 with a hole at `index`. */
function holeAt(index: 0 | 1): unknown[] {
  const array: unknown[] = [];
  array.length = 2;
  array[1 - index] = index === 0 ? 2 : 1;
  return array;
}

/** Values of every strange shape a caller could put in a field; none may make a store throw anything but INVALID_INPUT. */
function strangeValues(): unknown[] {
  const cyclicArray: unknown[] = [1];
  cyclicArray.push(cyclicArray);
  const cyclicObject: Record<string, unknown> = {};
  cyclicObject['self'] = cyclicObject;
  return [
    nested(5000),
    nestedObject(5000),
    cyclicArray,
    cyclicObject,
    Symbol('field'),
    10n ** 30n,
    () => 'a function',
    new Map([[1, 2]]),
    new Date(0),
    /regex/,
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('a trap');
        },
        ownKeys: () => {
          throw new Error('a trap');
        },
      },
    ),
    Object.create(null),
    // Arrays of two with holes (which `every` skips): "two integers" they are not.
    holeAt(0),
    holeAt(1),
    new Array(2),
  ];
}

export function inputTests(suite: Suite): void {
  const { test } = suite;

  for (const [name, input, code] of FAILING) {
    test(`a failed command changes nothing: ${name} (${code})`, async () => {
      const store = await suite.open({ maxFileBytes: 64, overwrite: false });
      await seed(store, FIXTURE);
      const before = await suite.snapshot(FIXTURE_HIDDEN_ROOTS);
      await expectError(store.execute(input), code as never);
      expect(await suite.snapshot(FIXTURE_HIDDEN_ROOTS)).toEqual(before);
    });
  }

  for (const [field, command] of TEXT_FIELDS) {
    test(`tool input: a lone surrogate in ${field} is INVALID_INPUT, checked with the input's shape, and writes nothing`, async () => {
      const store = await suite.open();
      await seed(store, FIXTURE);
      const before = await suite.snapshot(FIXTURE_HIDDEN_ROOTS);
      for (const text of LONE_SURROGATES) {
        const input = command(text);
        await expectError(store.execute(input), 'INVALID_INPUT');
        await expectError(
          (store as unknown as Record<string, (input: unknown) => Promise<string>>)[
            input['command'] as string
          ]!(input),
          'INVALID_INPUT',
        );
        // The shape comes before the path (SPEC section 1).
        await expectError(store.execute({ ...input, path: '/elsewhere/x' }), 'INVALID_INPUT');
      }
      expect(await suite.snapshot(FIXTURE_HIDDEN_ROOTS)).toEqual(before);
    });
  }

  test('tool input: an unknown command of 10 MB is INVALID_INPUT, and the message quotes at most 100 characters of it', async () => {
    const store = await suite.open();
    const name = 'Z'.repeat(10_000_000);
    const error = await expectError(store.execute({ command: name, path: '/memories' }), 'INVALID_INPUT');
    expect(error.message.includes('Z'.repeat(101)), 'the message quotes more than 100 characters').toBe(
      false,
    );
    expect(error.message.length).toBeLessThan(1000);
  });

  test('tool input: a long ill-typed value is quoted with at most 100 of its characters (input, insert_line, view_range)', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    const long = 'Q'.repeat(1_000_000);
    const attempts: Array<Promise<string>> = [
      store.execute(long),
      store.view(long as never),
      store.execute({ command: 'insert', path: '/memories/a.md', insert_line: long, insert_text: 'x' }),
      store.execute({ command: 'view', path: '/memories/a.md', view_range: long }),
      store.execute({ command: 'view', path: '/memories/a.md', view_range: [long, long] }),
      store.execute({ command: 'create', path: '/memories/b.md', file_text: [long] }),
    ];
    for (const attempt of attempts) {
      const error = await expectError(attempt, 'INVALID_INPUT');
      expect(
        error.message.includes('Q'.repeat(101)),
        `the message quotes more than 100 characters: ${error.message.slice(0, 200)}`,
      ).toBe(false);
      expect(error.message.length).toBeLessThan(1000);
    }
  });

  test('tool input: a view_range nested 5,000 levels deep is INVALID_INPUT, never a raw RangeError', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'a' });
    for (const view_range of [nested(5000), [nested(5000), 1], [1, nested(5000)]]) {
      await expectError(
        store.view({ command: 'view', path: '/memories/a.md', view_range } as never),
        'INVALID_INPUT',
      );
      await expectError(
        store.execute({ command: 'view', path: '/memories/a.md', view_range }),
        'INVALID_INPUT',
      );
    }
  });

  test('tool input: no shape of any field (deep nesting, cycles, symbols, bigints, functions, throwing proxies, holes) raises anything but INVALID_INPUT, and nothing is written', async () => {
    const store = await suite.open();
    await seed(store, FIXTURE);
    const before = await suite.snapshot(FIXTURE_HIDDEN_ROOTS);
    const valid: Record<string, Record<string, unknown>> = {
      view: { command: 'view', path: '/memories/top.md', view_range: [1, 1] },
      create: { command: 'create', path: '/memories/top.md', file_text: 'x' },
      str_replace: { command: 'str_replace', path: '/memories/top.md', old_str: 'top', new_str: 'x' },
      insert: { command: 'insert', path: '/memories/top.md', insert_line: 0, insert_text: 'x' },
      delete: { command: 'delete', path: '/memories/top.md' },
      rename: { command: 'rename', old_path: '/memories/top.md', new_path: '/memories/moved.md' },
    };
    for (const value of strangeValues()) {
      await expectError(store.execute(value), 'INVALID_INPUT');
      await expectError(store.execute({ command: value, path: '/memories' }), 'INVALID_INPUT');
      for (const input of Object.values(valid)) {
        for (const field of Object.keys(input)) {
          if (field === 'command' || (field === 'new_str' && value === undefined)) continue;
          const outcome = await store.execute({ ...input, [field]: value }).then(
            (result) => `succeeded: ${result}`,
            (error: unknown) =>
              isMemoryToolError(error)
                ? error.code
                : `threw ${String((error as Error)?.name ?? error)}: ${String((error as Error)?.message ?? '')}`,
          );
          expect(`${String(input['command'])}.${field}: ${outcome}`).toBe(
            `${String(input['command'])}.${field}: INVALID_INPUT`,
          );
        }
      }
    }
    expect(await suite.snapshot(FIXTURE_HIDDEN_ROOTS)).toEqual(before);
  });

  test('execute: runs each of the six commands with the same results as the methods', async () => {
    const store = await suite.open();
    expect(await store.execute({ command: 'create', path: '/memories/a.md', file_text: 'one\ntwo' })).toBe(
      'File created successfully at: /memories/a.md',
    );
    expect(await store.execute({ command: 'view', path: '/memories/a.md' })).toBe(
      `${fileHeader('/memories/a.md')}     1\tone\n     2\ttwo`,
    );
    expect(
      await store.execute({ command: 'str_replace', path: '/memories/a.md', old_str: 'two', new_str: '2' }),
    ).toBe(snippetResult(['     1\tone', '     2\t2']));
    expect(
      await store.execute({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'zero' }),
    ).toBe('The file /memories/a.md has been edited.');
    expect(
      await store.execute({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' }),
    ).toBe('Successfully renamed /memories/a.md to /memories/b.md');
    expect(await store.execute({ command: 'view', path: '/memories' })).toBe(
      `${listingHeader('/memories')}10B\t/memories\n10B\t/memories/b.md`,
    );
    expect(await store.execute({ command: 'delete', path: '/memories/b.md' })).toBe(
      'Successfully deleted /memories/b.md',
    );
  });

  test('execute: an unknown, missing or ill-typed command is INVALID_INPUT', async () => {
    const store = await suite.open();
    for (const input of [
      { command: 'unknown', path: '/memories/a' },
      { command: 'View', path: '/memories' },
      { command: '', path: '/memories' },
      { command: 'constructor', path: '/memories' },
      { command: 'toString', path: '/memories' },
      { command: 'execute', path: '/memories' },
      { command: 5, path: '/memories' },
      { command: null, path: '/memories' },
      { path: '/memories' },
    ]) {
      await expectError(store.execute(input), 'INVALID_INPUT');
    }
  });

  test('execute: an input that is not an object is INVALID_INPUT', async () => {
    const store = await suite.open();
    for (const input of [null, undefined, 'view /memories', 42, true, ['view', '/memories']]) {
      await expectError(store.execute(input), 'INVALID_INPUT');
    }
  });

  test('mcp: tools/call arguments that are not an object get the INVALID_INPUT text as a tool error, and write nothing', async () => {
    const store = await suite.open();
    await seed(store, FIXTURE);
    const before = await suite.snapshot(['/memories/.hidden']);
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      ['view /memories', 'the string "view /memories"'],
      [42, 'the number 42'],
      [true, 'a boolean'],
      [null, 'null'],
      [['view', '/memories'], 'an array'],
    ];
    for (const [input, described] of cases) {
      expect(await mcpCallTool(store, 'memory', input), JSON.stringify(input)).toEqual({
        content: [
          {
            type: 'text',
            text: `Error: Invalid memory tool input: expected an object with a \`command\` field, got ${described}.`,
          },
        ],
        isError: true,
      });
    }
    expect(await suite.snapshot(['/memories/.hidden'])).toEqual(before);
  });

  test('execute: missing or ill-typed fields of each command are INVALID_INPUT and write nothing', async () => {
    const store = await suite.open();
    for (const input of [
      { command: 'view' },
      { command: 'view', path: 5 },
      { command: 'create', path: '/memories/a.md' },
      { command: 'create', file_text: 'x' },
      { command: 'create', path: '/memories/a.md', file_text: 5 },
      { command: 'str_replace', path: '/memories/a.md' },
      { command: 'insert', path: '/memories/a.md', insert_text: 'x' },
      { command: 'insert', path: '/memories/a.md', insert_line: 0 },
      { command: 'insert', path: '/memories/a.md', insert_line: 0.5, insert_text: 'x' },
      { command: 'delete' },
      { command: 'rename', old_path: '/memories/a.md' },
      { command: 'rename', new_path: '/memories/a.md' },
    ]) {
      await expectError(store.execute(input), 'INVALID_INPUT');
    }
    expect(await store.execute({ command: 'view', path: '/memories' })).toBe(
      `${listingHeader('/memories')}0B\t/memories`,
    );
  });

  test('execute: optional fields given as null count as omitted', async () => {
    const store = await suite.open();
    await seed(store, { '/memories/a.md': 'keep drop' });
    expect(await store.execute({ command: 'view', path: '/memories/a.md', view_range: null })).toBe(
      `${fileHeader('/memories/a.md')}     1\tkeep drop`,
    );
    expect(
      await store.execute({
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: ' drop',
        new_str: null,
      }),
    ).toBe(snippetResult(['     1\tkeep']));
  });

  test('execute: fields a command does not use are ignored, even when ill-typed or hostile', async () => {
    const store = await suite.open();
    expect(
      await store.execute({
        command: 'create',
        path: '/memories/a.md',
        file_text: 'a',
        view_range: 'nonsense',
        old_path: '/memories/../x',
        insert_line: 1.5,
      }),
    ).toBe('File created successfully at: /memories/a.md');
    expect(
      await store.execute({ command: 'view', path: '/memories/a.md', file_text: 7, new_path: '\\\\server' }),
    ).toBe(`${fileHeader('/memories/a.md')}     1\ta`);
    expect(
      await store.execute({
        command: 'insert',
        path: '/memories/a.md',
        insert_line: 1,
        insert_text: 'b',
        old_str: '',
      }),
    ).toBe('The file /memories/a.md has been edited.');
    expect(
      await store.execute({
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: 'b',
        new_str: 'c',
        insert_line: 'x',
        view_range: [0, 0],
      }),
    ).toBe(snippetResult(['     1\ta', '     2\tc']));
    expect(
      await store.execute({
        command: 'rename',
        old_path: '/memories/a.md',
        new_path: '/memories/b.md',
        path: '/etc/passwd',
      }),
    ).toBe('Successfully renamed /memories/a.md to /memories/b.md');
    expect(
      await store.execute({ command: 'delete', path: '/memories/b.md', old_path: null, new_path: 3 }),
    ).toBe('Successfully deleted /memories/b.md');
  });

  test('methods: fields the method does not use are ignored', async () => {
    const store = await suite.open();
    expect(
      await store.create({
        command: 'create',
        path: '/memories/a.md',
        file_text: 'a',
        extra: { nested: true },
      } as never),
    ).toBe('File created successfully at: /memories/a.md');
    expect(await store.view({ command: 'view', path: '/memories/a.md', unused: [1, 2, 3] } as never)).toBe(
      `${fileHeader('/memories/a.md')}     1\ta`,
    );
  });
}
