// The edit script against the kit's applyEdit, the reference: the same outcome (occurrence counts
// and lines, snippets, line counts, sizes) and the same content, on random and adversarial inputs
// (multi-byte and astral characters, CRLF, NUL, periodic runs that overlap); its time on inputs
// built to make matching slow; the edits it leaves to JavaScript; replays; one round trip.
import { type DriverEdit, type DriverPath, MAX_MATCH_LINES } from '@memdir/core';
import { applyEdit } from '@memdir/core/driver';
import { type PrivateServer, startPrivateRedis, startRoundTripCounter } from '@memdir/test-support';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisDriver, createRedisStore, type RedisDriver } from '../src/index.js';
import { checkLayout, deleteUnder, newRedis, redisUrl, uniquePrefix } from './helpers.js';

const p = (path: string) => path as DriverPath;
const op = () => globalThis.crypto.randomUUID();
const MAX = 1 << 20;

const client = newRedis();
let prefix = '';
let driver: RedisDriver;
beforeAll(async () => {
  await client.connect();
});
afterAll(() => client.quit());

function open(on: Redis = client): RedisDriver {
  prefix = uniquePrefix('e');
  driver = createRedisDriver({ client: on, keyPrefix: prefix });
  return driver;
}

/** Runs `edit` on `content` through the driver and checks it against applyEdit. */
async function agrees(content: string, edit: DriverEdit, maxFileBytes = MAX): Promise<void> {
  await driver.write(p('f.md'), content, { op: op() });
  const expected = applyEdit(content, edit, maxFileBytes);
  const outcome = await driver.edit(p('f.md'), edit, { op: op(), maxFileBytes });
  expect(outcome).toEqual(expected.outcome);
  const node = await driver.read(p('f.md'));
  expect(node?.kind === 'file' && node.content).toBe(expected.content ?? content);
}

describe('the edit script gives applyEdit\u2019s outcome and content', () => {
  beforeAll(() => {
    open();
  });
  afterAll(async () => {
    await checkLayout(client, prefix);
    await deleteUnder(client, prefix);
  });

  // Pieces that stress UTF-8 against UTF-16: multi-byte, astral (a surrogate pair in JavaScript),
  // CRLF, NUL, and letters that make overlapping runs.
  const piece = fc.constantFrom(
    'a',
    'b',
    'ab',
    'aab',
    '\n',
    '\r\n',
    '\u00e9',
    '\u20ac',
    '\u{1F600}',
    '\u0000',
    ' ',
  );
  const text = (most: number) => fc.array(piece, { maxLength: most }).map((parts) => parts.join(''));
  /** Text that mostly repeats one unit (periodic runs), with some noise. */
  const periodic = fc
    .tuple(text(4), fc.integer({ min: 0, max: 120 }), fc.array(fc.tuple(fc.nat(), piece), { maxLength: 4 }))
    .map(([unit, times, noise]) => {
      // Noise goes between characters: Redis holds UTF-8, so content never has a lone surrogate.
      const out = [...unit.repeat(times)];
      for (const [at, extra] of noise) out.splice(out.length === 0 ? 0 : at % out.length, 0, extra);
      return out.join('');
    });
  const content = fc.oneof(text(60), periodic);

  it('str_replace, random and periodic content, needles taken from it or made up', async () => {
    await fc.assert(
      fc.asyncProperty(
        content,
        fc.oneof(text(8), fc.tuple(fc.nat(), fc.integer({ min: 1, max: 80 }))),
        text(6),
        async (body, needle, replacement) => {
          let oldStr: string;
          if (typeof needle === 'string') oldStr = needle;
          else {
            const chars = [...body];
            const start = chars.length === 0 ? 0 : needle[0] % chars.length;
            oldStr = chars.slice(start, start + needle[1]).join('');
          }
          if (oldStr === '') oldStr = 'a';
          await agrees(body, { kind: 'str_replace', oldStr, newStr: replacement });
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  it('insert at every kind of line, CRLF and trailing newlines included', async () => {
    await fc.assert(
      fc.asyncProperty(content, fc.integer({ min: -2, max: 40 }), text(5), async (body, line, inserted) => {
        await agrees(body, { kind: 'insert', line, text: inserted });
      }),
      { numRuns: 250 },
    );
  }, 120_000);

  it('the snippet around a replacement at the start, middle and end, on long and short lines', async () => {
    const lines = Array.from({ length: 12 }, (_, index) => `line ${index} ${'\u00e9'.repeat(index)}`);
    for (const target of ['line 0', 'line 1 ', 'line 2 ', 'line 6 ', 'line 10', 'line 11']) {
      for (const newStr of ['X', 'X\nY\nZ', '', '\n\n\n\n']) {
        await agrees(lines.join('\n'), { kind: 'str_replace', oldStr: target, newStr });
        await agrees(lines.join('\r\n'), { kind: 'str_replace', oldStr: target, newStr });
      }
    }
    const long = `${'x'.repeat(3000)}\n${'y'.repeat(5000)}\nmiddle\n${'z'.repeat(7000)}`;
    await agrees(long, { kind: 'str_replace', oldStr: 'middle', newStr: 'MIDDLE' });
  });

  it('many occurrences: the count of all of them and the lines of the first 100', async () => {
    const body = Array.from({ length: 300 }, (_, index) => `${index % 3 === 0 ? 'aaaa' : 'b'}`).join('\n');
    await agrees(body, { kind: 'str_replace', oldStr: 'aa', newStr: 'x' });
    await agrees('\u{1F600}'.repeat(500), { kind: 'str_replace', oldStr: '\u{1F600}\u{1F600}', newStr: '' });
    const outcome = await driver.edit(
      p('f.md'),
      { kind: 'str_replace', oldStr: '\u{1F600}', newStr: '' },
      {
        op: op(),
        maxFileBytes: MAX,
      },
    );
    expect(outcome).toMatchObject({ outcome: 'multiple', count: 500 });
    expect((outcome as unknown as { lines: number[] }).lines).toHaveLength(MAX_MATCH_LINES);
  });

  it('too-large before quota, and the sizes are UTF-8 bytes', async () => {
    await agrees('\u00e9\u00e9', { kind: 'str_replace', oldStr: '\u00e9', newStr: 'x' });
    await agrees('\u00e9 x', { kind: 'str_replace', oldStr: 'x', newStr: '\u20ac\u20ac' }, 8);
    await agrees('\u00e9 x', { kind: 'str_replace', oldStr: 'x', newStr: '\u20ac\u20ac' }, 9);
    await agrees('abc', { kind: 'insert', line: 1, text: '\u{1F600}' }, 7);
    await agrees('abc', { kind: 'insert', line: 1, text: '\u{1F600}' }, 8);
  });
});

describe('inputs built to make matching slow', () => {
  // Script times come from SLOWLOG, which records how long each command ran on the server: on a
  // server of this test's own, so that the shared one keeps its settings.
  let server: PrivateServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    admin = newRedis(server.url);
    await admin.connect();
    await admin.config('SET', 'slowlog-log-slower-than', '0');
  });
  afterAll(async () => {
    admin.disconnect();
    await server.close();
  });

  /** Runs the edit, checks it against applyEdit, and returns the longest script time (ms). */
  async function scriptTime(content: string, edit: DriverEdit): Promise<number> {
    open(admin);
    await driver.write(p('big.md'), content, { op: op() });
    await admin.call('SLOWLOG', 'RESET');
    const expected = applyEdit(content, edit, 2 * MAX);
    expect(await driver.edit(p('big.md'), edit, { op: op(), maxFileBytes: 2 * MAX })).toEqual(
      expected.outcome,
    );
    const log = (await admin.call('SLOWLOG', 'GET', '100')) as Array<[number, number, number, string[]]>;
    const scripts = log.filter(([, , , args]) => /^eval/i.test(args[0] ?? ''));
    expect(scripts.length).toBeGreaterThan(0);
    return Math.max(...scripts.map(([, , micros]) => micros)) / 1000;
  }

  it('1 MiB of "a" searched for 999 "a" (and its kin) answers in one script, in milliseconds', async () => {
    const a = 'a'.repeat(MAX);
    const times: Record<string, number> = {};
    times['999 a'] = await scriptTime(a, { kind: 'str_replace', oldStr: 'a'.repeat(999), newStr: 'b' });
    times.a = await scriptTime(a, { kind: 'str_replace', oldStr: 'a', newStr: 'b' });
    times['ab run, 999 of it'] = await scriptTime('ab'.repeat(MAX / 2), {
      kind: 'str_replace',
      oldStr: 'ab'.repeat(500).slice(0, 999),
      newStr: '',
    });
    times['998 a + b (no match)'] = await scriptTime(a, {
      kind: 'str_replace',
      oldStr: `${'a'.repeat(998)}b`,
      newStr: '',
    });
    times['half a MiB of a + b (no match)'] = await scriptTime(a, {
      kind: 'str_replace',
      oldStr: `${'a'.repeat(MAX / 2)}b`,
      newStr: '',
    });
    times['unique at the end of a run'] = await scriptTime(`${a}b`, {
      kind: 'str_replace',
      oldStr: `${'a'.repeat(999)}b`,
      newStr: 'c',
    });
    times['insert after line 500,000 of 1,048,576'] = await scriptTime('\n'.repeat(MAX), {
      kind: 'insert',
      line: 500_000,
      text: 'x',
    });
    console.log('edit script times (ms):', times);
    // Quadratic matching would take seconds to minutes on these; linear takes milliseconds.
    for (const [name, ms] of Object.entries(times)) expect(ms, name).toBeLessThan(250);
  }, 60_000);

  it('text that defeats the 32-byte head is edited in JavaScript: same outcome, a bounded script', async () => {
    const unit = `${'0123456789abcdef'.repeat(4)}Z`;
    const needle = `${unit}${'0123456789abcdef'.repeat(40)}Y`;
    const body = `${unit.repeat(16_000)}${needle}`;
    expect(await scriptTime(body, { kind: 'str_replace', oldStr: needle, newStr: 'found' })).toBeLessThan(
      250,
    );
    expect(await driver.read(p('big.md'))).toMatchObject({ content: `${unit.repeat(16_000)}found` });
    const many = 'the end. '.repeat(100_000);
    expect(await scriptTime(many, { kind: 'str_replace', oldStr: 'the', newStr: 'a' })).toBeLessThan(250);
    await deleteUnder(admin, prefix);
  }, 60_000);
});

describe('replays and round trips', () => {
  afterEach(async () => {
    await checkLayout(client, prefix);
    await deleteUnder(client, prefix);
  });

  it('an edit replayed with its op answers its first outcome and edits once, large snippets included', async () => {
    open();
    for (const line of ['short', 'x'.repeat(10_000)]) {
      await driver.write(p('r.md'), `a\nb\n${line}\nc`, { op: op() });
      const id = op();
      const edit: DriverEdit = { kind: 'str_replace', oldStr: 'b', newStr: 'B' };
      const first = await driver.edit(p('r.md'), edit, { op: id, maxFileBytes: MAX });
      expect(first).toEqual({ outcome: 'edited', firstLine: 1, lines: ['a', 'B', line, 'c'] });
      expect(await driver.edit(p('r.md'), edit, { op: id, maxFileBytes: MAX })).toEqual(first);
      const insert: DriverEdit = { kind: 'insert', line: 0, text: 'top' };
      const insertId = op();
      await driver.edit(p('r.md'), insert, { op: insertId, maxFileBytes: MAX });
      expect(await driver.edit(p('r.md'), insert, { op: insertId, maxFileBytes: MAX })).toEqual({
        outcome: 'edited',
        firstLine: 0,
        lines: [],
      });
      expect(await driver.read(p('r.md'))).toMatchObject({ content: `top\na\nB\n${line}\nc` });
    }
  });

  it('an edit applied in JavaScript (text with a lone surrogate) is replay-safe too', async () => {
    open();
    await driver.write(p('s.md'), 'x-y', { op: op() });
    const id = op();
    // A lone surrogate has no UTF-8 form: the script cannot match or write it as JavaScript does.
    const edit: DriverEdit = { kind: 'str_replace', oldStr: '-', newStr: '\uD83D' };
    const first = await driver.edit(p('s.md'), edit, { op: id, maxFileBytes: MAX });
    expect(first).toEqual(applyEdit('x-y', edit, MAX).outcome);
    expect(first).toMatchObject({ lines: ['x\uD83Dy'] });
    // The replay answers from the receipt, which Redis holds in UTF-8 (U+FFFD for the surrogate).
    expect(await driver.edit(p('s.md'), edit, { op: id, maxFileBytes: MAX })).toEqual({
      outcome: 'edited',
      firstLine: 1,
      lines: ['x\uFFFDy'],
    });
    expect(await driver.read(p('s.md'))).toMatchObject({ content: 'x\uFFFDy' });
  });

  it('str_replace and insert are one round trip on the wire, a failed one too', async () => {
    const counter = await startRoundTripCounter(redisUrl());
    prefix = uniquePrefix('e');
    const store = createRedisStore({ url: counter.url, keyPrefix: prefix });
    try {
      await store.create({ command: 'create', path: '/memories/a.md', file_text: 'one\ntwo' });
      await store.str_replace({
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: 'one',
        new_str: '1',
      });
      await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: '0' });
      const turns: number[] = [];
      for (const command of [
        { command: 'str_replace', path: '/memories/a.md', old_str: 'two', new_str: '2' },
        { command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'half' },
        { command: 'str_replace', path: '/memories/a.md', old_str: 'absent', new_str: '' },
        { command: 'insert', path: '/memories/a.md', insert_line: 99, insert_text: '' },
      ]) {
        counter.resetStats();
        await store.execute(command).catch(() => {});
        turns.push(counter.stats().turns);
      }
      expect(turns).toEqual([1, 1, 1, 1]);
    } finally {
      await store.close();
      await counter.close();
    }
  });
});
