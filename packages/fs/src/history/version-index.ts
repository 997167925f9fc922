// The in-memory index of a namespace's history file (log.ts): every kept version without
// its content, where its line is, in commit order and per file, and which file id each live path
// has. Listings and the tree at a past point are computed here, with the reference's rules
// (packages/core/src/in-memory/history.ts); a page of a listing is the kit's `versionPage`.
import type {
  DriverPointInTime,
  DriverTreeEntry,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
} from '@memdir/core';
import { appendFileVersion, removeSortedId, treeOfVersions, versionPage } from '@memdir/core/driver';

export interface IndexEntry {
  version: DriverVersion;
  /** The line that holds the version's content. */
  readonly offset: number;
  readonly length: number;
  /** Its share of the line's bytes (dead once it is pruned). */
  readonly bytes: number;
}

export class VersionIndex {
  readonly #byId = new Map<string, IndexEntry>();
  /** Every kept id, ascending: the commit order. */
  readonly #order: string[] = [];
  readonly #byFile = new Map<string, string[]>();
  /** Each live path's file id, as the versions added so far leave it. */
  readonly #livePaths = new Map<string, string>();

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): IndexEntry | undefined {
    return this.#byId.get(id);
  }

  /** The newest id (the highest kept), or undefined. */
  get last(): string | undefined {
    return this.#order[this.#order.length - 1];
  }

  add(version: DriverVersion, offset: number, length: number, bytes = length): void {
    this.#byId.set(version.id, { version, offset, length, bytes });
    // Ids come in ascending order (changes under the lock, imports refused otherwise).
    this.#order.push(version.id);
    appendFileVersion(this.#byFile, version.fileId, version.id);
    const { path, previousPath, fileId } = version;
    if (previousPath !== null && this.#livePaths.get(previousPath) === fileId)
      this.#livePaths.delete(previousPath);
    if (path === null) return;
    if (version.operation === 'deleted') {
      if (this.#livePaths.get(path) === fileId) this.#livePaths.delete(path);
    } else {
      this.#livePaths.set(path, fileId);
    }
  }

  /** Removes a version; returns the bytes its line share held (0 when unknown). */
  remove(id: string): number {
    const entry = this.#byId.get(id);
    if (!entry) return 0;
    this.#byId.delete(id);
    removeSortedId(this.#order, id);
    const ids = this.#byFile.get(entry.version.fileId)!;
    removeSortedId(ids, id);
    if (ids.length === 0) this.#byFile.delete(entry.version.fileId);
    return entry.bytes;
  }

  /** Every kept entry, oldest first. */
  *ordered(): Iterable<IndexEntry> {
    for (const id of this.#order) yield this.#byId.get(id)!;
  }

  /** A file's kept versions, newest first. */
  versionsOf(fileId: string): DriverVersion[] {
    const ids = this.#byFile.get(fileId) ?? [];
    const out: DriverVersion[] = [];
    for (let index = ids.length - 1; index >= 0; index--) out.push(this.#byId.get(ids[index]!)!.version);
    return out;
  }

  /** A file's kept versions: how many, and the oldest (pruning looks no further when it is young). */
  oldestOf(fileId: string): { readonly count: number; readonly oldest: DriverVersion | undefined } {
    const ids = this.#byFile.get(fileId);
    if (!ids || ids.length === 0) return { count: 0, oldest: undefined };
    return { count: ids.length, oldest: this.#byId.get(ids[0]!)!.version };
  }

  latestOf(fileId: string): DriverVersion | undefined {
    const ids = this.#byFile.get(fileId);
    return ids && ids.length > 0 ? this.#byId.get(ids[ids.length - 1]!)!.version : undefined;
  }

  /** Every file id that has kept versions. */
  fileIds(): string[] {
    return [...this.#byFile.keys()];
  }

  /**
   * The file id of the live file at `path` as history last saw it (its newest version put it
   * there). Undefined when history knows none: the caller makes a new id.
   */
  fileIdAt(path: string): string | undefined {
    return this.#livePaths.get(path);
  }

  /** Newest first, from below the cursor (the kit's page of a history kept in JavaScript). */
  list(query: DriverVersionQuery): DriverVersionPage {
    const ids =
      query.fileId === undefined ? this.#order : (this.#byFile.get(query.fileId) ?? ([] as string[]));
    return versionPage(ids, (id) => this.#byId.get(id)!.version, query);
  }

  /** Every file's newest version at or before `at`, unless it is a deletion or redacted. */
  treeAt(at: DriverPointInTime, under: string): DriverTreeEntry[] {
    return treeOfVersions(this.#byFile, (id) => this.#byId.get(id)!.version, at, under);
  }
}
