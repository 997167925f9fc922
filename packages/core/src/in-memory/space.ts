// The files of one namespace of the in-memory backend, with what the driver keeps beside them: a
// count of files beneath each directory (so a directory's existence is one lookup), the
// namespace's totals (quotas and usage read them in the same step as a change), each file's id and
// times (history, expiry), and the namespace's versions.

import type { DriverEntry, DriverRecord } from '../driver/contract.js';
import { sha256Hex } from '../driver/history.js';
import type { DriverPath } from '../path.js';
import { driverAncestors, isBeneath, utf8Length } from '../path.js';
import { VersionLog } from './history.js';

export interface StoredFile {
  readonly content: string;
  readonly version: string;
  readonly size: number;
  /** The same across renames and content changes. */
  readonly fileId: string;
  /** Lowercase hex SHA-256 of the content. */
  readonly sha256: string;
  /** When the file was made, in the backend's ms. */
  readonly createdAt: number;
  /** When the content last changed (or the file moved), in the backend's ms. */
  readonly changedAt: number;
  /** The version holding the current content (history on), or null. */
  versionId: string | null;
  /** When a touching read last read it (expiry with `refreshOnRead`), or 0. */
  touchedAt: number;
}

export class Space {
  readonly files = new Map<string, StoredFile>();
  readonly directories = new Map<string, number>();
  /** Each file's path by its id. */
  readonly byFileId = new Map<string, string>();
  /** UTF-8 bytes of all files. */
  bytes = 0;
  readonly history = new VersionLog();
  /** The time of the last change to a file, or null before the first. */
  lastChangeAt: number | null = null;

  /**
   * Puts a file at `path`. It keeps its creation time and hash when `carried` gives them (a moved
   * file), else its creation time when the same file was there, else it is made now.
   */
  put(
    path: string,
    content: string,
    version: string,
    fileId: string,
    at: number,
    carried?: Pick<StoredFile, 'createdAt' | 'sha256'>,
  ): StoredFile {
    const old = this.files.get(path);
    if (!old) {
      for (const ancestor of driverAncestors(path)) {
        this.directories.set(ancestor, (this.directories.get(ancestor) ?? 0) + 1);
      }
    }
    const size = utf8Length(content);
    this.bytes += size - (old?.size ?? 0);
    const file: StoredFile = {
      content,
      version,
      size,
      fileId,
      sha256: carried?.sha256 ?? sha256Hex(content),
      createdAt: carried?.createdAt ?? (old?.fileId === fileId ? old.createdAt : at),
      changedAt: at,
      versionId: null,
      touchedAt: 0,
    };
    this.files.set(path, file);
    if (old && old.fileId !== fileId) this.byFileId.delete(old.fileId);
    this.byFileId.set(fileId, path);
    this.lastChangeAt = at;
    return file;
  }

  drop(path: string, at: number): StoredFile | undefined {
    const old = this.files.get(path);
    if (!old) return undefined;
    this.files.delete(path);
    this.byFileId.delete(old.fileId);
    this.bytes -= old.size;
    for (const ancestor of driverAncestors(path)) {
      const count = this.directories.get(ancestor)! - 1;
      if (count === 0) this.directories.delete(ancestor);
      else this.directories.set(ancestor, count);
    }
    this.lastChangeAt = at;
    return old;
  }

  kind(path: string): 'file' | 'directory' | null {
    if (path === '' || this.directories.has(path)) return 'directory';
    return this.files.has(path) ? 'file' : null;
  }

  /** The file that is an ancestor of `path`, if any (a write there is a PATH_CONFLICT). */
  fileAbove(path: string): string | undefined {
    return driverAncestors(path).find((candidate) => this.files.has(candidate));
  }

  /** The files at or beneath `path`. */
  subtree(path: string): string[] {
    if (this.files.has(path)) return [path];
    if (!this.directories.has(path) && path !== '') return [];
    return [...this.files.keys()].filter((file) => isBeneath(file, path));
  }

  /** The record of the file at `path`, with its content when asked. */
  record(path: string, withContent = false): DriverRecord | null {
    const file = this.files.get(path);
    if (!file) return null;
    const record: DriverRecord = {
      kind: 'file',
      path: path as DriverPath,
      fileId: file.fileId,
      sha256: file.sha256,
      size: file.size,
      createdAt: file.createdAt,
      changedAt: file.changedAt,
      versionId: file.versionId,
    };
    return withContent ? { ...record, content: file.content } : record;
  }

  /** The path of the file whose id is `fileId`, if it is here. */
  pathOf(fileId: string): string | undefined {
    return this.byFileId.get(fileId);
  }

  entries(dir: string): DriverEntry[] {
    return this.subtree(dir)
      .filter((path) => path !== dir)
      .map((path) => ({ path: path as DriverPath, size: this.files.get(path)!.size }));
  }

  /** True when the namespace holds neither a file nor a version. */
  get empty(): boolean {
    return this.files.size === 0 && this.history.size === 0;
  }
}

/** What every namespace of one in-memory backend shares: the spaces, by namespace chain, and the clock. */
export class Backend {
  readonly spaces = new Map<string, Space>();

  constructor(
    /** The backend's clock (a server's time), in ms. */
    readonly now: () => number,
  ) {}

  space(key: string): Space {
    let found = this.spaces.get(key);
    if (!found) {
      found = new Space();
      this.spaces.set(key, found);
    }
    return found;
  }
}
