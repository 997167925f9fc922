// What identifies a file's bytes on disk without reading them (a record keeps it, a written
// temporary file gives it): a leaf, so the temporary files import no circle.
import type * as fs from 'node:fs';

/** A file's inode, size and mtime (ns), as a record keeps them. */
export interface FileStat {
  readonly ino: string;
  readonly size: number;
  readonly mtime: string;
}

export function fileStatOf(info: fs.BigIntStats): FileStat {
  return { ino: String(info.ino), size: Number(info.size), mtime: String(info.mtimeNs) };
}
