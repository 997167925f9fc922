// The history filter's times: what a person picks in a date-time field (`2026-01-31T12:00`, read
// as UTC, the zone every time in the inspector is shown in), or types into the address bar: an ISO
// 8601 time, a time ago (`30m`, `2h`, `7d`), `now`, `today` or `yesterday` (as `memdir log` takes
// them). Anything else is refused with a sentence naming the field, before the store is asked.
import { PageError } from './context.js';

/** Units of a time ago, in ms. */
const AGO_UNITS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** A date, a date and time (`T` or a space between), with an optional zone (none: UTC). */
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `value` in ms, or undefined when it is no time this filter takes. */
export function parseFilterTime(value: string, now = Date.now()): number | undefined {
  const word = value.trim().toLowerCase();
  if (word === 'now') return now;
  if (word === 'today' || word === 'yesterday') {
    const day = new Date(now);
    day.setUTCHours(0, 0, 0, 0);
    return day.getTime() - (word === 'yesterday' ? AGO_UNITS['d']! : 0);
  }
  const ago = /^(\d{1,9})\s*([smhdw])$/.exec(word);
  if (ago) return now - Number(ago[1]) * AGO_UNITS[ago[2]!]!;
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
