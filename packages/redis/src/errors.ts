// What the model reads when Redis fails: plain words, never an address, a credential or a stack
// (the ioredis error stays on `cause`, for operators), with the `reason` applications branch on. A
// change fails as "may or may not have been saved" unless Redis itself said that it did not run it.
import { type BackendFailureReason, MemoryToolError } from '@memdir/core';
import { backendFailure, historyOutOfIds, outcomeUnknown, storeUnavailable } from '@memdir/core/driver';
import { MOVING_REPLY, OUT_OF_IDS_REPLY } from './change-prelude.js';

/** Replies by which Redis refuses a command before running it: the words for each, and why. */
const REFUSALS: ReadonlyArray<readonly [prefix: string, detail: string, reason: BackendFailureReason]> = [
  ['OOM', 'Redis is out of memory', 'unavailable'],
  ['BUSY', 'Redis is busy running another script', 'busy'],
  ['READONLY', 'Redis is read-only (a failover may be under way)', 'unavailable'],
  ['CLUSTERDOWN', 'the Redis Cluster is down or being reconfigured', 'unavailable'],
  ['TRYAGAIN', 'the Redis Cluster is moving the data of this memory store', 'unavailable'],
  ['MOVED', 'the Redis Cluster is moving the data of this memory store', 'unavailable'],
  ['ASK', 'the Redis Cluster is moving the data of this memory store', 'unavailable'],
  ['LOADING', 'Redis is loading its data', 'unavailable'],
  ['MASTERDOWN', 'the Redis primary is down', 'unavailable'],
  ['NOAUTH', 'Redis refused the credentials', 'misconfigured'],
  ['WRONGPASS', 'Redis refused the credentials', 'misconfigured'],
  ['NOPERM', 'the Redis user lacks a permission memdir needs', 'misconfigured'],
  ['MISCONF', 'Redis cannot save its data', 'misconfigured'],
  ['NOREPLICAS', 'Redis has too few replicas to accept writes', 'unavailable'],
  ['WRONGTYPE', 'a key of the memory store in Redis holds another kind of value', 'misconfigured'],
  ['CROSSSLOT', 'the keys of the memory store are in different Redis Cluster slots', 'unexpected'],
  ['ERR max number of clients', 'Redis has too many clients', 'busy'],
];

/** ioredis's message when a command's time ran out (the deadline set on it). */
export const TIMED_OUT = 'Command timed out';

function replyCode(error: Error): string | undefined {
  return error.name === 'ReplyError' ? error.message : undefined;
}

/**
 * The BACKEND error for a failed call to Redis. `change` says whether the call may have changed
 * something: then only a reply by which Redis refused to run it gives "not applied"; anything else
 * (a lost connection, a timeout, a script that failed half-way) gives "may or may not have been
 * saved".
 */
export function redisFailure(error: unknown, change: boolean): MemoryToolError {
  if (error instanceof MemoryToolError) return error;
  const failure = error instanceof Error ? error : new Error(String(error));
  const reply = replyCode(failure);
  if (reply !== undefined) {
    // Raised before the change's first write: nothing was applied.
    if (reply.startsWith(OUT_OF_IDS_REPLY)) return historyOutOfIds();
    if (reply.startsWith(MOVING_REPLY)) return moveUnderWay(error);
    for (const [prefix, detail, reason] of REFUSALS) {
      if (reply.startsWith(prefix)) return storeUnavailable(detail, error, reason);
    }
    return change
      ? outcomeUnknown('Redis failed while running the change', error, 'unexpected')
      : storeUnavailable('Redis reported an error', error, 'unexpected');
  }
  const [detail, reason] = connectionFailure(failure);
  // A store or client closed before the call was sent: nothing went out.
  if (!change || reason === 'closed') return storeUnavailable(detail, error, reason);
  return outcomeUnknown(detail, error, reason);
}

function connectionFailure(error: Error): [string, BackendFailureReason] {
  const message = error.message;
  if (message === TIMED_OUT) return ['Redis did not answer in time', 'timeout'];
  if (error.name === 'ClusterAllFailedError' || message.startsWith('Failed to refresh slots cache')) {
    return ['no node of the Redis Cluster answered', 'unavailable'];
  }
  if (message.startsWith('Too many Cluster redirections')) {
    return ['the Redis Cluster kept redirecting the request', 'unavailable'];
  }
  if (message.startsWith('Cluster is ended') || message === 'Connection is closed.') {
    return ['the connection to Redis is closed', 'closed'];
  }
  return ['the connection to Redis was lost', 'unavailable'];
}

/** The errors of {@link moveUnderWay}: the calls that met a folder move under way. */
const UNDER_WAY = new WeakSet<Error>();

/**
 * A call refused, before it read anything, because a large folder move or delete is under way in
 * its namespace (step-scripts.ts). The driver finishes that change and sends the call again
 * (calls.ts), so this reaches a caller only when finishing it failed.
 */
export function moveUnderWay(cause: unknown): MemoryToolError {
  const error = storeUnavailable(
    'a large folder move or delete in this memory store is being finished; try again in a moment',
    cause,
    'busy',
  );
  UNDER_WAY.add(error);
  return error;
}

/** Whether `error` is a call refused by {@link moveUnderWay}. */
export function isMoveUnderWay(error: unknown): boolean {
  return error instanceof Error && UNDER_WAY.has(error);
}

/** A change that reached Redis after its fence: Redis did not apply it. */
export function arrivedTooLate(): MemoryToolError {
  return storeUnavailable('the change reached Redis too late to be applied', undefined, 'timeout');
}

/** A move or remove of more entries than one script may touch without blocking Redis. */
export function subtreeTooLarge(entries: number, limit: number): MemoryToolError {
  return new MemoryToolError(
    'BACKEND',
    `The memory store cannot move or delete ${entries.toLocaleString('en-US')} files and folders in one step (at most ${limit.toLocaleString('en-US')}): move or delete its subfolders one at a time.`,
    { reason: 'busy', outcome: 'not-applied' },
  );
}

/** A server the store must not use, with what to change. Never retried. */
export function unusableServer(detail: string, cause?: unknown): MemoryToolError {
  return new MemoryToolError('BACKEND', `The memory store cannot use this Redis server: ${detail}.`, {
    cause,
    reason: 'misconfigured',
    outcome: 'not-applied',
  });
}

/** A reply no memdir script gives: a bug, or keys written by something else. */
export function unexpectedReply(what: unknown): MemoryToolError {
  return backendFailure({
    detail: 'Redis gave an answer memdir does not know',
    reason: 'unexpected',
    outcome: 'unknown',
    cause: new Error(`unexpected reply from a memdir script: ${String(what)}`),
  });
}
