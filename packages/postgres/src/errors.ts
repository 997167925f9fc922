// What a pg failure means for a memory command: whether to run it again at once, and the plain words
// and reason the engine reports (never the server's address, a user name or the SQL; pg's own error,
// with the server's message, stays on `cause` for operators).
import type { BackendFailureReason, MemoryToolError } from '@memdir/core';
import { backendFailure, OUT_OF_VERSION_IDS } from '@memdir/core/driver';

/** A failure as the driver sorts it. */
export interface Failure {
  /**
   * `rerun`: the server rolled the transaction back (a serialization failure, a deadlock): run the
   * call again. `reconnect`: the connection was lost before or while the call ran: run it again on
   * another connection (a change's op id makes the replay safe). `final`: report it.
   */
  readonly action: 'rerun' | 'reconnect' | 'final';
  /** Whether the request may have reached the server and been applied (for a change). */
  readonly unknown: boolean;
  readonly reason: BackendFailureReason;
  readonly detail: string;
}

const CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Connection ended',
];

/** pg's SQLSTATE, or Node's error code (`ECONNREFUSED`...). */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const final = (reason: BackendFailureReason, detail: string): Failure => ({
  action: 'final',
  unknown: false,
  reason,
  detail,
});

/** SQLSTATEs that say the configuration is wrong: trying again will not help. */
const MISCONFIGURED: Record<string, string> = {
  '28P01': 'PostgreSQL refused the password',
  '28000': 'PostgreSQL refused the login',
  '3D000': 'the database does not exist',
  '42501': 'PostgreSQL denied access to the memdir tables',
  '3F000': 'the memdir schema is missing',
  MD001: 'the database session uses repeatable read isolation; memdir needs read committed or serializable',
  // advance_v3: the namespace's version counter is past the exact range (history-sql.ts).
  MD002: OUT_OF_VERSION_IDS,
};

/** True for an error the server sent (pg's DatabaseError): the connection itself is fine. */
export function isServerError(error: unknown): boolean {
  return typeof (error as { severity?: unknown } | null)?.severity === 'string';
}

/** Sorts a failure of one call. `sent`: the request may have been written to the server. */
export function classify(error: unknown, sent: boolean): Failure {
  const state = errorCode(error);
  const text = message(error);
  if ((error as { name?: unknown } | null)?.name === 'DeadlineError') {
    return final('timeout', 'no connection to PostgreSQL could be made in time');
  }
  if (text === 'Query read timeout') {
    return { action: 'final', unknown: sent, reason: 'timeout', detail: 'PostgreSQL did not answer in time' };
  }
  if (text.includes('timeout exceeded when trying to connect')) {
    return final('timeout', 'no connection to PostgreSQL could be made in time');
  }
  // A server that wants a password the store was not given, or a client-side SASL refusal.
  if (/password|SASL|SCRAM/i.test(text) && state === undefined) {
    return final('misconfigured', 'PostgreSQL refused the login');
  }
  if (state !== undefined && MISCONFIGURED[state] !== undefined)
    return final('misconfigured', MISCONFIGURED[state]);
  switch (state) {
    case '40001':
    case '40P01':
      return {
        action: 'rerun',
        unknown: false,
        reason: 'busy',
        detail: 'PostgreSQL kept aborting the transaction',
      };
    case '57014':
      return final('timeout', 'PostgreSQL did not answer in time');
    case '55P03':
      return final('busy', 'the memory store is busy (a lock was held too long)');
    case '53300':
      return final('busy', 'PostgreSQL has no free connection');
    case '25006':
      return final('unavailable', 'PostgreSQL is read-only');
    case '57P03':
      return final('unavailable', 'PostgreSQL accepts no connections at the moment');
    case '57P01':
    case '57P02':
    case '57P05':
      return {
        action: 'reconnect',
        unknown: sent,
        reason: 'unavailable',
        detail: 'the connection to PostgreSQL was closed by the server',
      };
    case '42883':
    case '42P01':
      return final('misconfigured', 'the memdir tables are missing in PostgreSQL');
  }
  if (state?.startsWith('08') || isConnectionError(state, text)) {
    return sent
      ? {
          action: 'reconnect',
          unknown: true,
          reason: 'unavailable',
          detail: 'the connection to PostgreSQL was lost',
        }
      : {
          action: 'reconnect',
          unknown: false,
          reason: 'unavailable',
          detail: 'cannot connect to PostgreSQL',
        };
  }
  return final('unexpected', 'PostgreSQL refused the request');
}

function isConnectionError(state: string | undefined, text: string): boolean {
  if (state !== undefined && /^E[A-Z]+$/.test(state)) return true; // ECONNREFUSED, ECONNRESET...
  return CONNECTION_MESSAGES.some((known) => text.includes(known));
}

/** The `BACKEND` error the engine reports for a failure (the pg error stays on `cause`). */
export function backendError(failure: Failure, change: boolean, cause: unknown): MemoryToolError {
  return backendFailure({
    detail: failure.detail,
    reason: failure.reason,
    outcome: change && failure.unknown ? 'unknown' : 'not-applied',
    cause,
  });
}

/** True when the schema's objects are missing, so setup should run again before the next call. */
export function isMissingLayout(error: unknown): boolean {
  const state = errorCode(error);
  return state === '3F000' || state === '42883' || state === '42P01';
}
