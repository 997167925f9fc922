// The history filter's times: a date-time field's value read as UTC, the ISO and relative forms
// `memdir log` takes, and a clear refusal of anything else.
import { describe, expect, it } from 'vitest';
import { PageError } from '../src/ui/context.js';
import { fieldTime, filterTime, parseFilterTime } from '../src/ui/time-filter.js';

const NOW = Date.parse('2026-03-10T15:30:00Z');

describe('parseFilterTime', () => {
  it("reads a date-time field's value (minutes or seconds) as UTC", () => {
    expect(parseFilterTime('2026-01-31T12:00', NOW)).toBe(Date.parse('2026-01-31T12:00:00Z'));
    expect(parseFilterTime('2026-01-31T12:00:05', NOW)).toBe(Date.parse('2026-01-31T12:00:05Z'));
    expect(parseFilterTime('2026-01-31 12:00:05', NOW)).toBe(Date.parse('2026-01-31T12:00:05Z'));
  });

  it('takes ISO 8601 times with a zone, and a date alone as its start in UTC', () => {
    expect(parseFilterTime('2026-01-31T12:00:00.250Z', NOW)).toBe(Date.parse('2026-01-31T12:00:00.250Z'));
    expect(parseFilterTime('2026-01-31T12:00:00+02:00', NOW)).toBe(Date.parse('2026-01-31T10:00:00Z'));
    expect(parseFilterTime('2026-01-31T12:00:00+0200', NOW)).toBe(Date.parse('2026-01-31T10:00:00Z'));
    expect(parseFilterTime('2026-01-31', NOW)).toBe(Date.parse('2026-01-31T00:00:00Z'));
  });

  it('takes a time ago, now, today and yesterday (days in UTC)', () => {
    expect(parseFilterTime('30m', NOW)).toBe(NOW - 30 * 60_000);
    expect(parseFilterTime('2h', NOW)).toBe(NOW - 2 * 3_600_000);
    expect(parseFilterTime('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseFilterTime(' NOW ', NOW)).toBe(NOW);
    expect(parseFilterTime('today', NOW)).toBe(Date.parse('2026-03-10T00:00:00Z'));
    expect(parseFilterTime('yesterday', NOW)).toBe(Date.parse('2026-03-09T00:00:00Z'));
  });

  it('refuses what is no time, and dates not on the calendar', () => {
    for (const value of [
      '5',
      'soon',
      '2026-02-31',
      '2026-02-31T10:00',
      '2026-13-01T00:00',
      '31/01/2026',
      '2h ago',
    ]) {
      expect({ value, ms: parseFilterTime(value, NOW) }).toEqual({ value, ms: undefined });
    }
  });
});

describe('filterTime', () => {
  it('refuses a bad value with a 400 that names the field and the forms it takes', () => {
    let refusal: unknown;
    try {
      filterTime('Since', 'next tuesday');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(PageError);
    expect((refusal as PageError).status).toBe(400);
    expect((refusal as PageError).message).toBe(
      '"Since" must be a date and time (2026-01-31T12:00, in UTC), an ISO 8601 time (2026-01-31T12:00:00Z), a time ago (30m, 2h, 7d), now, today or yesterday; got "next tuesday". Nothing was filtered.',
    );
    expect(filterTime('Until', undefined)).toBeUndefined();
  });

  it("gives the field's value back as a date-time field shows it", () => {
    expect(fieldTime(Date.parse('2026-01-31T12:00:05.250Z'))).toBe('2026-01-31T12:00:05');
    expect(fieldTime(undefined)).toBe('');
  });
});
