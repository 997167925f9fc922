// A change script's refusal ({'E', code, subject, ...}) as the kit's error for it.
import type { DriverPath } from '@memdir/core';
import {
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
} from '@memdir/core/driver';
import { quotaBreach } from './edits.js';
import { subtreeTooLarge, unexpectedReply } from './errors.js';
import { fromStored } from './layout.js';

/** The error of refusal `reply` of a change at `path` (`maxSubtreeEntries` for a subtree too large). */
export function refusalOf(reply: unknown[], path: DriverPath, maxSubtreeEntries: number): Error {
  const [, code, subject] = reply;
  const at = typeof subject === 'string' ? fromStored(subject) : '';
  switch (code) {
    case 'PATH_CONFLICT':
      return refusePathConflict(at);
    case 'CONFLICT':
      return refuseConflict(at);
    case 'NOT_FOUND':
      return refuseNotFound(at);
    case 'ALREADY_EXISTS':
      return refuseAlreadyExists(at);
    case 'QUOTA':
      return refuseQuota(path, quotaBreach(reply.slice(2)));
    case 'TOO_MANY':
      return subtreeTooLarge(Number(subject), maxSubtreeEntries);
    default:
      return unexpectedReply(code);
  }
}
