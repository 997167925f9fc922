import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../src/args.js';
import { formatRate, formatRatio, median } from '../src/stats.js';

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
  });
  it('takes the mean of the middle two of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it('refuses an empty list', () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('formatting', () => {
  it('prints rates with three significant digits and thousands separators', () => {
    expect(formatRate(12_345.6)).toBe('12,300');
    expect(formatRate(1_013.2)).toBe('1,010');
    expect(formatRate(45.67)).toBe('45.7');
    expect(formatRate(5.4721)).toBe('5.47');
  });
  it('prints ratios with two decimals and an x', () => {
    expect(formatRatio(4.372)).toBe('4.37x');
    expect(formatRatio(1)).toBe('1.00x');
  });
});

describe('parseBenchArgs', () => {
  it('defaults to the full run of both workloads', () => {
    expect(parseBenchArgs([])).toEqual({
      quick: false,
      rounds: undefined,
      only: ['mixed', 'listing'],
      dir: undefined,
      byCommand: false,
      sections: [],
      baseline: undefined,
      help: false,
    });
  });
  it('reads --section, repeatable, without duplicates', () => {
    expect(parseBenchArgs(['--section', 'calls', '--section', 'fs', '--section', 'calls']).sections).toEqual([
      'calls',
      'fs',
    ]);
  });
  it('reads --quick, --rounds, --only, --dir and --by-command', () => {
    expect(
      parseBenchArgs(['--quick', '--rounds', '4', '--only', 'listing', '--dir', '/tmp/x', '--by-command']),
    ).toEqual({
      quick: true,
      rounds: 4,
      only: ['listing'],
      dir: '/tmp/x',
      byCommand: true,
      sections: [],
      baseline: undefined,
      help: false,
    });
  });
  it('refuses a bad round count, an unknown workload and an unknown flag', () => {
    expect(() => parseBenchArgs(['--rounds', '0'])).toThrow('--rounds must be a positive integer, got 0');
    expect(() => parseBenchArgs(['--only', 'nope'])).toThrow('--only must be mixed or listing, got nope');
    expect(() => parseBenchArgs(['--fast'])).toThrow();
  });
});
