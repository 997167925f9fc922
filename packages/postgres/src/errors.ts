// What a pg failure means for a memory command: whether to try again at once, and the plain words
// the model reads (never the server's address, a user name or the SQL).
import type { MemoryToolError } from '@memdir/core';
import { outcomeUnknown, storeUnavailable } from '@memdir/core/driver';

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
  readonly reason: string;
}

const CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'connection timeout',
  'Connection ended',
];

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Sorts a failure of one call. `sent`: the request may have been written to the server. */
export function classify(error: unknown, sent: boolean): Failure {
  const state = sqlState(error);
  const text = message(error);
  if (text.includes('timeout exceeded when trying to connect')) {
    return { action: 'final', unknown: false, reason: 'no connection to PostgreSQL could be made in time' };
  }
  if (text === 'Query read timeout') {
    return { action: 'final', unknown: sent, reason: 'PostgreSQL did not answer in time' };
  }
  switch (state) {
    case '40001':
    case '40P01':
      return { action: 'rerun', unknown: false, reason: 'PostgreSQL kept aborting the transaction' };
    case '57014':
      return { action: 'final', unknown: false, reason: 'PostgreSQL did not answer in time' };
    case '55P03':
      return {
        action: 'final',
        unknown: false,
        reason: 'the memory store is busy (a lock was held too long)',
      };
    case '25006':
      return { action: 'final', unknown: false, reason: 'PostgreSQL is read-only' };
    case '42501':
      return { action: 'final', unknown: false, reason: 'PostgreSQL denied access to the memdir tables' };
    case '53300':
    case '57P03':
      return { action: 'final', unknown: false, reason: 'PostgreSQL accepts no connections at the moment' };
    case 'MD001':
      return {
        action: 'final',
        unknown: false,
        reason:
          'the database session uses repeatable read isolation; memdir needs read committed or serializable',
      };
    case '57P01':
    case '57P02':
    case '57P05':
      return {
        action: 'reconnect',
        unknown: sent,
        reason: 'the connection to PostgreSQL was closed by the server',
      };
  }
  if (state?.startsWith('08') || isConnectionError(error, text)) {
    return sent
      ? { action: 'reconnect', unknown: true, reason: 'the connection to PostgreSQL was lost' }
      : { action: 'reconnect', unknown: false, reason: 'cannot connect to PostgreSQL' };
  }
  if (state === '3F000' || state === '42883' || state === '42P01') {
    return { action: 'final', unknown: false, reason: 'the memdir tables are missing in PostgreSQL' };
  }
  return { action: 'final', unknown: false, reason: 'PostgreSQL refused the request' };
}

function isConnectionError(error: unknown, text: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET...
  return CONNECTION_MESSAGES.some((known) => text.includes(known));
}

/** The `BACKEND` error the engine reports for a failure (the pg error stays on `cause`). */
export function backendError(failure: Failure, change: boolean, cause: unknown): MemoryToolError {
  return change && failure.unknown
    ? outcomeUnknown(failure.reason, cause)
    : storeUnavailable(failure.reason, cause);
}

/** True when the schema's objects are missing, so setup should run again before the next call. */
export function isMissingLayout(error: unknown): boolean {
  const state = sqlState(error);
  return state === '3F000' || state === '42883' || state === '42P01';
}
