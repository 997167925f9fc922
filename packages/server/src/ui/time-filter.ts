// The history filter's times: what a person picks in a date-time field (`2026-01-31T12:00`, read
// as UTC, the zone every time in the inspector is shown in), or types into the address bar: an ISO
// 8601 time, a time ago (`30m`, `2h`, `7d`), `now`, `today` or `yesterday` (as `memdir log` takes
// them). Anything else is refused with a sentence naming the field, before the store is asked.
import { parseTimeWord } from '@memdir/core';
import { PageError } from './context.js';

/** A date, a date and time (`T` or a space between), with an optional zone (none: UTC). */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `value` in ms, or undefined when it is no time this filter takes. */
export function parseFilterTime(value: string, now = Date.now()): number | undefined {
  const word = parseTimeWord(value, { now, day: 'utc' });
  if (word !== undefined) return word;
  const iso = ISO_TIME.exec(value.trim().toUpperCase());
  if (!iso) return undefined;
  const [, date, clock, zone] = iso;
  // Date.parse rolls 2026-02-31 over to March: a date that is not on the calendar is refused.
  const day = Date.parse(`${date}T00:00:00Z`);
  if (!Number.isFinite(day) || new Date(day).toISOString().slice(0, 10) !== date) return undefined;
  const offset = zone === undefined ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(clock === undefined ? `${date}T00:00:00Z` : `${date}T${clock}${offset}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The filter's `label` field as ms, or a 400 page saying what it takes. */
export function filterTime(label: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseFilterTime(value);
  if (ms === undefined) {
    const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    throw new PageError(
      400,
      `"${label}" must be a date and time (2026-01-31T12:00, in UTC), an ISO 8601 time (2026-01-31T12:00:00Z), a time ago (30m, 2h, 7d), now, today or yesterday; got "${shown}". Nothing was filtered.`,
    );
  }
  return ms;
}

/** `ms` as a date-time field's value (`2026-01-31T12:00:05`, UTC), or '' for none. */
export function fieldTime(ms: number | undefined): string {
  return ms === undefined ? '' : new Date(ms).toISOString().slice(0, 19);
}
