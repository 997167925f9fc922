// The admin side of the in-memory backend: namespaces listed from the spaces that hold anything,
// dropped in bounded batches, and swept (expiry, then retention) in bounded batches. A server does
// the same over its keys, rows or objects, with an index where this walks a map.
import type {
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverSweepOptions,
  DriverUsage,
} from '../driver/contract.js';
import type { DriverPath } from '../path.js';
import { recordChange } from './history.js';
import type { Backend, Space } from './space.js';

/** The key of namespace `name` below the namespace chain `key`. */
export function childKey(key: string, name: string): string {
  return key === '' ? name : `${key}/${name}`;
}

/** The namespaces directly below `key` that hold anything, a page at a time. */
export function listNamespaces(
  backend: Backend,
  key: string,
  query: DriverNamespaceQuery,
): DriverNamespacePage {
  const start = key === '' ? 0 : key.length + 1;
  const names = new Set<string>();
  for (const [spaceKey, space] of backend.spaces) {
    if (space.empty || spaceKey === key || (key !== '' && !spaceKey.startsWith(`${key}/`))) continue;
    const slash = spaceKey.indexOf('/', start);
    names.add(spaceKey.slice(start, slash === -1 ? undefined : slash));
  }
  // Names are ASCII, so UTF-16 order is byte order.
  const after = query.after;
  const prefix = query.prefix ?? '';
  const kept = [...names]
    .filter((name) => name.startsWith(prefix) && (after === undefined || name > after))
    .sort();
  const page = kept.slice(0, query.limit);
  return { names: page, next: kept.length > query.limit ? page[page.length - 1]! : null };
}

/** Removes at most `batch` files and versions of namespace `key` and the namespaces nested in it. */
export function dropNamespace(
  backend: Backend,
  key: string,
  batch: number,
): { removed: number; done: boolean } {
  let removed = 0;
  for (const [spaceKey, space] of [...backend.spaces]) {
    if (spaceKey !== key && !spaceKey.startsWith(`${key}/`)) continue;
    for (const path of [...space.files.keys()].slice(0, batch - removed)) {
      space.drop(path, backend.now());
      removed++;
    }
    removed += space.history.clear(batch - removed);
    if (space.empty) backend.spaces.delete(spaceKey);
    if (removed >= batch) break;
  }
  const left = [...backend.spaces.keys()].some(
    (spaceKey) => spaceKey === key || spaceKey.startsWith(`${key}/`),
  );
  return { removed, done: !left };
}

/** One bounded batch of upkeep of one namespace: expiry first, then retention. */
export function sweepSpace(
  backend: Backend,
  space: Space,
  options: DriverSweepOptions,
): { expired: number; pruned: number; done: boolean } {
  let budget = options.batch;
  let expired = 0;
  const { expireBefore } = options;
  if (expireBefore !== undefined) {
    const stale = [...space.files]
      .filter(([, file]) => Math.max(file.changedAt, file.touchedAt) < expireBefore)
      .slice(0, budget);
    const at = backend.now();
    for (const [path] of stale) {
      const file = space.drop(path, at)!;
      const change = {
        fileId: file.fileId,
        path: path as DriverPath,
        operation: 'deleted',
        content: null,
      } as const;
      recordChange(space.history, { op: options.op, record: options.record }, change, at);
      expired++;
    }
    budget -= stale.length;
  }
  let pruned = 0;
  if (options.retention && budget > 0) {
    pruned = space.history.pruneAll(options.retention, options.now ?? backend.now(), budget);
    budget -= pruned;
  }
  return { expired, pruned, done: budget > 0 };
}

/** What a namespace holds, from its counters. */
export function usageOf(space: Space): DriverUsage {
  return {
    files: space.files.size,
    bytes: space.bytes,
    versions: space.history.size,
    lastChangeAt: space.lastChangeAt,
  };
}
