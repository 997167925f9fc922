// The read methods of the filesystem driver: read, stat, describe and list, on the folder as it is
// now, without a lock (calls.ts). The walks they make are in snapshot.ts and lookup.ts.
import type {
  DriverCallOptions,
  DriverDescribeOptions,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListOptions,
  DriverPath,
} from '@memdir/core';
import { foldListing } from '@memdir/core/driver';
import type { FolderCalls } from './calls.js';
import { kindOfPath } from './lookup.js';
import { readAt, snapshot } from './snapshot.js';

const EMPTY_ROOT: DriverListing = { kind: 'directory', size: 0, count: 0, entries: [] };

function isNull(result: unknown): boolean {
  return result === null;
}

export function read(
  calls: FolderCalls,
  path: DriverPath,
  options?: DriverCallOptions,
): Promise<DriverFile | { kind: 'directory' } | null> {
  return calls.read(
    'read',
    options,
    (generation) => readAt(generation, path, options?.touch === true),
    isNull,
  );
}

export function stat(
  calls: FolderCalls,
  path: DriverPath,
  options?: DriverCallOptions,
): Promise<'file' | 'directory' | null> {
  return calls.read(
    'stat',
    options,
    async (generation) => {
      if (path === '') return 'directory' as const;
      return generation.memories ? kindOfPath(generation.memories, path) : null;
    },
    isNull,
  );
}

export function describe(
  calls: FolderCalls,
  path: DriverPath,
  options: DriverDescribeOptions,
): Promise<DriverFile | DriverListing | null> {
  return calls.read(
    'describe',
    options,
    async (generation) => {
      const found = await snapshot(generation, path, true, calls.snapshotCall(generation, options));
      if (found === null || !Array.isArray(found)) return found;
      if (path === '' && found.length === 0) return EMPTY_ROOT;
      // A folder with nothing beneath it is no directory (SPEC section 3).
      if (found.length === 0) return null;
      return foldListing(path, found, options.limit);
    },
    (result) => result === null || result === EMPTY_ROOT,
  );
}

export async function* list(
  calls: FolderCalls,
  dir: DriverPath,
  options?: DriverListOptions,
): AsyncIterable<DriverEntry> {
  const found = await calls.read(
    'list',
    options,
    (generation) =>
      snapshot(generation, dir, options?.skipHidden ?? false, calls.snapshotCall(generation, options)),
    (result) => result === null || (Array.isArray(result) && result.length === 0),
  );
  if (Array.isArray(found)) yield* found;
}
