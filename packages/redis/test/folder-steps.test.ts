// Moves and deletes of large folders in bounded steps (step-scripts.ts), on one server and on a
// Cluster: the outcome is the one a single script gives (files, sizes, index, history: one version
// per file), nobody sees or changes a folder half-moved, and a process killed half-way leaves a
// change that the next command, from another process, finishes.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DriverPath, MemoryCommand, MemoryStore } from '@memdir/core';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLDER_STEP_ENTRIES } from '../src/change-prelude.js';
import { createRedisDriver, createRedisStore } from '../src/index.js';
import { namespaceKeys } from '../src/layout.js';
import {
  checkLayout,
  clusterUrl,
  deleteUnder,
  expectHistoryMatches,
  filesOf,
  newCluster,
  newRedis,
  redisUrl,
  uniquePrefix,
} from './helpers.js';

const MOVER = fileURLToPath(new URL('./fixtures/mover.mjs', import.meta.url));
const p = (path: string) => path as DriverPath;

/** Files beneath `folder`: `width` subfolders of `files` files each, a hidden one, and files of its own. */
function folderOf(folder: string, width: number, files: number): Map<string, string> {
  const contents = new Map<string, string>();
  for (let sub = 0; sub < width; sub++) {
    for (let file = 0; file < files; file++) {
      contents.set(`/memories/${folder}/d${sub}/f${file}.md`, `file ${sub}/${file}\n`);
    }
  }
  contents.set(`/memories/${folder}/.hidden/deep/secret.md`, 'hidden\n');
  contents.set(`/memories/${folder}/top.md`, 'top\n');
  contents.set(`/memories/${folder}/\u{1F600}.md`, 'astral\n');
  return contents;
}

async function create(store: MemoryStore, contents: ReadonlyMap<string, string>): Promise<void> {
  const commands: MemoryCommand[] = [...contents].map(([path, text]) => ({
    command: 'create',
    path,
    file_text: text,
  }));
  for (let start = 0; start < commands.length; start += 200) {
    await Promise.all(commands.slice(start, start + 200).map((command) => store.execute(command)));
  }
}

function renamed(contents: ReadonlyMap<string, string>, from: string, to: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, text] of contents) {
    out.set(
      path.startsWith(`/memories/${from}/`) ? `/memories/${to}/${path.slice(11 + from.length)}` : path,
      text,
    );
  }
  return out;
}

const servers: Array<[string, () => Redis | Cluster, () => string]> = [
  ['one server', () => newRedis(), redisUrl],
  ['a Cluster', () => newCluster(), clusterUrl],
];

describe.each(servers)('on %s', (_name, connect, urlOf) => {
  const client = connect();
  beforeAll(() => client.connect());
  afterAll(() => client.quit());

  async function withStore(
    run: (store: ReturnType<typeof createRedisStore>, prefix: string) => Promise<void>,
  ) {
    const prefix = uniquePrefix('fs');
    const store = createRedisStore({ client, keyPrefix: prefix });
    try {
      await run(store, prefix);
      await checkLayout(client, prefix);
    } finally {
      await store.close();
      await deleteUnder(client, prefix);
    }
  }

  it('a folder of many entries moves whole: the files, their sizes, one renamed version each, the view', async () => {
    await withStore(async (store, prefix) => {
      const contents = folderOf('big/src', 12, 20); // 243 files, 16 folders: several steps
      contents.set('/memories/big/keep.md', 'stays\n');
      await create(store, contents);
      const before = await store.execute({ command: 'view', path: '/memories/big/src' });
      await store.execute({
        command: 'rename',
        old_path: '/memories/big/src',
        new_path: '/memories/other/dst',
      });
      const expected = renamed(contents, 'big/src', 'other/dst');
      const driver = createRedisDriver({ client, keyPrefix: prefix });
      expect(await filesOf(driver)).toEqual(expected);
      expect(await store.execute({ command: 'view', path: '/memories/other/dst' })).toBe(
        before.replaceAll('/memories/big/src', '/memories/other/dst'),
      );
      await expectHistoryMatches(store, expected);
      const page = await store.history({ limit: 1_000, operations: ['renamed'] });
      expect(page.versions).toHaveLength(contents.size - 1);
      expect(new Set(page.versions.map((version) => version.fileId)).size).toBe(contents.size - 1);
      // No journal is left, and the namespace takes changes again at once.
      expect(await client.hexists(namespaceKeys(prefix, '/').totals, 'mv')).toBe(0);
      await store.execute({ command: 'create', path: '/memories/big/src/again.md', file_text: 'x' });
    });
  });

  it('a folder of many entries is deleted whole: no file, size or index entry left, one deleted version each', async () => {
    await withStore(async (store, prefix) => {
      const contents = folderOf('gone', 10, 20);
      await create(store, contents);
      await store.execute({ command: 'create', path: '/memories/kept.md', file_text: 'kept\n' });
      await store.execute({ command: 'delete', path: '/memories/gone' });
      const driver = createRedisDriver({ client, keyPrefix: prefix });
      expect(await filesOf(driver)).toEqual(new Map([['/memories/kept.md', 'kept\n']]));
      expect(await driver.usage!()).toMatchObject({ files: 1, bytes: 5 });
      const page = await store.history({ limit: 1_000, operations: ['deleted'] });
      expect(page.versions).toHaveLength(contents.size);
      await expectHistoryMatches(store, new Map([['/memories/kept.md', 'kept\n']]));
    });
  });

  it('readers and writers during a stepped move see the folder whole, before or after', async () => {
    await withStore(async (store, prefix) => {
      const contents = folderOf('from', 20, 30); // 603 files
      await create(store, contents);
      const reader = createRedisStore({ client, keyPrefix: prefix });
      const listing = createRedisDriver({ client, keyPrefix: prefix });
      const oldPaths = [...contents.keys()].sort();
      const newPaths = [...renamed(contents, 'from', 'to').keys()].sort();
      const seen = new Set<string>();
      let moving = true;
      const move = store
        .execute({ command: 'rename', old_path: '/memories/from', new_path: '/memories/to' })
        .finally(() => {
          moving = false;
        });
      const writes: Array<Promise<string>> = [];
      let views = 0;
      while (moving || views === 0) {
        // What a listing (one call, one snapshot) shows is one side or the other, never a mix.
        const files: string[] = [];
        for await (const entry of listing.list(p(''))) {
          if (!entry.path.includes('/new-')) files.push(`/memories/${entry.path}`);
        }
        const shown = files.sort().join('\n');
        seen.add(
          shown === oldPaths.join('\n') ? 'before' : shown === newPaths.join('\n') ? 'after' : 'mixed',
        );
        writes.push(
          reader.execute({
            command: 'create',
            path: `/memories/from/d1/new-${views}.md`,
            file_text: 'new\n',
          }),
        );
        views++;
      }
      await move;
      await Promise.all(writes);
      expect([...seen].filter((side) => side === 'mixed')).toEqual([]);
      expect(seen.has('before') || seen.has('after')).toBe(true);
      // Every write landed once: before the move (now beneath to) or after it (a new from).
      const driver = createRedisDriver({ client, keyPrefix: prefix });
      const files = await filesOf(driver);
      for (let view = 0; view < views; view++) {
        const places = [`/memories/from/d1/new-${view}.md`, `/memories/to/d1/new-${view}.md`].filter((path) =>
          files.has(path),
        );
        expect(places, `new-${view}.md`).toHaveLength(1);
      }
      await reader.close();
    });
  });

  it('a process killed half-way through a move: the next command, from another process, finishes it', async () => {
    const prefix = uniquePrefix('fk');
    const store = createRedisStore({ client, keyPrefix: prefix });
    try {
      const contents = folderOf('from', 40, 50); // 2,003 files: about 30 steps
      await create(store, contents);
      const keys = namespaceKeys(prefix, '/');
      const child = spawn(process.execPath, [MOVER, urlOf(), prefix, 'from', 'to']);
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      // Wait until the move is under way and some files are moved, then stop the mover where it is.
      const moved = () => client.zlexcount(keys.index, '[to/', '(to0');
      for (;;) {
        const [journal, done] = await Promise.all([client.hexists(keys.totals, 'mv'), moved()]);
        if (journal === 1 && done > 0 && done < contents.size / 2) break;
        if (child.exitCode !== null) throw new Error(`the mover ended before it was stopped: ${stderr}`);
      }
      child.kill('SIGSTOP');
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      // Half-way in Redis: the journal, files at both places.
      expect(await client.hexists(keys.totals, 'mv')).toBe(1);
      const half = await moved();
      expect(half).toBeGreaterThan(0);
      expect(await client.zlexcount(keys.index, '[from/', '(from0')).toBeGreaterThan(0);
      // The next command (a view, from this process) sees the move whole, and finished it.
      const view = await store.execute({ command: 'view', path: '/memories' });
      expect(view).toContain('/memories/to');
      expect(view).not.toContain('/memories/from');
      expect(await client.hexists(keys.totals, 'mv')).toBe(0);
      const expected = renamed(contents, 'from', 'to');
      expect(await filesOf(createRedisDriver({ client, keyPrefix: prefix }))).toEqual(expected);
      await expectHistoryMatches(store, expected);
      const versions: unknown[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.history({ limit: 1_000, operations: ['renamed'], cursor });
        versions.push(...page.versions);
        cursor = page.next ?? undefined;
      } while (cursor !== undefined);
      expect(versions).toHaveLength(contents.size);
      await checkLayout(client, prefix);
    } finally {
      await store.close();
      await deleteUnder(client, prefix);
    }
  }, 60_000);
});

describe('the bound', () => {
  it('a folder of at most FOLDER_STEP_ENTRIES entries still moves in one script, one round trip', async () => {
    const client = newRedis();
    await client.connect();
    const prefix = uniquePrefix('fb');
    try {
      const driver = createRedisDriver({ client, keyPrefix: prefix });
      for (let file = 0; file < FOLDER_STEP_ENTRIES; file++) {
        await driver.write(p(`small/f${file}.md`), 'x', { op: `w${file}` });
      }
      const stats = { roundTrips: 0, requests: 0, retries: 0 };
      await driver.move(p('small'), p('moved'), { op: 'move', stats });
      expect(stats.roundTrips).toBe(1);
      const big = { roundTrips: 0, requests: 0, retries: 0 };
      await driver.write(p('moved/one-more.md'), 'x', { op: 'w-more' });
      await driver.move(p('moved'), p('again'), { op: 'move-again', stats: big });
      expect(big.roundTrips).toBeGreaterThan(1);
      await checkLayout(client, prefix);
    } finally {
      await deleteUnder(client, prefix);
      await client.quit();
    }
  });
});
