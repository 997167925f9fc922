// The admin methods of the driver (layout 3): each one statement or one function call. Namespaces
// are listed from the totals rows (an index in the order of the names, skipped through one name at a
// time, so a page costs about one index probe per name); usage is one totals row.
import type {
  DriverCallOptions,
  DriverDropOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverSweepOptions,
  DriverUsage,
} from '@memdir/core';
import { backendFailure } from '@memdir/core/driver';
import type { Space } from './backend.js';
import { recordParam } from './history.js';

/** A namespace chain as the tree index sorts it: '/' as U+0001 (see totals_tree in layout.ts). */
function treeKey(ns: string): string {
  return ns.replaceAll('/', '\u0001');
}

/** The chain of namespace `name` below `ns`. */
export function childChain(ns: string, name: string): string {
  return ns === '' ? name : `${ns}/${name}`;
}

function unknownAnswer(): Error {
  return backendFailure({ detail: 'PostgreSQL gave an answer memdir does not know', reason: 'unexpected' });
}

export async function listNamespaces(
  { backend, ns }: Space,
  query: DriverNamespaceQuery,
  options?: DriverCallOptions,
): Promise<DriverNamespacePage> {
  const self = treeKey(ns);
  const base = ns === '' ? '' : `${self}\u0001`;
  const prefix = query.prefix ?? '';
  // Names are ASCII: comparing strings here is comparing bytes there.
  let lower = base + prefix;
  if (query.after !== undefined && base + query.after + '\u0002' > lower)
    lower = `${base}${query.after}\u0002`;
  const upper = ns === '' ? null : `${self}\u0002`;
  const rows = await backend.run(
    {
      text: backend.sql.history.listNamespaces,
      values: [self, base.length, lower, upper, base, prefix, query.limit + 1],
    },
    false,
    options,
  );
  const names = rows.map((row) => row[0]!);
  if (names.length > query.limit) {
    names.length = query.limit;
    return { names, next: names[names.length - 1]! };
  }
  return { names, next: null };
}

export async function usage({ backend, ns }: Space, options?: DriverCallOptions): Promise<DriverUsage> {
  const [row] = await backend.run({ text: backend.sql.history.usage, values: [ns] }, false, options);
  if (!row) return { files: 0, bytes: 0, versions: 0, lastChangeAt: null };
  return {
    files: Number(row[0]),
    bytes: Number(row[1]),
    versions: Number(row[2]),
    lastChangeAt: row[3] === null || row[3] === undefined ? null : Number(row[3]),
  };
}

export async function dropNamespace(
  { backend, ns }: Space,
  name: string,
  options: DriverDropOptions,
): Promise<{ removed: number; done: boolean }> {
  const chain = childChain(ns, name);
  const [row] = await backend.run(
    {
      text: backend.sql.history.drop,
      values: [chain, `${chain}/`, `${chain}0`, Math.max(1, Math.floor(options.batch))],
    },
    true,
    options,
  );
  const [removed, done] = (row?.[0] ?? '').split(',');
  if (done !== 't' && done !== 'f') throw unknownAnswer();
  return { removed: Number(removed), done: done === 't' };
}

export async function sweep(
  { backend, ns }: Space,
  options: DriverSweepOptions,
): Promise<{ expired: number; pruned: number; done: boolean }> {
  const { retention } = options;
  const [row] = await backend.run(
    {
      text: backend.sql.history.sweep,
      values: [
        ns,
        options.op,
        options.expireBefore ?? null,
        retention?.keepVersions ?? null,
        retention?.keepDays ?? null,
        options.now ?? null,
        recordParam(options.record),
        Math.max(1, Math.floor(options.batch)),
      ],
    },
    true,
    options,
  );
  const [expired, pruned, done] = (row?.[0] ?? '').split(',');
  if (done !== 't' && done !== 'f') throw unknownAnswer();
  return { expired: Number(expired), pruned: Number(pruned), done: done === 't' };
}
