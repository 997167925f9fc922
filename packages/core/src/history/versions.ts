// History as the application sees it: versions in the hosted memory stores' shape (memory paths,
// ISO times), and the checks on what an operator passes in. These are operator calls, not the
// model's, so a bad argument is a MemoryToolError with a plain message, never a model-facing text.
import { MemoryToolError } from '../errors.js';
import { toMemoryPath } from '../path.js';
import type { Actor, DriverVersion, MemoryPath, VersionOperation } from '../types.js';

/** One version of a file: what one change did to it (see docs/history.md). */
export interface MemoryVersion {
  /** `memver_` and 16 digits: ids sort in the order the changes were made in the namespace. */
  readonly id: string;
  /** `mem_...`: the same for one file across renames. */
  readonly fileId: string;
  /** The file's path after the change (for a deletion, the path deleted); null once redacted. */
  readonly path: MemoryPath | null;
  /** For `renamed`: the path before the change; else null. Null once redacted. */
  readonly previousPath: MemoryPath | null;
  readonly operation: VersionOperation;
  /** Lowercase hex SHA-256 of the content's UTF-8 bytes after the change; null for a deletion or once redacted. */
  readonly sha256: string | null;
  /** UTF-8 bytes of the content after the change; null for a deletion or once redacted. */
  readonly size: number | null;
  /** When the change was made, by the backend's clock (ISO 8601, ms). */
  readonly createdAt: string;
  /** Who made the change, as the application said (`actor` options), or null. */
  readonly actor: Actor | null;
  /** The command: one of the six, or `restore`, `sweep` (expiry) or `import`. */
  readonly command: DriverVersion['command'];
  /** The command's operation id: every version of one folder delete or rename has the same. */
  readonly operationId: string;
  /** The tool call's id (`toolUseId` call option), or null. */
  readonly toolUseId: string | null;
  /** For `restored`: the id of the version whose content was written back; else null. */
  readonly restoredFrom: string | null;
  /** When the version was redacted (ISO 8601), or null. */
  readonly redactedAt: string | null;
}

/** A version with its content (`store.version(id)`). */
export interface MemoryVersionWithContent extends MemoryVersion {
  /** The content after the change; null for a deletion or once redacted. */
  readonly content: string | null;
}

/** A time: a `Date`, ms since the epoch, or an ISO 8601 string. */
export type TimeInput = Date | number | string;

/** Which versions `store.history()` returns. Every field narrows; none given is every version. */
export interface HistoryQuery {
  /**
   * A file or a folder (`/memories/...`): versions whose path, or path before a rename, is at or
   * beneath it. For one file across its renames, use `fileId`.
   * @default '/memories' (every version, redacted ones included)
   */
  path?: string | undefined;
  /** Only versions of this file (`mem_...`). @default every file */
  fileId?: string | undefined;
  /** Only versions whose actor has this id. @default every actor */
  actor?: string | undefined;
  /** Only versions made at or after this time. @default no bound */
  since?: TimeInput | undefined;
  /** Only versions made at or before this time. @default no bound */
  until?: TimeInput | undefined;
  /** Only these operations. @default all five */
  operations?: readonly VersionOperation[] | undefined;
  /** The most versions on one page, 1 to 1,000. @default 100 */
  limit?: number | undefined;
  /** The `next` of the previous page. @default the newest version */
  cursor?: string | undefined;
}

/** One page of versions, newest first. */
export interface HistoryPage {
  readonly versions: readonly MemoryVersion[];
  /**
   * Pass as `cursor` for the next page; null when there is none. A page may hold fewer than
   * `limit` versions while `next` is set (a store looks at a bounded number of versions per call).
   */
  readonly next: string | null;
}

/** Options of `store.restore()`. */
export interface RestoreOptions {
  /** Where the content goes (`/memories/...`). @default the version's own path */
  path?: string | undefined;
  /**
   * The SHA-256 (lowercase hex) the content at `path` must have now, or null for "no file may be
   * there": otherwise the restore is refused with `CONFLICT` and nothing changes.
   * @default undefined (replace whatever is there)
   */
  expectSha256?: string | null | undefined;
  /** Who restores, recorded with the new version. @default the store's actor */
  actor?: Actor | undefined;
  /** Recorded with the new version. @default undefined */
  toolUseId?: string | undefined;
}

/** Default of {@link HistoryQuery.limit}. */
export const DEFAULT_HISTORY_LIMIT = 100;
/** The most versions one page may hold. */
export const MAX_HISTORY_LIMIT = 1_000;

const OPERATIONS: readonly VersionOperation[] = ['created', 'modified', 'renamed', 'deleted', 'restored'];
const MAX_ID_CHARS = 256;

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function memoryPath(path: string | null): MemoryPath | null {
  return path === null ? null : toMemoryPath(path);
}

/** A driver's version in the application's shape. */
export function toMemoryVersion(version: DriverVersion): MemoryVersion {
  return {
    id: version.id,
    fileId: version.fileId,
    path: memoryPath(version.path),
    previousPath: memoryPath(version.previousPath),
    operation: version.operation,
    sha256: version.sha256,
    size: version.size,
    createdAt: new Date(version.at).toISOString(),
    actor: version.actor,
    command: version.command,
    operationId: version.operationId,
    toolUseId: version.toolUseId,
    restoredFrom: version.restoredFrom,
    redactedAt: iso(version.redactedAt),
  };
}

/** An operator's bad argument: INVALID_INPUT with a plain message. */
export function badArgument(message: string): MemoryToolError {
  return new MemoryToolError('INVALID_INPUT', message);
}

/** At most 80 characters of a value, for a message. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

/** A time argument in ms. */
export function parseTime(value: TimeInput, name: string): number {
  const ms =
    value instanceof Date
      ? value.getTime()
      : typeof value === 'number'
        ? value
        : typeof value === 'string'
          ? Date.parse(value)
          : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw badArgument(`${name} must be a Date, ms since the epoch or an ISO 8601 time, got ${shown(value)}`);
  }
  return ms;
}

/** A version id argument (`memver_...`). */
export function parseVersionId(value: unknown, name = 'the version id'): string {
  if (typeof value !== 'string' || !value.startsWith('memver_') || value.length > MAX_ID_CHARS) {
    throw badArgument(`${name} must be a version id (memver_...), got ${shown(value)}`);
  }
  return value;
}

/** An id-like string argument (a file id, an actor id, a cursor). */
export function parseId(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_CHARS) {
    throw badArgument(`${name} must be a string of 1 to ${MAX_ID_CHARS} characters, got ${shown(value)}`);
  }
  return value;
}

/** The `limit` of a history page. */
export function parseLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_HISTORY_LIMIT;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_HISTORY_LIMIT) {
    throw badArgument(`limit must be an integer from 1 to ${MAX_HISTORY_LIMIT}, got ${shown(value)}`);
  }
  return value;
}

/** The `operations` filter. */
export function parseOperations(value: unknown): readonly VersionOperation[] {
  if (!Array.isArray(value) || value.some((item) => !OPERATIONS.includes(item as VersionOperation))) {
    throw badArgument(
      `operations must be a list of ${OPERATIONS.join(', ')}, got ${shown(JSON.stringify(value))}`,
    );
  }
  return value as VersionOperation[];
}

/** The `expectSha256` of a restore: 64 lowercase hex digits, or null. */
export function parseSha256(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) {
    throw badArgument(
      `expectSha256 must be a SHA-256 in 64 lowercase hex digits, or null, got ${shown(value)}`,
    );
  }
  return value;
}
