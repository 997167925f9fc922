// The size of each folder on a page of the tree: its files and bytes, summed from the record
// listing (paths, sizes and hashes, never content), a page of 1,000 records at a time. A request
// looks at a bounded number of records in all, so a page of huge folders still answers at once:
// a folder whose count was cut short says "at least".

import type { MemdirStore } from '@memdir/core';

/** Records one page of the tree reads at most to size its folders. */
export const SIZE_SCAN = 50_000;
/** Folders sized at once. */
const CONCURRENCY = 4;

/** What a folder holds, all levels down. */
export interface FolderSize {
  readonly files: number;
  readonly bytes: number;
  /** False when the scan stopped at its bound: the folder holds at least this much. */
  readonly complete: boolean;
}

/** The size of each of `folders` (paths as the store gives them), by path. */
export async function folderSizes(
  store: MemdirStore,
  folders: readonly string[],
): Promise<Map<string, FolderSize>> {
  const sizes = new Map<string, FolderSize>();
  let budget = SIZE_SCAN;
  let next = 0;
  const sizeOne = async (path: string) => {
    let files = 0;
    let bytes = 0;
    let cursor: string | undefined;
    let complete = false;
    while (budget > 0) {
      const limit = Math.min(1000, budget);
      budget -= limit;
      const page = await store.records.list({ path, depth: 0, limit, cursor });
      for (const item of page.items) {
        if (item.kind !== 'file') continue;
        files++;
        bytes += item.size;
      }
      cursor = page.next ?? undefined;
      if (cursor === undefined) {
        complete = true;
        break;
      }
    }
    sizes.set(path, { files, bytes, complete });
  };
  const worker = async () => {
    while (next < folders.length) await sizeOne(folders[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, folders.length) }, worker));
  return sizes;
}
