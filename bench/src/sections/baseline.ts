// The memory tool against an earlier build (`--baseline DIR`: a built checkout of an earlier
// commit, e.g. `git worktree add ../wave3 61d215c && cd ../wave3 && pnpm install && pnpm build`),
// in one run: the p50 of each command on this build and on that one, interleaved operation by
// operation on the same servers (own key prefixes, schemas and folders), for Redis, PostgreSQL and
// the filesystem store. Issue 29's goal: no command slower than 1.1x. Without `--baseline` the
// section says how to run it and measures nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { startServers } from '@memdir/test-support';
import pg from 'pg';
import { compare } from '../interleave.js';
import type { BenchSection, SectionContext } from './section.js';

/** The most a command may cost against the baseline (issue 29). */
const GOAL = 1.1;

type Open = (name: string) => Promise<MemoryStore>;

interface Step {
  readonly label: string;
  /** Untimed, before each round, per side. */
  readonly before?: (store: MemoryStore, count: number) => Promise<void>;
  readonly run: (store: MemoryStore, index: number, state: { flip: boolean }) => Promise<unknown>;
}

const STEPS: readonly Step[] = [
  { label: 'view a file', run: (store) => store.view({ command: 'view', path: '/memories/notes/a.md' }) },
  { label: 'view a directory', run: (store) => store.view({ command: 'view', path: '/memories/notes' }) },
  {
    label: 'create a new file',
    run: (store, index) =>
      store.create({ command: 'create', path: `/memories/c/${Date.now()}-${index}.md`, file_text: 'x' }),
  },
  {
    label: 'str_replace',
    run: (store, _index, state) => {
      state.flip = !state.flip;
      return store.str_replace({
        command: 'str_replace',
        path: '/memories/notes/a.md',
        old_str: state.flip ? 'beta' : 'BETA',
        new_str: state.flip ? 'BETA' : 'beta',
      });
    },
  },
  {
    label: 'insert',
    before: (store) =>
      store.create({ command: 'create', path: '/memories/i.md', file_text: 'one\ntwo' }).then(() => {}),
    run: (store) =>
      store.insert({ command: 'insert', path: '/memories/i.md', insert_line: 1, insert_text: 'x' }),
  },
  {
    label: 'rename a file',
    run: (store, _index, state) => {
      state.flip = !state.flip;
      const [from, to] = state.flip ? ['r1', 'r2'] : ['r2', 'r1'];
      return store.rename({
        command: 'rename',
        old_path: `/memories/${from}.md`,
        new_path: `/memories/${to}.md`,
      });
    },
  },
  {
    label: 'delete a file',
    before: async (store, count) => {
      for (let index = 0; index < count; index++) {
        await store.create({ command: 'create', path: `/memories/d/${index}.md`, file_text: 'd' });
      }
    },
    run: (store, index) => store.delete({ command: 'delete', path: `/memories/d/${index}.md` }),
  },
];

async function seed(store: MemoryStore): Promise<void> {
  await store.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\ngamma' });
  await store.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b' });
  await store.create({ command: 'create', path: '/memories/r1.md', file_text: 'r' });
}

async function compareOn(
  label: string,
  openNew: Open,
  openOld: Open,
  context: SectionContext,
  lines: string[],
): Promise<void> {
  const rounds = context.quick ? 3 : 8;
  const count = context.quick ? 30 : 100;
  const current = await openNew('new');
  const baseline = await openOld('old');
  try {
    await seed(current);
    await seed(baseline);
    lines.push(
      `### ${label}`,
      '',
      '| command | p50 this build (µs) | p50 baseline (µs) | ratio | goal | result |',
      '|---|---:|---:|---:|---:|---|',
    );
    for (const step of STEPS) {
      context.log(`[baseline] ${label}: ${step.label}`);
      const states = { current: { flip: false }, baseline: { flip: false } };
      const result = await compare(
        {
          current: (index) => step.run(current, index, states.current),
          baseline: (index) => step.run(baseline, index, states.baseline),
        },
        rounds,
        count,
        step.before && ((side) => step.before!(side === 'current' ? current : baseline, count)),
      );
      const ratio = result.current.p50 / result.baseline.p50;
      lines.push(
        `| ${step.label} | ${result.current.p50.toFixed(0)} | ${result.baseline.p50.toFixed(0)} | ${ratio.toFixed(2)}x | <= ${GOAL}x | ${ratio <= GOAL ? 'PASS' : 'ABOVE'} |`,
      );
    }
    lines.push('');
  } finally {
    await current.close().catch(() => {});
    await baseline.close().catch(() => {});
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the baseline's modules are loaded from a path at run time.
async function load(dir: string, adapter: string): Promise<any> {
  return import(pathToFileURL(join(dir, 'packages', adapter, 'dist', 'index.js')).href);
}

export function baselineSection(baselineDir: string | undefined): BenchSection {
  return {
    id: 'baseline',
    summary:
      'The memory tool against an earlier build (--baseline DIR): p50 of each command on Redis, PostgreSQL and fs, interleaved',
    async run(context: SectionContext) {
      const lines = ['## The memory tool against a baseline build', ''];
      if (baselineDir === undefined) {
        lines.push(
          'Not measured: give `--baseline DIR`, a built checkout of the commit to compare with.',
          '',
        );
        return lines.join('\n');
      }
      const dir = resolve(baselineDir);
      lines.push(
        `Baseline: the build in \`${baselineDir}\`. Each command's p50, this build and the baseline interleaved operation by operation on the same server.`,
        '',
      );
      const servers = await startServers(['redis', 'postgres'], { log: context.log });
      const tag = `${process.pid}-${Date.now().toString(36)}`;
      const work = await mkdtemp(join(context.workDir, 'baseline-'));
      const admin = new pg.Pool({ connectionString: servers.env['DATABASE_URL']!, max: 1 });
      admin.on('error', () => {});
      try {
        const redis = await load(dir, 'redis');
        await compareOn(
          'Redis',
          async (name) =>
            createRedisStore({ url: servers.env['REDIS_URL']!, keyPrefix: `memdir-bl-${tag}-${name}:` }),
          async (name) =>
            redis.createRedisStore({
              url: servers.env['REDIS_URL']!,
              keyPrefix: `memdir-bl-${tag}-${name}:`,
            }),
          context,
          lines,
        );
        const postgres = await load(dir, 'postgres');
        const schema = (name: string) => `memdir_bl_${name}_${process.pid}`;
        await compareOn(
          'PostgreSQL',
          async (name) => {
            const store = createPostgresStore({
              connectionString: servers.env['DATABASE_URL']!,
              schema: schema(name),
            });
            await store.setup();
            return store;
          },
          async (name) => {
            const store = postgres.createPostgresStore({
              connectionString: servers.env['DATABASE_URL']!,
              schema: schema(name),
            });
            await store.setup();
            return store;
          },
          context,
          lines,
        );
        for (const name of ['new', 'old'])
          await admin.query(`DROP SCHEMA IF EXISTS "${schema(name)}" CASCADE`);
        const fs = await load(dir, 'fs');
        await compareOn(
          'fs',
          async (name) => createFsStore({ root: join(work, name) }),
          async (name) => fs.createFsStore({ root: join(work, name) }),
          context,
          lines,
        );
      } finally {
        await admin.end().catch(() => {});
        await rm(work, { recursive: true, force: true });
        await servers.stop();
      }
      return lines.join('\n');
    },
  };
}
