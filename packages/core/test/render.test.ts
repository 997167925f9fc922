import { describe, expect, it } from 'vitest';
import { formatSize } from '../src/index.js';

describe('formatSize (SPEC section 5)', () => {
  it.each([
    [0, '0B'],
    [1, '1B'],
    [1023, '1023B'],
    [1024, '1K'],
    [1280, '1.3K'],
    [1536, '1.5K'],
    [4096, '4K'],
    [10_240, '10K'],
    [1_048_575, '1024.0K'],
    [1_048_576, '1M'],
    [1_572_864, '1.5M'],
    [1024 ** 3 - 1, '1024.0M'],
    [1024 ** 3, '1G'],
    [5 * 1024 ** 3, '5G'],
    [1024 ** 4 - 1, '1024.0G'],
    [1024 ** 4, '1T'],
    [1.5 * 1024 ** 4, '1.5T'],
    [1024 ** 5, '1024T'],
    [3 * 1024 ** 5 + 1024 ** 4, '3073T'],
  ])('%d bytes print as %s', (bytes, expected) => {
    expect(formatSize(bytes)).toBe(expected);
  });

  it('rounds as toFixed(1) does: 1126 bytes are 1.1K, 1075 bytes 1.0K (not 1K)', () => {
    expect(formatSize(1126)).toBe('1.1K');
    expect(formatSize(1075)).toBe('1.0K');
  });
});
