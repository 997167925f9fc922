// What the driver checks share: shorthands for driver calls, a reference tree, and assertions on
// refusals and listings.

import type { DriverEntry, DriverListing, DriverPath, MemoryDriver, WriteExpectation } from '@memdir/core';
import { isMemoryToolError, type MemoryToolError, type MemoryToolErrorCode } from '@memdir/core';
import { utf8Length } from '@memdir/core/driver';
import { expect } from 'vitest';
import { operationId } from '../suite.js';

export function p(path: string): DriverPath {
  return path as DriverPath;
}

export function put(driver: MemoryDriver, path: string, content: string, expect?: WriteExpectation) {
  return driver.write(p(path), content, { op: operationId(), expect });
}

export async function seedFiles(
  driver: MemoryDriver,
  files: Readonly<Record<string, string>>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) await put(driver, path, content);
}

export async function listAll(driver: MemoryDriver, dir: string, skipHidden = false): Promise<DriverEntry[]> {
  const entries: DriverEntry[] = [];
  for await (const entry of driver.list(p(dir), { skipHidden })) entries.push(entry);
  return entries;
}

/** `[path, size]` of each entry, sorted by path (duplicates kept, so they show). */
export function sortedEntries(entries: readonly DriverEntry[]): Array<[string, number]> {
  return entries
    .map((entry): [string, number] => [entry.path, entry.size])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every file the driver holds with its content: equal before and after a call that wrote nothing. */
export async function contents(driver: MemoryDriver): Promise<Record<string, string | null>> {
  const files: Record<string, string | null> = {};
  for (const [path] of sortedEntries(await listAll(driver, ''))) {
    const node = await driver.read(p(path));
    files[path] = node?.kind === 'file' ? node.content : null;
  }
  return files;
}

/** `files` as `list` must report them: every path with its UTF-8 size, sorted. */
export function expectedEntries(files: Readonly<Record<string, string>>, dir = ''): Array<[string, number]> {
  return Object.entries(files)
    .filter(([path]) => dir === '' || path.startsWith(`${dir}/`))
    .map(([path, content]): [string, number] => [path, utf8Length(content)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Expects `promise` to reject with a driver refusal: a MemoryToolError of `code` whose `path` is `path`. */
export async function expectRefusal(
  promise: Promise<unknown>,
  code: MemoryToolErrorCode,
  path: string,
): Promise<void> {
  let result: unknown;
  try {
    result = await promise;
  } catch (error) {
    expect(isMemoryToolError(error), `expected a MemoryToolError refusal, got ${String(error)}`).toBe(true);
    const refusal = error as MemoryToolError;
    expect({ code: refusal.code, path: refusal.path }).toEqual({ code, path });
    return;
  }
  throw new Error(
    `Expected the driver to refuse with ${code} (path ${JSON.stringify(path)}), but the call succeeded with ${JSON.stringify(result)}`,
  );
}

/** A tree with everything a listing must get right, as driver paths. */
export const TREE: Readonly<Record<string, string>> = {
  'top.md': 'top',
  'notes/a.md': 'alpha',
  'notes/deep/er/x.md': 'x',
  'notes/deep/y.md': 'yy',
  'notes/.git/HEAD': 'ref: main',
  'notes/node_modules/m/index.js': 'module',
  '.hidden/secret.md': 'secret',
  '.hidden/sub/inner.md': 'inner',
  'node_modules/pkg.md': 'pkg',
  'only-hidden/.keep': 'keep',
  'only-hidden/deep/.x/y.md': 'y',
  // Siblings that share a prefix with the directory `a`.
  'a/x.md': 'ax',
  'a b/x.md': 'a space b',
  'a-b/y.md': 'a-b',
  'ab.md': 'ab',
  // Names whose UTF-16 order (the listing's) differs from UTF-8 byte and code point order.
  'u/\ue000': 'private use',
  'u/\uff5a': 'fullwidth z',
  'u/\u{10000}': 'linear b',
  'u/\u{1f600}': 'grinning',
  'u/z': 'z',
  '\u{1f600}/a.md': 'astral directory',
  '\ue000/b.md': 'private use directory',
  'caf\u00e9/menu.md': 'caf\u00e9 \u{1f600}',
  // Over 64 KiB: a driver that reads in chunks must put them together.
  'big.md': `${'0123456789abcdef'.repeat(4500)}\u00e9`,
};

/** Paths to look at in TREE: files, directories (hidden ones too), missing paths and paths beneath files. */
export const LOOKED_AT = [
  '',
  'top.md',
  'big.md',
  'notes',
  'notes/deep',
  'notes/deep/er',
  'notes/.git',
  'notes/.git/HEAD',
  'notes/node_modules',
  '.hidden',
  'node_modules',
  'only-hidden',
  'only-hidden/deep',
  'a',
  'a b',
  'u',
  '\u{1f600}',
  '\ue000',
  'caf\u00e9',
  'caf\u00e9/menu.md',
  'missing',
  'not',
  'ab',
  'a/x',
  'top.md/x',
  'notes/a.md/deeper/x',
  'u/\ue000/x',
];

/** Expects `actual` (from describe with `limit`) to agree with `reference` (the full fold). */
export function expectListing(actual: unknown, reference: DriverListing, limit: number, where: string): void {
  expect(actual, where).toMatchObject({ kind: 'directory' });
  const listing = actual as DriverListing;
  expect({ size: listing.size, count: listing.count }, `${where}: size and count`).toEqual({
    size: reference.size,
    count: reference.count,
  });
  const full = new Map(reference.entries.map((entry) => [entry.path, entry]));
  const seen = new Set<string>();
  for (const entry of listing.entries) {
    expect(seen.has(entry.path), `${where}: entry ${JSON.stringify(entry.path)} is given twice`).toBe(false);
    seen.add(entry.path);
    expect(
      { path: entry.path, directory: entry.directory, size: entry.size },
      `${where}: entry ${JSON.stringify(entry.path)}`,
    ).toEqual(full.get(entry.path) ?? 'no such entry in the listing');
  }
  const missing = reference.entries
    .slice(0, limit)
    .filter((entry) => !seen.has(entry.path))
    .map((entry) => entry.path);
  expect(missing, `${where}: entries among the first ${limit} in listing order that are left out`).toEqual(
    [],
  );
}
