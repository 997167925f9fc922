// The driver's reads, each one statement (one round trip, one snapshot): a file with its version or
// a folder (`read`; reads that record no time are batched per namespace, read-batch.ts), `stat`,
// `describe` (a `view`, see sql.ts) and the listing of a folder.
import type {
  DriverCallOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListOptions,
  DriverPath,
} from '@memdir/core';
import { asDriverPath } from '@memdir/core/driver';
import type { Space } from './backend.js';
import { describeOutcome } from './outcomes.js';
import type { ReadBatcher } from './read-batch.js';
import { subtree } from './sql.js';

/** `MemoryDriver.read`: the file at `path` with its version, a directory, or null. */
export async function read(
  { backend, ns }: Space,
  reads: ReadBatcher,
  path: DriverPath,
  options: DriverCallOptions | undefined,
): Promise<DriverFile | DriverDirectory | null> {
  if (path === '') return { kind: 'directory' };
  // Reads that record their time go alone; the others of this namespace may go together.
  if (!options?.touch) return reads.read(path, options);
  const [row] = await backend.run(
    { text: backend.sql.readTouch, values: [ns, path, ...subtree(path)], binary: true },
    false,
    options,
  );
  if (!row) return null;
  if (row[0] === 'd') return { kind: 'directory' };
  return { kind: 'file', content: row[1]!, version: row[2]! };
}

/** `MemoryDriver.stat`. */
export async function stat(
  { backend, ns }: Space,
  path: DriverPath,
  options: DriverCallOptions | undefined,
): Promise<'file' | 'directory' | null> {
  if (path === '') return 'directory';
  const [row] = await backend.run(
    { text: backend.sql.stat, values: [ns, path, ...subtree(path)] },
    false,
    options,
  );
  const kind = row?.[0];
  return kind === 'f' ? 'file' : kind === 'd' ? 'directory' : null;
}

/** `MemoryDriver.describe`: a `view` in one statement, from one snapshot (see sql.ts). */
export async function describe(
  { backend, ns }: Space,
  path: DriverPath,
  options: DriverDescribeOptions,
): Promise<DriverFile | DriverListing | null> {
  const root = path === '';
  const sql = backend.sql;
  const touch = options.touch === true && !root;
  const [row] = await backend.run(
    {
      text: root ? sql.describeRoot : touch ? sql.describeDirectoryTouch : sql.describeDirectory,
      values: [ns, path, Math.max(0, options.limit), ...(root ? [] : subtree(path))],
      binary: true,
    },
    false,
    options,
  );
  return row ? describeOutcome(row) : null;
}

/** `MemoryDriver.list`: the files beneath `dir`. */
export async function* list(
  { backend, ns }: Space,
  dir: DriverPath,
  options: DriverListOptions | undefined,
): AsyncIterable<DriverEntry> {
  const query =
    dir === ''
      ? { text: backend.sql.listRoot, values: [ns] }
      : { text: backend.sql.listDirectory, values: [ns, ...subtree(dir)] };
  for (const row of await backend.run(query, false, options)) {
    yield { path: asDriverPath(row[0]!), size: Number(row[1]) };
  }
}
