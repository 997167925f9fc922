// The API's time format (wire.ts `iso`): exactly what `Date#toISOString` writes, for every time.
import { describe, expect, it } from 'vitest';
import { iso } from '../src/api/wire.js';

describe('iso', () => {
  it('writes what toISOString writes: day edges, every millisecond digit count, years past 9999, negatives, null', () => {
    const day = 86_400_000;
    const times = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      59_999,
      3_599_999,
      day - 1,
      day,
      951_782_400_000, // 2000-02-29
      1_796_601_599_999,
      253_402_300_799_999, // the last ms of 9999
      253_402_300_800_000,
      -1,
      -62_198_755_200_000,
      1.5,
    ];
    for (const time of times) expect(iso(time)).toBe(new Date(time).toISOString());
    expect(iso(null)).toBe('1970-01-01T00:00:00.000Z');
    expect(iso(undefined)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('writes what toISOString writes for 100,000 times across four centuries, some days many times over', () => {
    let seed = 31;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let index = 0; index < 100_000; index++) {
      const time =
        index % 2 === 0
          ? Math.floor(random() * 12_000_000_000_000)
          : 1_796_000_000_000 + Math.floor(random() * 3 * 86_400_000);
      expect(iso(time)).toBe(new Date(time).toISOString());
    }
  });
});
