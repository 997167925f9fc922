// Who the CLI's changes are made by: `--actor ID`, else the person at the keyboard as the system
// knows them (`user:<login>@<host>`), so that `memdir log` names someone for every change made
// from the command line. The same rule as core's for every actor id: 1 to 256 characters, no
// control characters (an operator's terminal shows them).
import { hostname, userInfo } from 'node:os';
import type { Actor } from '@memdir/core';
import { str, type Values } from './args.js';
import { CliUsageError } from './errors.js';

const TYPES = ['session', 'user', 'api', 'service'] as const;
/** C0 and C1 controls, DEL and the bidirectional controls: what core refuses in an actor id. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const MAX_ID_CHARS = 256;

/** The login name, or `unknown` where the system has none for this process (a bare container). */
function login(env: Readonly<Record<string, string | undefined>>): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER || env.USERNAME || 'unknown';
  }
}

/**
 * The actor of the changes a command makes: `--actor ID` as a `user` (or `TYPE:ID` for one of
 * core's other types: `service:deploy`), else `user:<login>@<host>`.
 * @throws CliUsageError for an id that is empty, too long, or holds a control character.
 */
export function cliActor(values: Values, env: Readonly<Record<string, string | undefined>>): Actor {
  const given = str(values, 'actor');
  if (given === undefined) return { type: 'user', id: `${login(env)}@${hostname()}`.slice(0, MAX_ID_CHARS) };
  const typed = TYPES.find((type) => given.startsWith(`${type}:`));
  const id = typed === undefined ? given : given.slice(typed.length + 1);
  if (id.length === 0 || id.length > MAX_ID_CHARS || CONTROL.test(id)) {
    throw new CliUsageError(
      `--actor expects an id of 1 to ${MAX_ID_CHARS} characters without control characters, optionally after session:, user:, api: or service:`,
    );
  }
  return { type: typed ?? 'user', id };
}
