// edit_v2 (str_replace and insert applied in PostgreSQL) against the kit's applyEdit, the reference:
// the same outcome (line numbers, counts, snippet lines, UTF-8 sizes) and the same content, byte for
// byte, on random and adversarial inputs: multi-byte and astral characters, CRLF, NUL, overlapping
// runs, long periodic needles, megabyte files with a million occurrences.
import type { DriverEdit, DriverPath } from '@memdir/core';
import { applyEdit } from '@memdir/core/driver';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDriver, type PostgresDriver } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
const schema = freshSchema('mdt_edit');
let driver: PostgresDriver;
let files = 0;

beforeAll(async () => {
  driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
  await driver.setup();
});
afterAll(async () => {
  await driver.close();
  await dropSchema(admin, schema);
  await admin.end();
});

const op = () => globalThis.crypto.randomUUID().replaceAll('-', '');

/** Runs `edit` on a new file holding `content` through edit_v2, and checks it against applyEdit. */
async function agrees(content: string, edit: DriverEdit, maxFileBytes = 1 << 30): Promise<number> {
  const path = `f${files++}.md` as DriverPath;
  await driver.write(path, content, { op: op() });
  const started = performance.now();
  const outcome = await driver.edit!(path, edit, { op: op(), maxFileBytes, deadline: Date.now() + 60_000 });
  const ms = performance.now() - started;
  const expected = applyEdit(content, edit, maxFileBytes);
  expect(outcome).toEqual(expected.outcome);
  const after = await driver.read(path);
  expect(after?.kind === 'file' && after.content === (expected.content ?? content)).toBe(true);
  await driver.remove(path, { op: op() });
  return ms;
}

// Pieces chosen so that random strings hit the hard cases: 2-, 3- and 4-byte characters (U+1F600
// is a surrogate pair in JavaScript), CR before LF, NUL, and a small alphabet for many overlaps.
const PIECES = ['a', 'a', 'b', 'ab', '\n', '\r\n', 'é', '€', '😀', '\u0000', ' ', 'aa\n'];
const text = (max: number) =>
  fc.array(fc.constantFrom(...PIECES), { maxLength: max }).map((pieces) => pieces.join(''));

describe('edit_v2 agrees with applyEdit', () => {
  it('str_replace on random content, with needles taken from it and random ones', async () => {
    await fc.assert(
      fc.asyncProperty(
        text(60),
        fc.nat(),
        fc.nat(),
        text(6),
        text(8),
        fc.boolean(),
        async (content, from, length, random, newStr, inside) => {
          const start = content.length === 0 ? 0 : from % content.length;
          const piece = content.slice(start, start + 1 + (length % 12));
          const oldStr =
            inside && piece !== '' && !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(piece) ? piece : random;
          if (oldStr === '') return;
          await agrees(content, { kind: 'str_replace', oldStr, newStr });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('insert on random content at every kind of line, with sizes near the limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        text(40),
        fc.integer({ min: -1, max: 20 }),
        text(5),
        fc.nat(8),
        async (content, line, insertText, slack) => {
          const size = Buffer.byteLength(content) + Buffer.byteLength(insertText) + 1;
          await agrees(content, { kind: 'insert', line, text: insertText }, Math.max(1, size - 4 + slack));
        },
      ),
      { numRuns: 120 },
    );
  });

  it('too-large counts UTF-8 bytes of the result (multi-byte and astral characters)', async () => {
    const content = 'é😀\n€';
    await agrees(content, { kind: 'str_replace', oldStr: '€', newStr: '😀😀' }, 15);
    await agrees(content, { kind: 'str_replace', oldStr: '€', newStr: '😀😀' }, 16);
    await agrees(content, { kind: 'insert', line: 2, text: '😀' }, 14);
  });

  it('the snippet keeps CR, NUL and astral characters, and edges of the file', async () => {
    const content = 'l1\r\nl2\u0000\nl3😀\r\n\r\nl5\nl6\nl7';
    for (const oldStr of ['l1', 'l2\u0000', '😀', '\r\n\r\n', 'l6', 'l7', 'l3😀\r\n\r\nl5\nl6']) {
      await agrees(content, { kind: 'str_replace', oldStr, newStr: 'X\nY' });
      await agrees(content, { kind: 'str_replace', oldStr, newStr: '' });
    }
    await agrees('only', { kind: 'str_replace', oldStr: 'only', newStr: '' });
    await agrees('\n\n\n', { kind: 'str_replace', oldStr: '\n\n', newStr: 'x' });
  });
});

/** Every occurrence of `needle` in `haystack` (bytes), overlapping ones included: the plain way. */
function occurrences(haystack: Buffer, needle: Buffer): number[] {
  const found: number[] = [];
  for (let at = 0; at + needle.length <= haystack.length; at++) {
    if (haystack.subarray(at, at + needle.length).equals(needle)) found.push(at);
  }
  return found;
}

// Periodic texts with flaws, and needles cut from their period: what makes KMP's shortcuts work.
const periodic = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', 'é', '\u0000', '\n'), { minLength: 1, maxLength: 4 }),
    fc.nat(40),
    fc.array(fc.tuple(fc.nat(200), fc.constantFrom('a', 'b', 'c', '😀'))),
  )
  .map(([unit, times, flaws]) => {
    const chars = [...unit.join('').repeat(times + 1)];
    for (const [at, flaw] of flaws) if (chars.length > 0) chars[at % chars.length] = flaw;
    return chars.join('');
  });

describe('the counting functions agree with a plain count', () => {
  const count = async (function_: 'kmp' | 'bulk', haystack: Buffer, needle: Buffer) => {
    const s = `"${schema}"`;
    const { rows } = await admin.query(
      function_ === 'kmp'
        ? `SELECT o_count::int AS count, o_offsets AS offsets FROM ${s}.kmp_v2($1, $2, ${s}.borders_v2($2), 0, 100)`
        : `SELECT ${s}.bulk_count_v2($1, $2)::int AS count`,
      [haystack, needle],
    );
    return rows[0] as { count: number | null; offsets?: number[] };
  };

  it('KMP with its shortcuts, on periodic texts with flaws and needles from their period', async () => {
    await fc.assert(
      fc.asyncProperty(
        periodic,
        fc.nat(),
        fc.nat(90),
        periodic,
        fc.boolean(),
        async (content, from, length, other, inside) => {
          const haystack = Buffer.from(content, 'utf8');
          const start = haystack.length === 0 ? 0 : from % haystack.length;
          const needle = inside
            ? haystack.subarray(start, start + 1 + length)
            : Buffer.from(other, 'utf8').subarray(0, 1 + length);
          if (needle.length === 0) return;
          const expected = occurrences(haystack, needle);
          expect(await count('kmp', haystack, needle)).toEqual({
            count: expected.length,
            offsets: expected.slice(0, 100),
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the native bulk count, text and escaped, on texts with many overlaps', async () => {
    await fc.assert(
      fc.asyncProperty(periodic, fc.nat(), fc.nat(12), async (content, from, length) => {
        const haystack = Buffer.from(content, 'utf8');
        const start = haystack.length === 0 ? 0 : from % haystack.length;
        const needle = haystack.subarray(start, start + 1 + length);
        if (needle.length === 0 || haystack.length === 0) return;
        // Cut bytes of a character are not text: only whole characters are needles.
        if (Buffer.from(needle.toString('utf8'), 'utf8').compare(needle) !== 0) return;
        const { count: got } = await count('bulk', haystack, needle);
        if (got !== null) expect(got).toBe(occurrences(haystack, needle).length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('edit_v2 stays linear on adversarial input', () => {
  const MiB = 1 << 20;
  const cases: Array<[string, string, DriverEdit]> = [
    [
      'a 1 MiB run of "a" searched for 999 "a" (a million occurrences)',
      'a'.repeat(MiB),
      { kind: 'str_replace', oldStr: 'a'.repeat(999), newStr: '' },
    ],
    [
      'a 1 MiB run of "a" searched for 998 "a" and a "b"',
      'a'.repeat(MiB),
      { kind: 'str_replace', oldStr: `${'a'.repeat(998)}b`, newStr: '' },
    ],
    [
      'a 1 MiB run of "a" searched for a "b" and 999 "a"',
      'a'.repeat(MiB),
      { kind: 'str_replace', oldStr: `b${'a'.repeat(999)}`, newStr: '' },
    ],
    ['"a" in a 1 MiB run of "a"', 'a'.repeat(MiB), { kind: 'str_replace', oldStr: 'a', newStr: '' }],
    [
      '"aa" in 1 MiB of "a" and newlines',
      `${'a'.repeat(63)}\n`.repeat(MiB / 64),
      { kind: 'str_replace', oldStr: 'aa', newStr: '' },
    ],
    ['"aba" in 1 MiB of "ab"', 'ab'.repeat(MiB / 2), { kind: 'str_replace', oldStr: 'aba', newStr: '' }],
    [
      '"a" in 1 MiB of "a" and NUL',
      'a\u0000'.repeat(MiB / 2),
      { kind: 'str_replace', oldStr: 'a', newStr: '' },
    ],
    [
      '"ab" in 1 MiB of "ab" and NUL',
      'ab\u0000'.repeat(MiB / 3),
      { kind: 'str_replace', oldStr: 'ab', newStr: '' },
    ],
    [
      'a rule of 80 dashes and a heading in 1 MiB of rules',
      `${'-'.repeat(80)}\n## h\n`.repeat(MiB / 86),
      { kind: 'str_replace', oldStr: `${'-'.repeat(80)}\n## h\n${'-'.repeat(80)}`, newStr: '' },
    ],
    [
      'one occurrence of a 100-byte needle at the end of 1 MiB of "ab"',
      `${'ab'.repeat(MiB / 2)}${'x'.repeat(100)}`,
      { kind: 'str_replace', oldStr: 'x'.repeat(100), newStr: 'y' },
    ],
    [
      '998 "a" and a "b" in 1 MiB of runs of 1,000 "a" and a "c"',
      `${'a'.repeat(1000)}c`.repeat(MiB / 1001),
      { kind: 'str_replace', oldStr: `${'a'.repeat(998)}b`, newStr: '' },
    ],
    [
      'a 300-byte needle of "ab" and "c" in 1 MiB of "ab" with a flaw every 1,000 bytes',
      `${'ab'.repeat(500)}c`.repeat(MiB / 1001),
      { kind: 'str_replace', oldStr: `${'ab'.repeat(149)}c`, newStr: '' },
    ],
    ['"😀😀" in 1 MiB of "😀"', '😀'.repeat(MiB / 4), { kind: 'str_replace', oldStr: '😀😀', newStr: '' }],
    [
      'insert after the last of 500,000 lines',
      '\n'.repeat(500_000),
      { kind: 'insert', line: 500_001, text: 'end' },
    ],
    [
      'insert past the last of 500,000 lines',
      '\n'.repeat(500_000),
      { kind: 'insert', line: 500_002, text: 'end' },
    ],
  ];
  for (const [name, content, edit] of cases) {
    it(name, async () => {
      const ms = await agrees(content, edit);
      console.log(`edit_v2: ${name}: ${ms.toFixed(0)} ms`);
    }, 60_000);
  }
});
