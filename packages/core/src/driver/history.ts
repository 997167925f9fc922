// What drivers with history share: ids in the hosted stores' shapes, content hashes, pruning, and
// the filters and ordered id lists of a version listing kept in JavaScript.
import { createHash, randomBytes } from 'node:crypto';
import type { MemoryToolError } from '../errors.js';
import { isBeneath } from '../path.js';
import type {
  DriverPath,
  DriverPointInTime,
  DriverTreeEntry,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
} from '../types.js';
import { backendFailure } from './refusals.js';

/** A new file id: `mem_` and 22 random characters (128 bits), the same for one file across renames. */
export function newFileId(): string {
  return `mem_${randomBytes(16).toString('base64url')}`;
}

/**
 * The version id of a namespace's `sequence`-th change (1, 2, ...): `memver_` and the number in 16
 * digits, so ids sort in commit order as strings. For drivers that keep a counter per namespace.
 */
export function sequenceVersionId(sequence: number): string {
  return `memver_${String(sequence).padStart(16, '0')}`;
}

/**
 * The highest sequence a history numbers a version with (2^53 - 1): past it, ids would no longer be
 * exact integers in JavaScript (nor in a backend's doubles), and two versions could share one.
 */
export const MAX_VERSION_SEQUENCE = Number.MAX_SAFE_INTEGER;

/**
 * The sequence of the first of `count` new versions after `newest`, the highest the namespace has
 * used (NaN when the history holds an id no history makes). A history already past its exact range
 * (an archive imported before imports were checked could leave `memver_9999999999999999`) gets a
 * BACKEND failure (`misconfigured`) and no new version, instead of ids that round, collide or
 * read `NaN`. For drivers that number versions in JavaScript.
 */
export function nextVersionSequence(newest: number, count = 1): number {
  if (!(Number.isSafeInteger(newest) && newest >= 0 && newest <= MAX_VERSION_SEQUENCE - count)) {
    throw historyOutOfIds();
  }
  return newest + 1;
}

/**
 * Why a history past its exact range records no change: the detail of {@link historyOutOfIds}, for
 * a driver that learns it from its backend (PostgreSQL's counter).
 */
export const OUT_OF_VERSION_IDS = `its history holds a version id past ${sequenceVersionId(MAX_VERSION_SEQUENCE)}, the highest that stays exact, so no change can be recorded; copy the files to a store with a new history`;

/** The failure of a change whose history has no exact version id left (see {@link nextVersionSequence}). */
export function historyOutOfIds(): MemoryToolError {
  return backendFailure({ detail: OUT_OF_VERSION_IDS, reason: 'misconfigured' });
}

/** The sequence number of an id made by {@link sequenceVersionId}, or NaN for another id. */
export function versionSequence(id: string): number {
  return /^memver_\d{16}$/.test(id) ? Number(id.slice(7)) : Number.NaN;
}

/** Lowercase hex SHA-256 of `content`'s UTF-8 bytes (a version's `sha256`). */
export function sha256Hex(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

const DAY_MS = 86_400_000;

/**
 * The most versions of one file a change prunes in its own step (see
 * `DriverChangeOptions.record`): enough to keep a file at `keepVersions` while it is edited (each
 * change adds one), and to catch up after `keepVersions` was lowered; the rest is left to `sweep`.
 */
export const PRUNE_PER_CHANGE = 4;

/**
 * Which of one file's versions retention removes: those at least `keepDays` old (judged at `now`)
 * that are not among the newest `keepVersions`, never the newest one of a live file.
 * `versions` are the file's, newest first; returns their indices to remove, at most `limit`,
 * oldest first.
 */
export function prunable(
  versions: readonly { readonly at: number }[],
  retention: { readonly keepVersions: number; readonly keepDays: number },
  now: number,
  limit: number,
): number[] {
  const age = retention.keepDays * DAY_MS;
  const out: number[] = [];
  for (let index = versions.length - 1; index >= Math.max(1, retention.keepVersions); index--) {
    if (out.length >= limit) break;
    // "Older than keepDays": keepDays 0 keeps nothing for its age alone.
    if (now - versions[index]!.at >= age) out.push(index);
  }
  return out;
}

/** Whether `path` is `under` or lies beneath it (`null`, a version with no path, is neither). */
export function isAtOrBeneath(path: string | null, under: string): boolean {
  return path !== null && (path === under || isBeneath(path, under));
}

/**
 * Whether `version` passes every filter of `query` but the cursor: its path or previous path at or
 * beneath `query.path`, its actor, its time within `since`..`until`, its operation.
 */
export function versionMatches(
  version: Pick<DriverVersion, 'path' | 'previousPath' | 'actor' | 'at' | 'operation'>,
  query: DriverVersionQuery,
): boolean {
  if (query.path !== undefined && query.path !== '') {
    if (!isAtOrBeneath(version.path, query.path) && !isAtOrBeneath(version.previousPath, query.path))
      return false;
  }
  if (query.actor !== undefined && version.actor?.id !== query.actor) return false;
  if (query.since !== undefined && version.at < query.since) return false;
  if (query.until !== undefined && version.at > query.until) return false;
  if (query.operations !== undefined && !query.operations.includes(version.operation)) return false;
  return true;
}

/** The index of the first id in `ids` (ascending, as version ids sort) that is not below `id`. */
export function lowerBoundId(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** How many versions one page of {@link versionPage} looks at, at most (a page may then come back short). */
export const VERSION_SCAN_LIMIT = 10_000;

/**
 * One `listVersions` page of a history kept in JavaScript: newest first from below `query.cursor`
 * over `ids` (every kept id of the listing, ascending: the commit order), the versions that pass
 * {@link versionMatches}, until `query.limit` of them or `scanLimit` looked at. When it stops early
 * the cursor is the last version looked at (exclusive), so the next page goes on from there.
 * `show` makes what the page holds of a version (a copy without its content, say).
 */
export function versionPage<V extends DriverVersion>(
  ids: readonly string[],
  versionOf: (id: string) => V,
  query: DriverVersionQuery,
  show: (version: V) => DriverVersion = (version) => version,
  scanLimit = VERSION_SCAN_LIMIT,
): DriverVersionPage {
  let index = (query.cursor === undefined ? ids.length : lowerBoundId(ids, query.cursor)) - 1;
  const versions: DriverVersion[] = [];
  for (let scanned = 0; index >= 0; index--, scanned++) {
    if (versions.length === query.limit || scanned === scanLimit) {
      return { versions, next: ids[index + 1]! };
    }
    const version = versionOf(ids[index]!);
    if (versionMatches(version, query)) versions.push(show(version));
  }
  return { versions, next: null };
}

/** Appends `id`, newer than every id kept, to the ids of `fileId` in `byFile` (the ids of each file, ascending). */
export function appendFileVersion(byFile: Map<string, string[]>, fileId: string, id: string): void {
  const ids = byFile.get(fileId);
  if (ids) ids.push(id);
  else byFile.set(fileId, [id]);
}

/** Removes `id` from the ascending list `ids`, if it is there. */
export function removeSortedId(ids: string[], id: string): void {
  const index = lowerBoundId(ids, id);
  if (ids[index] === id) ids.splice(index, 1);
}

/**
 * `treeAt` of a history kept in JavaScript: every file's newest version at or before `at` (by time
 * or by id), at or beneath `under`, unless that version is a deletion or redacted. `byFile` maps
 * each file id to its version ids, ascending; `versionOf` looks an id up.
 */
export function treeOfVersions(
  byFile: ReadonlyMap<string, readonly string[]>,
  versionOf: (id: string) => DriverVersion,
  at: DriverPointInTime,
  under: string,
): DriverTreeEntry[] {
  const before =
    'time' in at
      ? (version: DriverVersion) => version.at <= at.time
      : (version: DriverVersion) => version.id <= at.version;
  const tree: DriverTreeEntry[] = [];
  for (const [fileId, ids] of byFile) {
    let then: DriverVersion | undefined;
    for (let index = ids.length - 1; index >= 0 && !then; index--) {
      const version = versionOf(ids[index]!);
      if (before(version)) then = version;
    }
    if (!then || then.operation === 'deleted' || then.redactedAt !== null) continue;
    if (under !== '' && !isAtOrBeneath(then.path, under)) continue;
    tree.push({
      path: then.path as DriverPath,
      version: then.id,
      fileId,
      size: then.size!,
      sha256: then.sha256!,
    });
  }
  return tree;
}
