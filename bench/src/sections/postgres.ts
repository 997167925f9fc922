// The PostgreSQL section (issues 9, 17 and 19), measured in one run: round trips per command on the
// wire (with and without a quota), 1,000 tenant handles on one pool, latency against raw pg sending
// the same statements and against the physical limit (one round trip by primary key), bytes sent
// back for a view of a 10,000-file tree, and a folder's view in a small namespace against one of
// 100,000 files, with the plan of the listing.
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
import { latencyCases, SAME_NS, type Sent } from './postgres-latency.js';
import type { BenchSection, SectionContext } from './section.js';
import { postgresTenantTurns, TENANT_TURNS_GOAL, tenantResult } from './tenant-handles.js';

/** Issue 17: str_replace and insert are one function call on PostgreSQL. */
const GOALS: Record<string, number> = { str_replace: 1, insert: 1 };

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
    summary:
      'PostgreSQL: round trips on the wire (and with a quota), 1,000 tenant handles, latency against raw pg and the physical limit, bytes per listing, namespace size',
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
        const open = (namespace?: string, quota?: { maxBytes?: number; maxFiles?: number }) => {
          const store = createPostgresStore({ pool, schema, namespace, quota });
          stores.push(store);
          return store;
        };
        const store = open();
        await store.setup();
        const quoted = open('quota', { maxBytes: 1_000_000, maxFiles: 1_000 });
        for (const command of COMMAND_SEED) {
          await store.execute(command);
          await quoted.execute(command);
        }

        context.log('[postgres] round trips per command (wire turns through a counting proxy)');
        const roundTrips = [];
        for (const testCase of COMMAND_CASES) {
          const measure = async (target: MemoryStore) => {
            proxy!.resetStats();
            sent.length = 0;
            await target.execute(testCase.command).catch(() => {});
            return { turns: proxy!.stats().turns, queries: sent.length };
          };
          const plain = await measure(store);
          const withQuota = await measure(quoted);
          roundTrips.push({
            ...testCase,
            goal: GOALS[testCase.command.command] ?? testCase.goal,
            ...plain,
            quota: withQuota.turns,
          });
        }

        context.log('[postgres] 1,000 tenant handles on one pool');
        const tenantTurns = await postgresTenantTurns(proxy, schema);

        context.log('[postgres] latency against raw pg: the same statements, and the physical limit');
        const raw = `"${schema}".raw_files`;
        await admin.query(
          `CREATE TABLE ${raw} (ns text COLLATE "C" NOT NULL, path text COLLATE "C" NOT NULL, content bytea NOT NULL, size integer GENERATED ALWAYS AS (octet_length(content)) STORED, version text NOT NULL, PRIMARY KEY (ns, path) INCLUDE (size))`,
        );
        // Built the same way as the store's pool (the same counting wrapper), so both sides pay the same.
        const rawSent: Sent[] = [];
        const rawPool = countingPool(proxy.url, rawSent);
        pools.push(rawPool);
        const sameStore = open(SAME_NS);
        for (const target of [store, sameStore]) {
          if (target === sameStore) for (const command of COMMAND_SEED) await target.execute(command);
          await target.create({ command: 'create', path: '/memories/r/one.md', file_text: 'r' });
          await target.create({
            command: 'create',
            path: '/memories/notes/a.md',
            file_text: 'alpha\nbeta\ngamma',
          });
          await target.create({ command: 'create', path: '/memories/log.md', file_text: 'head\ntail' });
        }
        await admin.query(
          `INSERT INTO ${raw} (ns, path, content, version) SELECT '', path, content, version FROM "${schema}".files WHERE ns = ''`,
        );
        const cases = latencyCases(raw);
        const iterations = context.quick ? 90 : 600;
        const latency = [];
        for (const testCase of cases) {
          // The statements the driver sends for this command, captured once (also a warm-up).
          await testCase.prepare?.(store, 0);
          await testCase.prepare?.(sameStore, 0);
          await testCase.preparePhysical?.(rawPool, 0);
          sent.length = 0;
          await testCase.memdir(store, 0);
          const captured = sent.filter((query) => query.name !== undefined);
          await testCase.same(rawPool, captured, 0);
          await testCase.physical(rawPool, 0);
          const times = { memdir: [] as number[], same: [] as number[], physical: [] as number[] };
          const sides = ['same', 'memdir', 'physical'] as const;
          // One step of each side in turn, the order rotating, so that a load that comes and goes
          // on a shared machine falls on all three alike.
          for (let step = 1; step <= iterations; step++) {
            for (let turn = 0; turn < sides.length; turn++) {
              const side = sides[(step + turn) % sides.length]!;
              if (side === 'memdir') await testCase.prepare?.(store, step);
              else if (side === 'same') await testCase.prepare?.(sameStore, step);
              else await testCase.preparePhysical?.(rawPool, step);
              const run =
                side === 'memdir'
                  ? () => testCase.memdir(store, step)
                  : side === 'same'
                    ? () => testCase.same(rawPool, captured, step)
                    : () => testCase.physical(rawPool, step);
              times[side].push(...(await sample(1, run)));
              sent.length = 0;
              rawSent.length = 0;
            }
          }
          latency.push({
            label: testCase.label,
            memdir: median(times.memdir),
            same: median(times.same),
            physical: median(times.physical),
            statements: captured.length,
            goal: testCase.label.startsWith('view') ? 1.3 : 1.5,
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
        // Below the root a view is a call of describe_v3, which runs the listing's statement once it
        // found no file: that statement (the function's last RETURN QUERY, its parameters the
        // call's) is the one explained.
        const call = sent.find((query) => query.text.includes('describe_v3('));
        let listing = sent.find((query) => query.text.includes('WITH target AS'));
        if (call) {
          const { rows } = await admin.query(
            `SELECT p.prosrc FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'describe_v3'`,
            [schema],
          );
          const source = String(rows[0]?.prosrc ?? '');
          const start = source.lastIndexOf('RETURN QUERY ');
          const end = source.lastIndexOf(';');
          if (start >= 0 && end > start) {
            listing = { text: source.slice(start + 'RETURN QUERY '.length, end), values: call.values };
          }
        }
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
          "Turns on the wire (a turn starts when the client sends after the server spoke), counted by a loopback proxy; cross-checked with the queries the pool's clients sent. `str_replace` and `insert` are one call of `edit_v2`. With a quota (`maxBytes` and `maxFiles`), judged in the same call: the turns must not change.",
          '',
          '| command | turns on the wire | queries sent | goal | result | turns with a quota |',
          '|---|---:|---:|---:|---|---:|',
          ...roundTrips.map(
            (row) =>
              `| ${row.label} | ${row.turns} | ${row.queries} | ${row.goal === 1 ? '1' : `<= ${row.goal}`} | ${row.turns === row.queries ? goal(row.turns, row.goal) : 'MISMATCH'} | ${row.quota}${row.quota === row.turns ? '' : ' (ABOVE)'} |`,
          ),
          '',
          `1,000 stores for 1,000 namespaces on one open pool (one connection), one \`view\` each: ${tenantTurns.toLocaleString('en-US')} turns on the wire (goal <= ${TENANT_TURNS_GOAL.toLocaleString('en-US')}: the connection, the setup check once, a view each): ${tenantResult(tenantTurns)}.`,
          '',
          '### Latency against raw pg',
          '',
          `Median of ${iterations} runs each, the three sides taking turns run by run. "Same statements": raw pg sends exactly what the driver sends for the command (the describe statement, the write or edit function...), in a namespace of its own, with fresh op ids: the ratio is what memdir adds in the client (input checks, the engine, rendering, the pool gate). "Physical limit": the least a raw client must do for the same result, one round trip by primary key on a table of the same shape (a SELECT for a view, an UPDATE or DELETE for a change, the edited content sent whole), with none of the protocol's checks, op records or totals: goal <= 1.3x for a view, <= 1.5x for a change.`,
          '',
          '| command | statements | memdir (ms) | raw pg, same statements (ms) | ratio | raw pg, physical limit (ms) | ratio | goal | result |',
          '|---|---:|---:|---:|---:|---:|---:|---:|---|',
          ...latency.map((row) => {
            const ratio = row.memdir / row.physical;
            return `| ${row.label} | ${row.statements} | ${row.memdir.toFixed(3)} | ${row.same.toFixed(3)} | ${formatRatio(row.memdir / row.same)} | ${row.physical.toFixed(3)} | ${formatRatio(ratio)} | <= ${row.goal}x | ${ratio <= row.goal ? 'PASS' : 'ABOVE'} |`;
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
