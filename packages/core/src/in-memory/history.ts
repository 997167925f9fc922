// The versions of one namespace of the in-memory backend: what a server keeps in a versions table
// with an index per file, here three maps. Ids come from one counter per namespace, so they sort in
// commit order; pruning follows the kit's `prunable`, a bounded number per call.
import {
  appendFileVersion,
  nextVersionSequence,
  PRUNE_PER_CHANGE,
  prunable,
  removeSortedId,
  sequenceVersionId,
  sha256Hex,
  treeOfVersions,
  versionPage,
} from '../driver/history.js';
import { checkImportedVersions } from '../driver/imported-versions.js';
import { refuseConflict } from '../driver/refusals.js';
import { utf8Length } from '../path.js';
import type {
  DriverChangeOptions,
  DriverPath,
  DriverPointInTime,
  DriverTreeEntry,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
} from '../types.js';

/** A version as the log keeps it: redaction rewrites it in place. */
export type StoredVersion = {
  -readonly [Key in keyof DriverVersionWithContent]: DriverVersionWithContent[Key];
};

const DAY_MS = 86_400_000;

/** What retention keeps (a store's `history` option, as a change record carries it). */
export interface Retention {
  readonly keepVersions: number;
  readonly keepDays: number;
}

/** The version without its content, as the contract returns versions. */
export function withoutContent(version: StoredVersion): DriverVersion {
  const { content: _content, ...rest } = version;
  return rest;
}

export class VersionLog {
  /** The last sequence number given out (ids are never reused). */
  #sequence = 0;
  readonly #byId = new Map<string, StoredVersion>();
  /** Every kept id, ascending: the commit order. */
  readonly #order: string[] = [];
  /** Each file's kept ids, ascending. */
  readonly #byFile = new Map<string, string[]>();

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): StoredVersion | undefined {
    return this.#byId.get(id);
  }

  /** The newest kept version of a file. */
  latestOf(fileId: string): StoredVersion | undefined {
    const ids = this.#byFile.get(fileId);
    return ids && ids.length > 0 ? this.#byId.get(ids[ids.length - 1]!) : undefined;
  }

  /** Records a new version (the next id), then prunes its file as the change's retention says. */
  record(fields: Omit<StoredVersion, 'id'>, retention: Retention): StoredVersion {
    this.#sequence = nextVersionSequence(this.#sequence);
    const version: StoredVersion = { ...fields, id: sequenceVersionId(this.#sequence) };
    this.#add(version);
    // Times only grow (the backend's clock): when the file's oldest version is young, none is old.
    const oldest = this.#byId.get(this.#byFile.get(version.fileId)![0]!)!;
    if (version.at - oldest.at >= retention.keepDays * DAY_MS) {
      this.prune(version.fileId, retention, version.at, PRUNE_PER_CHANGE);
    }
    return version;
  }

  #add(version: StoredVersion): void {
    this.#byId.set(version.id, version);
    this.#order.push(version.id);
    appendFileVersion(this.#byFile, version.fileId, version.id);
  }

  #remove(id: string): void {
    const version = this.#byId.get(id);
    if (!version) return;
    this.#byId.delete(id);
    removeSortedId(this.#order, id);
    const ids = this.#byFile.get(version.fileId)!;
    removeSortedId(ids, id);
    if (ids.length === 0) this.#byFile.delete(version.fileId);
  }

  /** Removes at most `limit` of a file's versions that `retention` no longer keeps, judged at `now`. */
  prune(fileId: string, retention: Retention, now: number, limit: number): number {
    const ids = this.#byFile.get(fileId);
    if (!ids || ids.length <= retention.keepVersions) return 0;
    const newestFirst = ids.map((id) => this.#byId.get(id)!).reverse();
    const doomed = prunable(newestFirst, retention, now, limit).map((index) => newestFirst[index]!.id);
    for (const id of doomed) this.#remove(id);
    return doomed.length;
  }

  /** Prunes every file, deleted ones included, removing at most `budget` versions. */
  pruneAll(retention: Retention, now: number, budget: number): number {
    let pruned = 0;
    for (const fileId of [...this.#byFile.keys()]) {
      if (pruned >= budget) break;
      pruned += this.prune(fileId, retention, now, budget - pruned);
    }
    return pruned;
  }

  /** Removes at most `budget` versions, oldest first (a namespace being dropped). */
  clear(budget: number): number {
    const doomed = this.#order.slice(0, budget);
    for (const id of doomed) this.#remove(id);
    return doomed.length;
  }

  /** Newest first, from below the cursor (the kit's page of a history kept in JavaScript). */
  list(query: DriverVersionQuery): DriverVersionPage {
    const ids =
      query.fileId === undefined ? this.#order : (this.#byFile.get(query.fileId) ?? ([] as string[]));
    return versionPage(ids, (id) => this.#byId.get(id)!, query, withoutContent);
  }

  /** Every file's newest version at or before `at`, unless it is a deletion or redacted. */
  treeAt(at: DriverPointInTime, under: string): DriverTreeEntry[] {
    return treeOfVersions(this.#byFile, (id) => this.#byId.get(id)!, at, under);
  }

  /** Writes versions of another history as they are (`importVersions`). */
  import(versions: readonly DriverVersionWithContent[]): void {
    const sequences = checkImportedVersions(versions);
    if (versions.length === 0) return;
    const last = this.#order[this.#order.length - 1];
    if (last !== undefined && last >= versions[0]!.id) throw refuseConflict('');
    for (const version of versions) this.#add({ ...version });
    this.#sequence = Math.max(this.#sequence, sequences[sequences.length - 1]!);
  }
}

/** What a change records of one file, beside what the record and the call give. */
export interface FileChange {
  readonly fileId: string;
  readonly path: DriverPath;
  readonly previousPath?: DriverPath | null;
  readonly operation: DriverVersion['operation'];
  /** The content after the change; null for a deletion. */
  readonly content: string | null;
  /** Its UTF-8 size, when the caller knows it already. */
  readonly size?: number;
  readonly restoredFrom?: string | null;
}

/**
 * Records `change` in `log` when the call carries a record (history on), in the same synchronous
 * step as the change itself, at `at`; returns the version, or undefined when nothing is recorded.
 */
export function recordChange(
  log: VersionLog,
  options: DriverChangeOptions,
  change: FileChange,
  at: number,
): StoredVersion | undefined {
  const record = options.record;
  if (!record) return undefined;
  const { content } = change;
  return log.record(
    {
      fileId: change.fileId,
      path: change.path,
      previousPath: change.previousPath ?? null,
      operation: change.operation,
      sha256: content === null ? null : sha256Hex(content),
      size: content === null ? null : (change.size ?? utf8Length(content)),
      at,
      actor: record.actor,
      command: record.command,
      operationId: options.op,
      toolUseId: record.toolUseId,
      restoredFrom: change.restoredFrom ?? null,
      redactedAt: null,
      content,
    },
    record,
  );
}
