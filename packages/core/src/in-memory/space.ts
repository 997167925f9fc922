// The files of one namespace of the in-memory backend, with what the driver keeps beside them: a
// count of files beneath each directory (so a directory's existence is one lookup), and the
// namespace's totals (quotas and usage read them in the same step as a change).
import { driverAncestors, isBeneath, utf8Length } from '../path.js';
import type { DriverEntry, DriverPath } from '../types.js';

export interface StoredFile {
  readonly content: string;
  readonly version: string;
  readonly size: number;
}

export class Space {
  readonly files = new Map<string, StoredFile>();
  readonly directories = new Map<string, number>();
  /** UTF-8 bytes of all files. */
  bytes = 0;

  put(path: string, content: string, version: string): void {
    const old = this.files.get(path);
    if (!old) {
      for (const ancestor of driverAncestors(path)) {
        this.directories.set(ancestor, (this.directories.get(ancestor) ?? 0) + 1);
      }
    }
    const size = utf8Length(content);
    this.bytes += size - (old?.size ?? 0);
    this.files.set(path, { content, version, size });
  }

  drop(path: string): void {
    const old = this.files.get(path);
    if (!old) return;
    this.files.delete(path);
    this.bytes -= old.size;
    for (const ancestor of driverAncestors(path)) {
      const count = this.directories.get(ancestor)! - 1;
      if (count === 0) this.directories.delete(ancestor);
      else this.directories.set(ancestor, count);
    }
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
}
