// What the model reads when Redis fails: plain words, never an address, a credential or a stack
// (the ioredis error stays on `cause`). A change fails as "may or may not have been saved" unless
// Redis itself said that it did not run it.
import { MemoryToolError } from '@memdir/core';
import { outcomeUnknown, storeUnavailable } from '@memdir/core/driver';

/** Replies by which Redis refuses a command before running it, with the words for each. */
const REFUSALS: ReadonlyArray<readonly [prefix: string, reason: string]> = [
  ['OOM', 'Redis is out of memory'],
  ['BUSY', 'Redis is busy running another script'],
  ['READONLY', 'Redis is read-only (a failover may be under way)'],
  ['CLUSTERDOWN', 'the Redis Cluster is down or being reconfigured'],
  ['TRYAGAIN', 'the Redis Cluster is moving the data of this memory store'],
  ['MOVED', 'the Redis Cluster is moving the data of this memory store'],
  ['ASK', 'the Redis Cluster is moving the data of this memory store'],
  ['LOADING', 'Redis is loading its data'],
  ['MASTERDOWN', 'the Redis primary is down'],
  ['NOAUTH', 'Redis refused the credentials'],
  ['WRONGPASS', 'Redis refused the credentials'],
  ['NOPERM', 'the Redis user lacks a permission memdir needs'],
  ['MISCONF', 'Redis cannot save its data'],
  ['NOREPLICAS', 'Redis has too few replicas to accept writes'],
  ['WRONGTYPE', 'a key of the memory store in Redis holds another kind of value'],
  ['CROSSSLOT', 'the keys of the memory store are in different Redis Cluster slots'],
  ['ERR max number of clients', 'Redis has too many clients'],
];

function replyCode(error: Error): string | undefined {
  return error.name === 'ReplyError' ? error.message : undefined;
}

/**
 * The BACKEND error for a failed call to Redis. `change` says whether the call may have changed
 * something: then only a reply by which Redis refused to run it gives "unavailable"; anything else
 * (a lost connection, a timeout, a script that failed half-way) gives "may or may not have been
 * saved".
 */
export function redisFailure(error: unknown, change: boolean): MemoryToolError {
  if (error instanceof MemoryToolError) return error;
  const failure = error instanceof Error ? error : new Error(String(error));
  const reply = replyCode(failure);
  if (reply !== undefined) {
    for (const [prefix, reason] of REFUSALS) {
      if (reply.startsWith(prefix)) return storeUnavailable(reason, error);
    }
    return change
      ? outcomeUnknown('Redis failed while running the change', error)
      : storeUnavailable('Redis reported an error', error);
  }
  const reason = connectionReason(failure);
  return change ? outcomeUnknown(reason, error) : storeUnavailable(reason, error);
}

function connectionReason(error: Error): string {
  const message = error.message;
  if (message === 'Command timed out') return 'Redis did not answer in time';
  if (error.name === 'ClusterAllFailedError' || message.startsWith('Failed to refresh slots cache')) {
    return 'no node of the Redis Cluster answered';
  }
  if (message.startsWith('Too many Cluster redirections'))
    return 'the Redis Cluster kept redirecting the request';
  if (message.startsWith('Cluster is ended') || message === 'Connection is closed.') {
    return 'the connection to Redis is closed';
  }
  return 'the connection to Redis was lost';
}

/** A change that reached Redis after its fence: Redis did not apply it. */
export function arrivedTooLate(): MemoryToolError {
  return storeUnavailable('the change reached Redis too late to be applied');
}

/** A move or remove of more entries than one script may touch without blocking Redis. */
export function subtreeTooLarge(entries: number, limit: number): MemoryToolError {
  return new MemoryToolError(
    'BACKEND',
    `The memory store cannot move or delete ${entries.toLocaleString('en-US')} files and folders in one step (at most ${limit.toLocaleString('en-US')}): move or delete its subfolders one at a time.`,
  );
}

/** A server the store must not use, with what to change. Never retried. */
export function unusableServer(reason: string, cause?: unknown): MemoryToolError {
  return new MemoryToolError('BACKEND', `The memory store cannot use this Redis server: ${reason}.`, {
    cause,
  });
}
