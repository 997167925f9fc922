// A differential property test: random command sequences run on the store under test and on the
// in-memory reference store (with the same options) must give byte-identical results.

import type { MemoryCommand, MemoryStore, MemoryStoreOptions } from '@memdir/core';
import { createInMemoryStore, isMemoryToolError } from '@memdir/core';
import * as fc from 'fast-check';
import { expect } from 'vitest';
import { walk } from './assertions.js';
import type { Suite } from './suite.js';

/** Fixed, so a failure reproduces; fast-check prints the seed, the run path and the shrunk sequence. */
const SEED = 20_250_818;

/**
 * A small path alphabet, so that commands collide: nested directories, hidden names,
 * node_modules, NFD and NFC spellings of one name, non-normalised spellings, the root, and paths
 * that are invalid.
 */
const PATHS = [
  '/memories',
  '/memories/',
  '/memories/a',
  '/memories/a/',
  '/memories/ab',
  '/memories/b.md',
  '/memories/a/b.md',
  '/memories/a/c',
  '/memories/a/c/d.md',
  '/memories//a/./c/d.md',
  '/memories/a/b.md/x',
  '/memories/.h',
  '/memories/.h/x.md',
  '/memories/a/.git/y',
  '/memories/node_modules/z',
  '/memories/Z.md',
  '/memories/caf\u00e9',
  '/memories/cafe\u0301',
  '/memories/../a',
  '/memoriesX/a',
  'memories/b.md',
  '/memories/a\\b',
  '/memories/%2e%2e/a',
];

const TEXTS = [
  '',
  'a',
  'aa',
  'b',
  '\n',
  'a\nb',
  'a\n',
  '\na',
  'ab\nba\n',
  '$&',
  '\r\n',
  '\u00e9',
  'aaa\nb\nc\nd\ne\nf',
];
const FRAGMENTS = ['', 'a', 'aa', 'b', '\n', 'a\n', 'b\nc', 'x', '$&', '\u00e9'];

const path = fc.constantFrom(...PATHS);
const text = fc.constantFrom(...TEXTS);
const fragment = fc.constantFrom(...FRAGMENTS);
const line = fc.integer({ min: -1, max: 6 });

const command: fc.Arbitrary<MemoryCommand> = fc.oneof(
  fc.record({
    command: fc.constant('view' as const),
    path,
    view_range: fc.option(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: -2, max: 7 })), {
      nil: undefined,
    }),
  }),
  fc.record({ command: fc.constant('create' as const), path, file_text: text }),
  fc.record({
    command: fc.constant('str_replace' as const),
    path,
    old_str: fragment,
    new_str: fc.option(fragment, { nil: undefined }),
  }),
  fc.record({ command: fc.constant('insert' as const), path, insert_line: line, insert_text: fragment }),
  fc.record({ command: fc.constant('delete' as const), path }),
  fc.record({ command: fc.constant('rename' as const), old_path: path, new_path: path }),
);

const options: fc.Arbitrary<MemoryStoreOptions> = fc.record({
  overwrite: fc.boolean(),
  maxFileBytes: fc.constantFrom(undefined, 12),
  maxViewChars: fc.constantFrom(undefined, 40),
});

/**
 * True when SPEC.md fixes the message of this error word for word. For the others (invalid
 * characters or lengths in a path, ill-formed input, a write over maxFileBytes) the SPEC leaves the
 * wording to the implementation, so only the code is compared.
 */
function specFixesMessage(code: string, message: string): boolean {
  if (code === 'TOO_LARGE') return message.includes('has too many lines');
  if (code === 'INVALID_PATH')
    return message.startsWith('Path must start with') || message.endsWith('would escape /memories directory');
  if (code === 'INVALID_INPUT') return message === 'No replacement was performed, old_str must not be empty.';
  return true;
}

async function run(store: MemoryStore, input: MemoryCommand): Promise<string> {
  try {
    return `ok: ${await store.execute(input)}`;
  } catch (error) {
    if (!isMemoryToolError(error)) return `thrown (not a MemoryToolError): ${String(error)}`;
    return specFixesMessage(error.code, error.message)
      ? `error ${error.code}: ${error.message}`
      : `error ${error.code}`;
  }
}

export function differentialTests(suite: Suite): void {
  suite.test(
    'differential: random command sequences give byte-identical results on this store and on the in-memory reference',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          options,
          fc.array(command, { minLength: 1, maxLength: 30, size: 'max' }),
          async (storeOptions, commands) => {
            const tested = await suite.open(storeOptions, suite.newBackend());
            const reference = createInMemoryStore(
              suite.namespace === undefined ? storeOptions : { ...storeOptions, namespace: suite.namespace },
            );
            for (const [index, input] of commands.entries()) {
              const expected = await run(reference, input);
              const actual = await run(tested, input);
              if (actual !== expected) {
                expect({ step: index, command: input, result: actual }).toEqual({
                  step: index,
                  command: input,
                  result: expected,
                });
              }
            }
            // The whole tree, hidden places included, must end up the same too.
            const roots = ['/memories/.h', '/memories/a/.git', '/memories/node_modules'];
            expect(await walk(tested, roots)).toEqual(await walk(reference, roots));
            await reference.close();
          },
        ),
        { numRuns: suite.propertyRuns, seed: SEED },
      );
    },
  );
}
