// What the history and admin groups share: a store's history methods (checked to be there), every
// version of a query across its pages, and the SHA-256 computed here rather than by the code under
// test.
import { createHash } from 'node:crypto';
import type { HistoryQuery, MemoryHistory, MemoryStore, MemoryVersion } from '@memdir/core';
import { expect } from 'vitest';

export const DAY_MS = 86_400_000;

/** A store of a target with `capabilities.history`, with its history methods. */
export type HistoryStore = MemoryStore & MemoryHistory;

const METHODS = ['history', 'version', 'asOf', 'restore', 'redact'] as const;

/** `store` as a {@link HistoryStore}; fails the test when a method is missing. */
export function withHistory(store: MemoryStore): HistoryStore {
  for (const name of METHODS) {
    expect(
      typeof (store as unknown as Record<string, unknown>)[name],
      `capabilities.history is set, so the store must have a ${name} method (stores made by createMemoryStore do)`,
    ).toBe('function');
  }
  return store as HistoryStore;
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Every version matching `query`, newest first, across pages (each page checked to be ordered). */
export async function allVersions(store: HistoryStore, query: HistoryQuery = {}): Promise<MemoryVersion[]> {
  const versions: MemoryVersion[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    expect(pages, 'history() kept returning pages').toBeLessThan(10_000);
    const page = await store.history({ ...query, limit: query.limit ?? 1_000, cursor });
    versions.push(...page.versions);
    if (page.next === null) break;
    cursor = page.next;
  }
  const ids = versions.map((version) => version.id);
  expect(ids, 'versions come newest first, each once').toEqual([...new Set(ids)].sort().reverse());
  return versions;
}

/** The newest version whose path (or path before a rename) is `path`: a live file's current one. */
export async function newestAt(store: HistoryStore, path: string): Promise<MemoryVersion | undefined> {
  // A page may come back short while more follow: take the first version there is.
  let cursor: string | undefined;
  for (;;) {
    const page = await store.history({ path, limit: 1, cursor });
    if (page.versions.length > 0 || page.next === null) return page.versions[0];
    cursor = page.next;
  }
}

/** Waits `ms` (clock steps between changes, for tests of time). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
