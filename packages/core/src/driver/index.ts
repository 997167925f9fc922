/**
 * The driver kit: what most memdir drivers need besides their backend, so a simple driver stays
 * small and a fast one computes the same things on its server. Import it from
 * `@memdir/core/driver`:
 *
 * ```ts
 * import { AbstractMemoryDriver, foldListing, refusePathConflict, timeLeft } from '@memdir/core/driver';
 * ```
 *
 * The contract these help to meet (`MemoryDriver` and its types) is in `contract.ts`, and what a
 * driver can do in `capabilities.ts`; both are exported from `@memdir/core` as types.
 * @module
 */
// First: a clear error on a Node.js older than memdir supports (see runtime.ts).
import '../runtime.js';
import type { DriverPath } from '../path.js';
import { driverAncestors } from '../path.js';

export { createOwningAdmin } from '../admin/admin.js';
export { NAMESPACE_RULE, validateNamespace } from '../namespace.js';
export { isBeneath, isHiddenName, utf8Length } from '../path.js';
export { createOwningStore } from '../store.js';
export { STORE_OPTION_NAMES, splitStoreOptions } from '../store-options.js';
export { type AppliedEdit, applyEdit } from './apply-edit.js';
export { AbstractMemoryDriver, wrapDriver } from './base.js';
export {
  checkTime,
  type Deadlined,
  deadlineOf,
  STANDALONE_DEADLINE_MS,
  sleep,
  timeLeft,
} from './deadline.js';
export { EditBatch, type EditCheck, EditQueue, type QueuedEdit } from './edit-queue.js';
export {
  appendFileVersion,
  historyOutOfIds,
  isAtOrBeneath,
  lowerBoundId,
  MAX_VERSION_SEQUENCE,
  newFileId,
  nextVersionSequence,
  OUT_OF_VERSION_IDS,
  PRUNE_PER_CHANGE,
  prunable,
  removeSortedId,
  sequenceVersionId,
  sha256Hex,
  treeOfVersions,
  VERSION_SCAN_LIMIT,
  versionMatches,
  versionPage,
  versionSequence,
} from './history.js';
export {
  checkImportedVersions,
  EARLIEST_IMPORTED_AT,
  MAX_IMPORTED_SEQUENCE,
} from './imported-versions.js';
export { compareListingPaths, compareNames, foldListing, ListingFold } from './listing.js';
export { type DriverLog, driverLog } from './log.js';
export { optionError, positiveInteger, positiveNumber } from './options.js';
export { judgeQuota, type QuotaChange } from './quota.js';
export { Receipts } from './receipts.js';
export {
  compareUtf8,
  isAfterKey,
  isFileId,
  itemAtDepth,
  MAX_RECORD_PAGE,
  pageOfRecords,
  type RecordLike,
  recordKey,
  recordQueryParts,
} from './records.js';
export {
  type BackendFailure,
  backendFailure,
  isRefusal,
  outcomeUnknown,
  refuseAlreadyExists,
  refuseConflict,
  refuseLink,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
  refuseTooLarge,
  storeUnavailable,
} from './refusals.js';

/** The proper ancestors of a driver path, outermost first: `a/b/c` gives `a`, `a/b`. */
export const ancestors: (path: string) => DriverPath[] = driverAncestors;

/** Marks a string a driver built (from its own keys or rows) as a {@link DriverPath}. */
export function asDriverPath(path: string): DriverPath {
  return path as DriverPath;
}
export { type ProbedServer, probeServer, raceServerProbe, wrongServer } from './server-probe.js';
