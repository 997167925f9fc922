// The PostgreSQL section (issue 9's goals), measured in one run: round trips per command on the
// wire, latency against the raw pg client doing the same reads and writes, bytes sent back for a
// view of a 10,000-file tree, and a folder's view in a small namespace against one of 100,000
// files, with the plan of the listing.
import type { MemoryStore } from '@memdir/core';
import { createPostgresStore } from '@memdir/postgres';
import {
  type RoundTripCounter,
  type StartedServers,
  startRoundTripCounter,
  startServers,
} from '@memdir/test-support';
import pg from 'pg';
import { COMMAND_CASES, COMMAND_SEED } from '../command-cases.js';
import { formatRatio, median } from '../stats.js';
import type { BenchSection, SectionContext } from './section.js';

interface Sent {
  text: string;
  values: unknown[];
  name?: string;
  binary?: boolean;
}

/** A pool through the counting proxy whose clients count the queries they send (the cross-check). */
function countingPool(url: string, sent: Sent[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const config = args[0] as
        | string
        | { text: string; values?: unknown[]; name?: string; binary?: boolean };
      if (typeof config === 'string') sent.push({ text: config, values: (args[1] as unknown[]) ?? [] });
      else
        sent.push({
          text: config.text,
          values: config.values ?? [],
          name: config.name,
          binary: config.binary,
        });
      return query(...args);
    };
  });
  return pool;
}

/** Times `count` runs of `once`, each on its own. */
async function sample(count: number, once: (index: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await once(index);
    times.push(performance.now() - started);
  }
  return times;
}

/** A command against raw pg: the same statements the driver sends, and plain SQL without the checks. */
interface LatencyCase {
  label: string;
  memdir: (store: MemoryStore, index: number) => Promise<unknown>;
  /** Raw pg sending the statements the driver sent for the command (`captured`), with fresh op ids. */
  same: (pool: pg.Pool, captured: Sent[], index: number) => Promise<unknown>;
  /** Hand-written SQL doing the same reads and writes on a plain table, without the protocol's checks. */
  plain: (pool: pg.Pool, index: number) => Promise<unknown>;
  /** Untimed, before each timed step of any side. */
  prepare?: (store: MemoryStore, index: number) => Promise<unknown>;
}

const RAW_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;
const op = () => `bench${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

/** The namespace raw pg replays the driver's statements in, so that its state is its own. */
const SAME_NS = 'same';

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

/** Raw pg editing a file with the driver's statements: the read, then the write with its version. */
async function sameEdit(pool: pg.Pool, captured: Sent[], change: (text: string) => string) {
  const [read, write] = captured as [Sent, Sent];
  const { rows } = await replay(pool, read);
  const row = rows[0] as string[];
  const values = [...write.values];
  values[2] = Buffer.from(change(row[1]!), 'utf8');
  values[3] = row[2];
  values[4] = op();
  return replay(pool, write, values);
}

function latencyCases(raw: string): LatencyCase[] {
  const content = (text: string) => Buffer.from(text, 'utf8');
  const select = `SELECT content, version FROM ${raw} WHERE ns = $1 AND path = $2`;
  const cas = `UPDATE ${raw} SET content = $3, version = $4 WHERE ns = $1 AND path = $2 AND version = $5`;
  const plainEdit = async (pool: pg.Pool, path: string, change: (text: string) => string) => {
    const { rows } = await pool.query({ text: select, values: ['', path], name: 'bench_raw_select' });
    const text = (rows[0].content as Buffer).toString('utf8');
    await pool.query({
      text: cas,
      values: ['', path, content(change(text)), String(Math.random()), rows[0].version],
      name: 'bench_raw_cas',
    });
  };
  const withOp = (query: Sent, at: number) => {
    const values = [...query.values];
    values[at] = op();
    return values;
  };
  const flip = (index: number, text: string) =>
    index % 2 === 0 ? text.replace('beta', 'BETA') : text.replace('BETA', 'beta');
  const renamed = (index: number) => (index % 2 === 0 ? ['r/one.md', 'r/two.md'] : ['r/two.md', 'r/one.md']);
  return [
    {
      label: 'view a file',
      memdir: (store) => store.view({ command: 'view', path: '/memories/notes/a.md' }),
      same: (pool, [query]) => replay(pool, query!),
      plain: (pool) => pool.query({ text: select, values: ['', 'notes/a.md'], name: 'bench_raw_select' }),
    },
    {
      label: 'view a directory (5 files)',
      memdir: (store) => store.view({ command: 'view', path: '/memories/notes' }),
      same: (pool, [query]) => replay(pool, query!),
      plain: (pool) =>
        pool.query({
          text: `SELECT path, size FROM ${raw} WHERE ns = $1 AND path >= $2 AND path < $3`,
          values: ['', 'notes/', 'notes0'],
          name: 'bench_raw_list',
        }),
    },
    {
      label: 'view a missing path',
      memdir: (store) => store.view({ command: 'view', path: '/memories/nothing.md' }).catch(() => {}),
      same: (pool, [query]) => replay(pool, query!),
      plain: (pool) => pool.query({ text: select, values: ['', 'nothing.md'], name: 'bench_raw_select' }),
    },
    {
      label: 'create (replace a file)',
      memdir: (store, index) =>
        store.create({ command: 'create', path: '/memories/top.md', file_text: `top ${index}` }),
      same: (pool, [query], index) => {
        const values = withOp(query!, 4);
        values[2] = content(`top ${index}`);
        return replay(pool, query!, values);
      },
      plain: (pool, index) =>
        pool.query({
          text: `INSERT INTO ${raw} (ns, path, content, version) VALUES ($1, $2, $3, $4) ON CONFLICT (ns, path) DO UPDATE SET content = excluded.content, version = excluded.version`,
          values: ['', 'top.md', content(`top ${index}`), String(index)],
          name: 'bench_raw_upsert',
        }),
    },
    {
      label: 'str_replace',
      memdir: (store, index) =>
        store.str_replace({
          command: 'str_replace',
          path: '/memories/notes/a.md',
          old_str: index % 2 === 0 ? 'beta' : 'BETA',
          new_str: index % 2 === 0 ? 'BETA' : 'beta',
        }),
      same: (pool, captured, index) => sameEdit(pool, captured, (text) => flip(index, text)),
      plain: (pool, index) => plainEdit(pool, 'notes/a.md', (text) => flip(index, text)),
    },
    {
      label: 'insert',
      memdir: (store) =>
        store.insert({ command: 'insert', path: '/memories/log.md', insert_line: 1, insert_text: 'entry' }),
      same: (pool, captured) => sameEdit(pool, captured, (text) => text.replace('\n', '\nentry\n')),
      plain: (pool) => plainEdit(pool, 'log.md', (text) => text.replace('\n', '\nentry\n')),
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
        const values = withOp(query!, 3);
        [values[1], values[2]] = renamed(index);
        return replay(pool, query!, values);
      },
      plain: (pool, index) =>
        pool.query({
          text: `UPDATE ${raw} SET path = $3 WHERE ns = $1 AND path = $2`,
          values: ['', ...renamed(index)],
          name: 'bench_raw_rename',
        }),
    },
    {
      label: 'delete a file',
      memdir: (store) => store.delete({ command: 'delete', path: '/memories/gone.md' }),
      same: (pool, [query]) => replay(pool, query!, withOp(query!, 2)),
      plain: (pool) =>
        pool.query({
          text: `DELETE FROM ${raw} WHERE ns = $1 AND path = $2`,
          values: ['', 'gone.md'],
          name: 'bench_raw_delete',
        }),
      prepare: async (store) => {
        await store.create({ command: 'create', path: '/memories/gone.md', file_text: 'x' });
      },
    },
  ];
}

/** Rows of a tree, inserted straight into memdir's table (building it through the store would take longer than measuring). */
async function insertTree(
  pool: pg.Pool,
  schema: string,
  ns: string,
  where: string,
  rows: number,
): Promise<void> {
  await pool.query(
    `INSERT INTO "${schema}".files (ns, path, content, version)
     SELECT $1, ${where}, convert_to(repeat('x', 20 + i % 50), 'UTF8'), md5(i::text) FROM generate_series(0, $2 - 1) AS i`,
    [ns, rows],
  );
}

export function postgresSection(): BenchSection {
  return {
    id: 'postgres',
    summary: 'PostgreSQL: round trips on the wire, latency against raw pg, bytes per listing, namespace size',
    async run(context: SectionContext) {
      // DATABASE_URL when set, else testcontainers or scripts/services.sh (@memdir/test-support).
      const servers: StartedServers = await startServers(['postgres'], { log: context.log });
      const url = servers.env['DATABASE_URL']!;
      const schema = `memdir_bench_${process.pid}`;
      const admin = new pg.Pool({ connectionString: url, max: 2 });
      admin.on('error', () => {});
      let proxy: RoundTripCounter | undefined;
      const stores: MemoryStore[] = [];
      const pools: pg.Pool[] = [];
      try {
        proxy = await startRoundTripCounter(url);
        const sent: Sent[] = [];
        const pool = countingPool(proxy.url, sent);
        pools.push(pool);
        const open = (namespace?: string) => {
          const store = createPostgresStore({ pool, schema, namespace });
          stores.push(store);
          return store;
        };
        const store = open();
        await store.setup();
        for (const command of COMMAND_SEED) await store.execute(command);

        context.log('[postgres] round trips per command (wire turns through a counting proxy)');
        const roundTrips = [];
        for (const testCase of COMMAND_CASES) {
          // Warm: every statement prepared on every connection of the pool is not the point here.
          proxy.resetStats();
          sent.length = 0;
          await store.execute(testCase.command).catch(() => {});
          roundTrips.push({ ...testCase, turns: proxy.stats().turns, queries: sent.length });
        }

        context.log('[postgres] latency against the raw pg client');
        const raw = `"${schema}".raw_files`;
        await admin.query(
          `CREATE TABLE ${raw} (ns text COLLATE "C" NOT NULL, path text COLLATE "C" NOT NULL, content bytea NOT NULL, size integer GENERATED ALWAYS AS (octet_length(content)) STORED, version text NOT NULL, PRIMARY KEY (ns, path) INCLUDE (size))`,
        );
        // Built the same way as the store's pool (the same counting wrapper), so both sides pay the same.
        const rawSent: Sent[] = [];
        const rawPool = countingPool(proxy.url, rawSent);
        pools.push(rawPool);
        await store.create({ command: 'create', path: '/memories/r/one.md', file_text: 'r' });
        await store.create({
          command: 'create',
          path: '/memories/notes/a.md',
          file_text: 'alpha\nbeta\ngamma',
        });
        await admin.query(
          `INSERT INTO ${raw} (ns, path, content, version) SELECT ns, path, content, version FROM "${schema}".files`,
        );
        await admin.query(
          `INSERT INTO ${raw} (ns, path, content, version) VALUES ('', 'log.md', '\\x0a', 'v') ON CONFLICT DO NOTHING`,
        );
        const cases = latencyCases(raw);
        const iterations = context.quick ? 90 : 600;
        const latency = [];
        // Raw pg's "same statements" work on a namespace of their own, seeded like the store's.
        const sameStore = open(SAME_NS);
        for (const command of COMMAND_SEED) await sameStore.execute(command);
        await sameStore.create({ command: 'create', path: '/memories/r/one.md', file_text: 'r' });
        await sameStore.create({
          command: 'create',
          path: '/memories/notes/a.md',
          file_text: 'alpha\nbeta\ngamma',
        });
        for (const testCase of cases) {
          // The statements the driver sends for this command, captured once (also a warm-up).
          await testCase.prepare?.(store, 0);
          await testCase.prepare?.(sameStore, 0);
          sent.length = 0;
          await testCase.memdir(store, 0);
          const captured = sent.filter((query) => query.name !== undefined);
          await testCase.same(rawPool, captured, 0);
          const times = { memdir: [] as number[], same: [] as number[], plain: [] as number[] };
          const sides = ['same', 'memdir', 'plain'] as const;
          // One step of each side in turn, the order rotating, so that a load that comes and goes
          // on a shared machine falls on all three alike.
          for (let step = 1; step <= iterations; step++) {
            for (let turn = 0; turn < sides.length; turn++) {
              const side = sides[(step + turn) % sides.length]!;
              if (side === 'memdir') await testCase.prepare?.(store, step);
              else if (side === 'same') await testCase.prepare?.(sameStore, step);
              else if (testCase.label === 'delete a file')
                await rawPool.query(
                  `INSERT INTO ${raw} (ns, path, content, version) VALUES ('', 'gone.md', '\\x78', 'v')`,
                );
              else if (testCase.label === 'insert' && step % 50 === 0)
                await rawPool.query(`UPDATE ${raw} SET content = $1 WHERE ns = '' AND path = 'log.md'`, [
                  Buffer.from('head\ntail'),
                ]);
              const run =
                side === 'memdir'
                  ? () => testCase.memdir(store, step)
                  : side === 'same'
                    ? () => testCase.same(rawPool, captured, step)
                    : () => testCase.plain(rawPool, step);
              times[side].push(...(await sample(1, run)));
              sent.length = 0;
              rawSent.length = 0;
            }
          }
          latency.push({
            label: testCase.label,
            memdir: median(times.memdir),
            same: median(times.same),
            plain: median(times.plain),
            statements: captured.length,
          });
        }

        context.log('[postgres] bytes sent back for view /memories of a 10,000-file tree');
        const tree = open('tree');
        await insertTree(
          admin,
          schema,
          'tree',
          `'dir-' || lpad((i / 100)::text, 3, '0') || '/note-' || lpad((i % 100)::text, 3, '0') || '.md'`,
          10_000,
        );
        await admin.query(`ANALYZE "${schema}".files`);
        await tree.view({ command: 'view', path: '/memories' });
        proxy.resetStats();
        const treeView = await tree.view({ command: 'view', path: '/memories' });
        const treeBytes = proxy.stats().bytesToClient;
        const resultBytes = Buffer.byteLength(treeView);

        context.log('[postgres] a 100-file folder in a namespace of 100 files and of 100,000');
        await insertTree(admin, schema, 'small', `'folder/f-' || lpad(i::text, 3, '0') || '.md'`, 100);
        await insertTree(admin, schema, 'big', `'folder/f-' || lpad(i::text, 3, '0') || '.md'`, 100);
        await insertTree(
          admin,
          schema,
          'big',
          `'other-' || lpad((i / 1000)::text, 3, '0') || '/g-' || lpad((i % 1000)::text, 4, '0') || '.md'`,
          99_900,
        );
        await admin.query(`VACUUM ANALYZE "${schema}".files`);
        const small = open('small');
        const big = open('big');
        const folder = { command: 'view' as const, path: '/memories/folder' };
        const sizes = { small: [] as number[], big: [] as number[] };
        for (let step = 0; step < iterations; step++) {
          const order = step % 2 === 0 ? (['small', 'big'] as const) : (['big', 'small'] as const);
          for (const name of order) {
            const target = name === 'small' ? small : big;
            sizes[name].push(...(await sample(1, () => target.view(folder))));
          }
        }
        sent.length = 0;
        await big.view(folder);
        const listing = sent.find((query) => query.text.includes('WITH target AS'));
        let plan = '(the listing statement was not seen)';
        if (listing) {
          const explained = await admin.query(
            `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${listing.text}`,
            listing.values,
          );
          plan = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
        }

        const goal = (turns: number, target: number) => (turns <= target ? 'PASS' : 'ABOVE');
        const lines = [
          '## PostgreSQL',
          '',
          `PostgreSQL ${(await admin.query('SHOW server_version')).rows[0].server_version} on loopback (${servers.sources['postgres'] ?? 'environment'}); the store on a pg.Pool of 4 connections; raw pg on another.`,
          '',
          '### Round trips per command',
          '',
          "Turns on the wire (a turn starts when the client sends after the server spoke), counted by a loopback proxy; cross-checked with the queries the pool's clients sent.",
          '',
          '| command | turns on the wire | queries sent | goal | result |',
          '|---|---:|---:|---:|---|',
          ...roundTrips.map(
            (row) =>
              `| ${row.label} | ${row.turns} | ${row.queries} | ${row.goal === 1 ? '1' : `<= ${row.goal}`} | ${row.turns === row.queries ? goal(row.turns, row.goal) : 'MISMATCH'} |`,
          ),
          '',
          '### Latency against the raw pg client',
          '',
          `Median of ${iterations} runs each, the three sides taking turns run by run. "Same statements": raw pg sends exactly what the driver sends for the command (the describe statement, the write function...), in a namespace of its own, with fresh op ids and the version it read: the ratio is what memdir adds in the client (input checks, the engine, rendering, the pool gate). Goal: <= 1.5x. "Plain SQL": hand-written SELECT / UPDATE ... WHERE version / INSERT ... ON CONFLICT / DELETE on a table of the same shape, without the protocol's checks (no directory sizes or hidden names, no PATH_CONFLICT checks, no namespace lock, no op record): what those guarantees cost on the server, for information.`,
          '',
          '| command | statements | memdir (ms) | raw pg, same statements (ms) | ratio | result | raw pg, plain SQL (ms) | ratio to plain |',
          '|---|---:|---:|---:|---:|---|---:|---:|',
          ...latency.map((row) => {
            const ratio = row.memdir / row.same;
            return `| ${row.label} | ${row.statements} | ${row.memdir.toFixed(3)} | ${row.same.toFixed(3)} | ${formatRatio(ratio)} | ${ratio <= 1.5 ? 'PASS' : 'ABOVE'} | ${row.plain.toFixed(3)} | ${formatRatio(row.memdir / row.plain)} |`;
          }),
          '',
          '### Bytes sent back and namespace size',
          '',
          '| measure | value | goal | result |',
          '|---|---:|---:|---|',
          `| view /memories of 10,000 files: bytes from the server | ${treeBytes.toLocaleString('en-US')} | | |`,
          `| ... the result text (UTF-8 bytes) | ${resultBytes.toLocaleString('en-US')} | | |`,
          `| ... ratio | ${formatRatio(treeBytes / resultBytes)} | <= 2x | ${treeBytes <= 2 * resultBytes ? 'PASS' : 'ABOVE'} |`,
          `| view of a 100-file folder, namespace of 100 files (median ms) | ${median(sizes.small).toFixed(3)} | | |`,
          `| ... namespace of 100,000 files (median ms) | ${median(sizes.big).toFixed(3)} | | |`,
          `| ... ratio | ${formatRatio(median(sizes.big) / median(sizes.small))} | <= 1.2x | ${median(sizes.big) <= 1.2 * median(sizes.small) ? 'PASS' : 'ABOVE'} |`,
          '',
          'Plan of the listing statement for the folder in the namespace of 100,000 files (`EXPLAIN ANALYZE` of what the driver sent):',
          '',
          '```',
          plan,
          '```',
        ];
        return lines.join('\n');
      } finally {
        for (const store of stores) await store.close().catch(() => {});
        for (const pool of pools) await pool.end().catch(() => {});
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
        await admin.end();
        await proxy?.close();
        await servers.stop();
      }
    },
  };
}
