import { describe, expect, it } from 'vitest';
import { parseTimeWord } from '../src/index.js';

// 2026-03-10T15:30:00Z: a Tuesday afternoon in UTC.
const NOW = Date.UTC(2026, 2, 10, 15, 30, 0);

describe('parseTimeWord', () => {
  it('reads a time ago in each unit, with spaces and capitals ignored', () => {
    expect(parseTimeWord('90s', { now: NOW, day: 'utc' })).toBe(NOW - 90_000);
    expect(parseTimeWord('30m', { now: NOW, day: 'utc' })).toBe(NOW - 1_800_000);
    expect(parseTimeWord(' 2H ', { now: NOW, day: 'utc' })).toBe(NOW - 7_200_000);
    expect(parseTimeWord('7 d', { now: NOW, day: 'local' })).toBe(NOW - 7 * 86_400_000);
    expect(parseTimeWord('2w', { now: NOW, day: 'local' })).toBe(NOW - 14 * 86_400_000);
    expect(parseTimeWord('now', { now: NOW, day: 'local' })).toBe(NOW);
  });

  it('starts today and yesterday at midnight in UTC or on this machine', () => {
    expect(parseTimeWord('today', { now: NOW, day: 'utc' })).toBe(Date.UTC(2026, 2, 10));
    expect(parseTimeWord('Yesterday', { now: NOW, day: 'utc' })).toBe(Date.UTC(2026, 2, 9));
    const local = new Date(NOW);
    local.setHours(0, 0, 0, 0);
    expect(parseTimeWord('today', { now: NOW, day: 'local' })).toBe(local.getTime());
    local.setDate(local.getDate() - 1);
    expect(parseTimeWord('yesterday', { now: NOW, day: 'local' })).toBe(local.getTime());
  });

  it('leaves everything else to the caller', () => {
    for (const value of ['2026-03-10', '2h30m', '-2h', '2y', '1234567890s', '', 'tomorrow']) {
      expect(parseTimeWord(value, { now: NOW, day: 'utc' })).toBeUndefined();
    }
  });
});
