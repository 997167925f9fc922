// The files of one namespace of the in-memory backend, with what the driver keeps beside them: a
// count of files beneath each directory (so a directory's existence is one lookup), the
// namespace's totals (quotas and usage read them in the same step as a change), each file's id and
// times (history, expiry), and the namespace's versions.

import type { DriverEntry } from '../driver/contract.js';
import type { DriverPath } from '../path.js';
import { driverAncestors, isBeneath, utf8Length } from '../path.js';
import { VersionLog } from './history.js';

export interface StoredFile {
  readonly content: string;
  readonly version: string;
  readonly size: number;
  /** The same across renames (history). */
  readonly fileId: string;
  /** When the content last changed (or the file moved), in the backend's ms. */
  readonly changedAt: number;
  /** When a touching read last read it (expiry with `refreshOnRead`), or 0. */
  touchedAt: number;
}

export class Space {
  readonly files = new Map<string, StoredFile>();
  readonly directories = new Map<string, number>();
  /** UTF-8 bytes of all files. */
  bytes = 0;
  readonly history = new VersionLog();
  /** The time of the last change to a file, or null before the first. */
  lastChangeAt: number | null = null;

  put(path: string, content: string, version: string, fileId: string, at: number): StoredFile {
    const old = this.files.get(path);
    if (!old) {
      for (const ancestor of driverAncestors(path)) {
        this.directories.set(ancestor, (this.directories.get(ancestor) ?? 0) + 1);
      }
    }
    const size = utf8Length(content);
    this.bytes += size - (old?.size ?? 0);
    const file: StoredFile = { content, version, size, fileId, changedAt: at, touchedAt: 0 };
    this.files.set(path, file);
    this.lastChangeAt = at;
    return file;
  }

  drop(path: string, at: number): StoredFile | undefined {
    const old = this.files.get(path);
    if (!old) return undefined;
    this.files.delete(path);
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
