// The access log: one bounded line per request, with the client address and the token's name,
// never a token, a path or content. Lists the client chose (methods, commands) are capped, so a
// line stays small whatever the body held.

/** What is known of a request by the time it is answered. */
export interface AccessRecord {
  client: string;
  token: string;
  door: string;
  methods: string[];
  commands: string[];
  /** The outcome of each call a door ran (`ok` or an error code), in order. */
  outcomes: string[];
  refusal: string | undefined;
}

/** The most entries of one list shown; the rest are counted as `+N`. */
const SHOWN = 5;
const WORD = /^[A-Za-z0-9/_.:[\]-]{1,64}$/;

function list(values: readonly string[]): string {
  if (values.length === 0) return '-';
  const shown = values.slice(0, SHOWN).map((value) => (WORD.test(value) ? value : 'other'));
  return values.length > SHOWN ? `${shown.join(',')},+${values.length - SHOWN}` : shown.join(',');
}

/** The line of one answered request. */
export function accessLine(record: AccessRecord, status: number | 'aborted', ms: number): string {
  const client = WORD.test(record.client) ? record.client : '-';
  return (
    `client=${client} token=${record.token} door=${record.door} method=${list(record.methods)} ` +
    `command=${list(record.commands)} outcome=${record.refusal ?? (list(record.outcomes) === '-' ? 'ok' : list(record.outcomes))} status=${status} ms=${ms.toFixed(1)}`
  );
}
