import { describe, expect, it } from 'vitest';
import {
  isHiddenName,
  isMemoryToolError,
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  normalizeMemoryPath,
  toDriverPath,
  toMemoryPath,
} from '../src/index.js';

function invalid(input: string): { code: string; message: string } {
  try {
    normalizeMemoryPath(input);
  } catch (error) {
    if (isMemoryToolError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe('normalizeMemoryPath', () => {
  it.each([
    ['/memories', '/memories'],
    ['/memories/', '/memories'],
    ['/memories//', '/memories'],
    ['/memories/.', '/memories'],
    ['/memories/./', '/memories'],
    ['/memories/a', '/memories/a'],
    ['/memories/a/', '/memories/a'],
    ['/memories//a//b/', '/memories/a/b'],
    ['/memories/./a/./b/.', '/memories/a/b'],
    ['/memories/cafe\u0301', '/memories/caf\u00e9'],
    ['/memories/.hidden/...', '/memories/.hidden/...'],
    ['/memories/a..b/..c/d..', '/memories/a..b/..c/d..'],
    ['/memories/100%', '/memories/100%'],
    ['/memories/%zz', '/memories/%zz'],
    ['/memories/c1\u0085', '/memories/c1\u0085'],
    ['/memories/Case', '/memories/Case'],
  ])('%j normalises to %j', (input, expected) => {
    expect(normalizeMemoryPath(input)).toBe(expected);
  });

  it.each(['/memoriesX/a', 'memories/a', '/Memories', '', '/', 'memories', ' /memories'])(
    'refuses %j as not under /memories, echoing the input',
    (input) => {
      expect(invalid(input)).toEqual({
        code: 'INVALID_PATH',
        message: `Path must start with /memories, got: ${input}`,
      });
    },
  );

  it.each([
    '/memories/..',
    '/memories/../a',
    '/memories/a/../b',
    '/memories/a/..',
    '/memories/a/../../..',
    '/memories/./..',
  ])('refuses %j as escaping, echoing the input', (input) => {
    expect(invalid(input)).toEqual({
      code: 'INVALID_PATH',
      message: `Path ${input} would escape /memories directory`,
    });
  });

  it.each([
    ['NUL', '/memories/a\u0000'],
    ['U+0001', '/memories/\u0001'],
    ['TAB', '/memories/a\tb'],
    ['LF', '/memories/a\n'],
    ['U+001F', '/memories/\u001f'],
    ['DEL', '/memories/\u007f'],
    ['backslash', '/memories/a\\b'],
  ])('refuses a path with %s, saying a character is not allowed', (_, input) => {
    const error = invalid(input);
    expect(error.code).toBe('INVALID_PATH');
    expect(error.message).toContain('character that is not allowed');
  });

  it.each([
    '/memories/%2e%2e%2f',
    '/memories/%2E%2E%2F',
    '/memories/%2e%2E',
    '/memories/a%00',
    '/memories/%41',
  ])('refuses the percent-encoded %j', (input) => {
    const error = invalid(input);
    expect(error.code).toBe('INVALID_PATH');
    expect(error.message).toContain('percent-encod');
  });

  it('allows a 255-byte name and refuses a 256-byte one, counting UTF-8 bytes after NFC', () => {
    expect(MAX_SEGMENT_BYTES).toBe(255);
    expect(normalizeMemoryPath(`/memories/${'x'.repeat(255)}`)).toBe(`/memories/${'x'.repeat(255)}`);
    expect(invalid(`/memories/${'x'.repeat(256)}`).code).toBe('INVALID_PATH');
    expect(invalid(`/memories/${'\u00e9'.repeat(128)}`).message).toContain('256 bytes');
    // 100 NFD characters are 300 bytes as sent and 200 after NFC.
    expect(normalizeMemoryPath(`/memories/${'e\u0301'.repeat(100)}`)).toBe(
      `/memories/${'\u00e9'.repeat(100)}`,
    );
  });

  it('allows a 1024-byte path and refuses a 1025-byte one, measured after normalisation', () => {
    expect(MAX_PATH_BYTES).toBe(1024);
    const segment = 'x'.repeat(202);
    const exact = `/memories/${segment}/${segment}/${segment}/${segment}/${segment}`;
    expect(new TextEncoder().encode(exact).length).toBe(1024);
    expect(normalizeMemoryPath(exact)).toBe(exact);
    expect(invalid(`${exact}x`).message).toContain('1025 bytes');
    expect(normalizeMemoryPath(`/memories${'/'.repeat(2000)}a`)).toBe('/memories/a');
  });
});

describe('driver paths', () => {
  it('maps /memories to the empty driver path and back', () => {
    expect(toDriverPath(normalizeMemoryPath('/memories'))).toBe('');
    expect(toDriverPath(normalizeMemoryPath('/memories/a/b.md'))).toBe('a/b.md');
    expect(toMemoryPath('')).toBe('/memories');
    expect(toMemoryPath('a/b.md')).toBe('/memories/a/b.md');
  });

  it.each([
    ['.git', true],
    ['.', true],
    ['...', true],
    ['node_modules', true],
    ['Node_modules', false],
    ['node_modules2', false],
    ['a.md', false],
    ['a.', false],
  ])('isHiddenName(%j) is %s', (name, hidden) => {
    expect(isHiddenName(name)).toBe(hidden);
  });
});

describe('normalizeMemoryPath: the one-pass check of plain paths agrees with the full checks', () => {
  // A `/./` after the root sends a path down the full checks without changing what it means, so
  // the two answers must agree: the same normal form, or the same refusal.
  const throughFullChecks = (input: string) =>
    input.startsWith('/memories/') ? `/memories/./${input.slice('/memories/'.length)}` : input;
  const outcome = (input: string, maxPathBytes?: number) => {
    try {
      return { path: normalizeMemoryPath(input, { maxPathBytes }) };
    } catch (error) {
      if (isMemoryToolError(error)) return { code: error.code };
      throw error;
    }
  };
  it.each([
    ['/memories/a/b.md'],
    ['/memories/a//b.md'],
    ['/memories/a/./b.md'],
    ['/memories/a/../b.md'],
    ['/memories/a/.hidden/..x'],
    ['/memories/a/'],
    ['/memories/a%2e'],
    ['/memories/a%zz'],
    ['/memories/a\\b'],
    ['/memories/a\u007fb'],
    ['/memories/a\u0001b'],
    ['/memoriesx/a'],
    ['/memories/ spaced ~name'],
    [`/memories/${'x'.repeat(255)}`],
    [`/memories/${'x'.repeat(256)}`],
    [`/memories/${'abcdefgh/'.repeat(112)}x`],
    [`/memories/${'abcdefgh/'.repeat(113)}x`],
  ])('%j', (input) => {
    const slow = throughFullChecks(input);
    expect(outcome(input)).toEqual(outcome(slow));
    expect(outcome(input, 40)).toEqual(outcome(slow, 40));
  });

  it('on random paths of ASCII and the characters the checks look for', () => {
    const alphabet = ['a', 'b', '.', '.', '/', '/', '%', '2', 'e', '\\', ' ', '~', '\u0000', '\u00e9'];
    let seed = 17;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    for (let run = 0; run < 5_000; run++) {
      let tail = '';
      const length = random(24);
      for (let index = 0; index < length; index++) tail += alphabet[random(alphabet.length)];
      const input = `/memories${random(4) === 0 ? '' : '/'}${tail}`;
      const slow = throughFullChecks(input);
      expect(outcome(input, 16), input).toEqual(outcome(slow, 16));
      expect(outcome(input), input).toEqual(outcome(slow));
    }
  });
});
