// The PostgreSQL section's latency cases: each command through memdir, through raw pg sending the
// very statements the driver sends ("same statements": what memdir adds in the client), and through
// raw pg doing the least any client must do for the same result ("physical limit": one round trip,
// one SELECT or UPDATE by primary key on a table of the same shape, no checks at all).
import type { MemoryStore } from '@memdir/core';
import type pg from 'pg';

/** A query as a pool's client sent it (captured by the counting wrapper). */
export interface Sent {
  text: string;
  values: unknown[];
  name?: string;
  binary?: boolean;
}

/** One measured command. */
export interface LatencyCase {
  label: string;
  memdir: (store: MemoryStore, index: number) => Promise<unknown>;
  /** Raw pg sending the statements the driver sent for the command (`captured`), with fresh op ids. */
  same: (pool: pg.Pool, captured: Sent[], index: number) => Promise<unknown>;
  /** The physical limit: one round trip by primary key. */
  physical: (pool: pg.Pool, index: number) => Promise<unknown>;
  /** Untimed, before each timed step of the memdir and same sides. */
  prepare?: (store: MemoryStore, index: number) => Promise<unknown>;
  /** Untimed, before each timed step of the physical side. */
  preparePhysical?: (pool: pg.Pool, index: number) => Promise<unknown>;
}

const RAW_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;
const op = () => `bench${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

/** The namespace raw pg replays the driver's statements in, so that its state is its own. */
export const SAME_NS = 'same';

/** Sends `query` as the driver does (named, binary results for content, rows as arrays), in SAME_NS. */
function replay(pool: pg.Pool, query: Sent, values: unknown[] = query.values) {
  return pool.query({
    text: query.text,
    values: [SAME_NS, ...values.slice(1)],
    name: query.name,
    rowMode: 'array',
    types: RAW_TYPES,
    ...(query.binary ? { binary: true } : {}),
  } as pg.QueryArrayConfig);
}

/** `query` with a fresh op id at `at`, and other values replaced. */
function fresh(query: Sent, at: number, changes: Record<number, unknown> = {}): unknown[] {
  const values = [...query.values];
  values[at] = op();
  for (const [index, value] of Object.entries(changes)) values[Number(index)] = value;
  return values;
}

/** The latency cases on `raw` (a quoted table of the store's shape, seeded like the store). */
export function latencyCases(raw: string): LatencyCase[] {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  const select = {
    text: `SELECT content FROM ${raw} WHERE ns = $1 AND path = $2`,
    name: 'bench_physical_select',
  };
  const update = (pool: pg.Pool, path: string, content: Buffer) =>
    pool.query({
      text: `UPDATE ${raw} SET content = $3 WHERE ns = $1 AND path = $2`,
      values: ['', path, content],
      name: 'bench_physical_update',
    });
  const flip = (index: number): [string, string] => (index % 2 === 0 ? ['beta', 'BETA'] : ['BETA', 'beta']);
  const flipped = (index: number) => bytes(index % 2 === 0 ? 'alpha\nBETA\ngamma' : 'alpha\nbeta\ngamma');
  const renamed = (index: number) => (index % 2 === 0 ? ['r/one.md', 'r/two.md'] : ['r/two.md', 'r/one.md']);
  // The log the insert case grows: reset every 50 inserts, 6 bytes more each time.
  const log = (index: number) => bytes(`head\n${'entry\n'.repeat(index % 50)}tail`);
  return [
    {
      label: 'view a file',
      memdir: (store) => store.view({ command: 'view', path: '/memories/notes/a.md' }),
      same: (pool, [query]) => replay(pool, query!),
      physical: (pool) => pool.query({ ...select, values: ['', 'notes/a.md'] }),
    },
    {
      label: 'view a directory (5 files)',
      memdir: (store) => store.view({ command: 'view', path: '/memories/notes' }),
      same: (pool, [query]) => replay(pool, query!),
      physical: (pool) =>
        pool.query({
          text: `SELECT path, size FROM ${raw} WHERE ns = $1 AND path >= $2 AND path < $3`,
          values: ['', 'notes/', 'notes0'],
          name: 'bench_physical_list',
        }),
    },
    {
      label: 'view a missing path',
      memdir: (store) => store.view({ command: 'view', path: '/memories/nothing.md' }).catch(() => {}),
      same: (pool, [query]) => replay(pool, query!),
      physical: (pool) => pool.query({ ...select, values: ['', 'nothing.md'] }),
    },
    {
      label: 'create (replace a file)',
      memdir: (store, index) =>
        store.create({ command: 'create', path: '/memories/top.md', file_text: `top ${index}` }),
      same: (pool, [query], index) => replay(pool, query!, fresh(query!, 4, { 2: bytes(`top ${index}`) })),
      physical: (pool, index) => update(pool, 'top.md', bytes(`top ${index}`)),
    },
    {
      label: 'str_replace',
      memdir: (store, index) => {
        const [old_str, new_str] = flip(index);
        return store.str_replace({ command: 'str_replace', path: '/memories/notes/a.md', old_str, new_str });
      },
      same: (pool, [query], index) => {
        const [oldStr, newStr] = flip(index);
        return replay(pool, query!, fresh(query!, 8, { 3: bytes(oldStr), 4: bytes(newStr) }));
      },
      physical: (pool, index) => update(pool, 'notes/a.md', flipped(index)),
    },
    {
      label: 'insert',
      memdir: (store) =>
        store.insert({ command: 'insert', path: '/memories/log.md', insert_line: 1, insert_text: 'entry' }),
      same: (pool, [query]) => replay(pool, query!, fresh(query!, 8)),
      physical: (pool, index) => update(pool, 'log.md', log(index + 1)),
      prepare: (store, index) =>
        index % 50 === 0
          ? store.create({ command: 'create', path: '/memories/log.md', file_text: 'head\ntail' })
          : Promise.resolve(),
    },
    {
      label: 'rename a file',
      memdir: (store, index) => {
        const [from, to] = renamed(index);
        return store.rename({
          command: 'rename',
          old_path: `/memories/${from}`,
          new_path: `/memories/${to}`,
        });
      },
      same: (pool, [query], index) => {
        const [from, to] = renamed(index);
        return replay(pool, query!, fresh(query!, 3, { 1: from, 2: to, 4: [to!.split('/')[0]] }));
      },
      physical: (pool, index) => {
        const [from, to] = renamed(index);
        return pool.query({
          text: `UPDATE ${raw} SET path = $3 WHERE ns = $1 AND path = $2`,
          values: ['', from, to],
          name: 'bench_physical_rename',
        });
      },
    },
    {
      label: 'delete a file',
      memdir: (store) => store.delete({ command: 'delete', path: '/memories/gone.md' }),
      same: (pool, [query]) => replay(pool, query!, fresh(query!, 2)),
      physical: (pool) =>
        pool.query({
          text: `DELETE FROM ${raw} WHERE ns = $1 AND path = $2`,
          values: ['', 'gone.md'],
          name: 'bench_physical_delete',
        }),
      prepare: (store) => store.create({ command: 'create', path: '/memories/gone.md', file_text: 'x' }),
      preparePhysical: (pool) =>
        pool.query(`INSERT INTO ${raw} (ns, path, content, version) VALUES ('', 'gone.md', '\\x78', 'v')`),
    },
  ];
}
