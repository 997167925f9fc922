// The times a person types rather than writes out (`now`, `today`, `yesterday`, a time ago such as
// `90s`, `30m`, `2h`, `7d`, `2w`): one reading for every place that takes them (the CLI's `--since`,
// `--until` and `--at`, the inspector's history filter), so `2h` means the same everywhere. Which
// midnight `today` is depends on who reads it: the machine's own (the CLI) or UTC (a web page that
// shows every time in UTC), so the caller says.

/** Units of a time ago, in ms. */
const AGO_UNITS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const AGO = /^(\d{1,9})\s*([smhdw])$/;

export interface TimeWordOptions {
  /** The time `now` and every time ago count from, in ms. @default Date.now() */
  readonly now?: number;
  /** Whose midnight starts `today` and `yesterday`: this machine's clock or UTC. */
  readonly day: 'local' | 'utc';
}

/**
 * `value` as ms since the epoch when it is a time word (`now`, `today`, `yesterday`, or a time ago:
 * digits and one of `s`, `m`, `h`, `d`, `w`, case and surrounding spaces ignored), else undefined,
 * so the caller goes on to the absolute forms it takes.
 */
export function parseTimeWord(value: string, options: TimeWordOptions): number | undefined {
  const now = options.now ?? Date.now();
  const word = value.trim().toLowerCase();
  if (word === 'now') return now;
  if (word === 'today' || word === 'yesterday') {
    const day = new Date(now);
    if (options.day === 'utc') {
      day.setUTCHours(0, 0, 0, 0);
      if (word === 'yesterday') day.setUTCDate(day.getUTCDate() - 1);
    } else {
      day.setHours(0, 0, 0, 0);
      if (word === 'yesterday') day.setDate(day.getDate() - 1);
    }
    return day.getTime();
  }
  const ago = AGO.exec(word);
  return ago ? now - Number(ago[1]) * AGO_UNITS[ago[2]!]! : undefined;
}
