// The times a person types for `--since`, `--until` and `--at` (issue 35): ISO 8601, a time ago,
// and the start of today or yesterday on this machine's clock. Pure logic: no store.
import { describe, expect, it } from 'vitest';
import { parseTime } from '../src/history-command.js';

const NOW = Date.UTC(2026, 11, 6, 15, 30, 0);

describe('parseTime', () => {
  it('reads a time ago in seconds, minutes, hours, days and weeks', () => {
    expect(parseTime('90s', NOW)).toBe(NOW - 90_000);
    expect(parseTime('30m', NOW)).toBe(NOW - 1_800_000);
    expect(parseTime('2h', NOW)).toBe(NOW - 7_200_000);
    expect(parseTime('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseTime('2W', NOW)).toBe(NOW - 14 * 86_400_000);
  });

  it('reads now, today and yesterday (local midnight), and ISO 8601 as before', () => {
    expect(parseTime('now', NOW)).toBe(NOW);
    const today = new Date(NOW);
    today.setHours(0, 0, 0, 0);
    expect(parseTime('today', NOW)).toBe(today.getTime());
    expect(parseTime('Yesterday', NOW)).toBe(
      today.getTime() -
        86_400_000 +
        (new Date(today.getTime() - 86_400_000).getTimezoneOffset() - today.getTimezoneOffset()) * 60_000,
    );
    expect(parseTime('2026-12-01T09:30:00Z', NOW)).toBe(Date.UTC(2026, 11, 1, 9, 30));
  });

  it('refuses what it cannot read', () => {
    for (const value of ['yesterday-ish', '2 hours', '5y', '-3h', '', 'last tuesday']) {
      expect(parseTime(value, NOW), value).toBeUndefined();
    }
  });
});
