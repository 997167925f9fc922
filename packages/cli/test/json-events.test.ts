// The manifest's streaming JSON reader accepts exactly what JSON.parse accepts, whatever the pieces
// the text comes in, and reports the same value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonEvent, JsonEvents, JsonSyntaxError } from '../src/json-events.js';

/** The value the events describe, rebuilt. */
function rebuild(text: string, cuts: number[]): unknown {
  const stack: Array<{ value: unknown[] | Record<string, unknown>; key?: string }> = [];
  let result: unknown;
  let done = false;
  const place = (value: unknown) => {
    const top = stack.at(-1);
    if (top === undefined) {
      result = value;
      done = true;
    } else if (Array.isArray(top.value)) top.value.push(value);
    // As JSON.parse does: an own property, also for a key named __proto__.
    else
      Object.defineProperty(top.value, top.key!, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  };
  const reader = new JsonEvents((event: JsonEvent) => {
    if (event.type === 'begin') {
      const value = event.container === 'array' ? [] : {};
      place(value);
      done = false;
      stack.push({ value });
    } else if (event.type === 'end') {
      stack.pop();
      if (stack.length === 0) done = true;
    } else if (event.type === 'key') stack.at(-1)!.key = event.key;
    else place(event.value);
  }, 1_000_000);
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.feed(text.slice(at, cut));
    at = cut;
  }
  reader.feed(text.slice(at));
  reader.end();
  expect(done).toBe(true);
  return result;
}

function agrees(text: string, cuts: number[]): void {
  let expected: unknown;
  try {
    expected = JSON.parse(text);
  } catch {
    expect(() => rebuild(text, cuts)).toThrow(JsonSyntaxError);
    return;
  }
  expect(rebuild(text, cuts)).toEqual(expected);
}

describe('the streaming JSON reader', () => {
  it('rebuilds any JSON value, pretty or not, cut into any pieces', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 20 }),
        (value, pretty, cuts) => {
          const text = JSON.stringify(value, null, pretty ? 2 : undefined);
          agrees(
            text,
            cuts.map((cut) => cut % (text.length + 1)),
          );
        },
      ),
      { numRuns: 500, examples: [[{ ['__proto__']: {} }, false, []]] },
    );
  });

  it('refuses what JSON.parse refuses, and takes what it takes, for texts near JSON', () => {
    const samples = [
      '{"a":1,}',
      '[1,]',
      '{"a" 1}',
      '{a:1}',
      '01',
      '1.',
      '.5',
      '-',
      '+1',
      '1e',
      'tru',
      'nul',
      'True',
      '"a\\x"',
      '"\\u12"',
      '"\\u12g4"',
      '"a\nb"',
      '[1 2]',
      '{"a":1}{',
      '{} {}',
      '',
      ' ',
      '[',
      ']',
      '{"a":}',
      '"\\ud800"',
      '"\\/"',
      '1e+5',
      '-0',
      '[[[]]]',
      '{"":""}',
      '"\u2028"',
      '[1,,2]',
      '{"a":1,"a":2}',
    ];
    for (const sample of samples) {
      for (let cut = 0; cut <= sample.length; cut++) agrees(sample, [cut]);
    }
  });

  it('holds no string longer than its limit', () => {
    const reader = new JsonEvents(() => {}, 10);
    expect(() => reader.feed(`{"path":"${'x'.repeat(11)}"}`)).toThrow(
      new JsonSyntaxError('a string is longer than 10 characters'),
    );
  });
});
