// Several processes on one namespace, as several workers of one agent would be: no update lost,
// no line applied twice, one winner among racing creators.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DriverPath, MemoryHistory, MemoryStore, MemoryVersion } from '@memdir/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisDriver, createRedisStore } from '../src/index.js';
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

const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));
type Outcome = { ok?: string; code?: string; error?: string };

/** Starts one worker per command list, lets them all go at once, and collects their outcomes. */
async function runWorkers(
  url: string,
  prefix: string,
  namespace: string,
  batches: object[][],
  options: object = {},
): Promise<Outcome[][]> {
  const children: ChildProcessWithoutNullStreams[] = [];
  const outputs = batches.map((batch) => {
    const child = spawn(process.execPath, [
      WORKER,
      url,
      prefix,
      namespace,
      JSON.stringify(batch),
      JSON.stringify(options),
    ]);
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.startsWith('ready\n')) resolve();
      });
    });
    const done = new Promise<Outcome[]>((resolve, reject) => {
      child.on('close', (code) => {
        if (code !== 0) reject(new Error(`worker exited with ${code}: ${stderr}`));
        else resolve(JSON.parse(stdout.slice('ready\n'.length)) as Outcome[]);
      });
    });
    return { ready, done };
  });
  await Promise.all(outputs.map((output) => output.ready));
  for (const child of children) child.stdin.write('go\n');
  return Promise.all(outputs.map((output) => output.done));
}

/** Starts one worker per command list, lets them all go at once, and kills them all once `due()`. */
async function killWorkers(
  url: string,
  prefix: string,
  namespace: string,
  batches: object[][],
  due: () => Promise<boolean>,
) {
  const children = batches.map((batch) =>
    spawn(process.execPath, [WORKER, url, prefix, namespace, JSON.stringify(batch)]),
  );
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          let stdout = '';
          child.stdout.on('data', (chunk) => {
            stdout += chunk;
            if (stdout.startsWith('ready\n')) resolve();
          });
        }),
    ),
  );
  const closed = children.map((child) => new Promise((resolve) => child.on('close', resolve)));
  for (const child of children) child.stdin.write('go\n');
  for (let polls = 0; polls < 2_000 && !(await due()); polls++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(closed);
}

const withHistory = (store: MemoryStore) => store as MemoryStore & MemoryHistory;

const standalone = newRedis();
const cluster = newCluster();
beforeAll(async () => {
  await standalone.connect();
  await cluster.connect();
});
afterAll(async () => {
  await standalone.quit();
  await cluster.quit();
});

for (const [label, url, client] of [
  ['standalone', redisUrl, standalone],
  ['Cluster', clusterUrl, cluster],
] as const) {
  describe(`four processes on one namespace (${label})`, () => {
    let prefix: string;
    beforeAll(() => {
      prefix = uniquePrefix('p');
    });
    afterEach(async () => {
      await checkLayout(client, prefix);
      await deleteUnder(client, prefix);
      prefix = uniquePrefix('p');
    });

    it('4 x 250 concurrent inserts into one file leave 1000 lines, none twice', async () => {
      const namespace = 'workers';
      const store = createRedisStore({ url: url(), keyPrefix: prefix, namespace });
      await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
      const batches = ['a', 'b', 'c', 'd'].map((who) =>
        Array.from({ length: 250 }, (_, index) => ({
          command: 'insert',
          path: '/memories/log.md',
          insert_line: 1,
          insert_text: `${who}-${index}\n`,
        })),
      );
      const outcomes = await runWorkers(url(), prefix, namespace, batches);
      for (const outcome of outcomes.flat()) {
        expect(outcome).toEqual({ ok: 'The file /memories/log.md has been edited.' });
      }
      const view = await store.view({ command: 'view', path: '/memories/log.md', view_range: [1, -1] });
      const lines = view
        .split('\n')
        .slice(1)
        .map((line) => line.slice(line.indexOf('\t') + 1));
      expect(lines[0]).toBe('# log');
      const inserted = lines.slice(1);
      expect(inserted).toHaveLength(1000);
      expect(new Set(inserted).size).toBe(1000);
      expect(inserted.sort()).toEqual(
        batches
          .flat()
          .map((command) => command.insert_text.trim())
          .sort(),
      );
      await store.close();
    }, 120_000);

    it('4 processes x 100 concurrent inserts with history: one version per confirmed insert, distinct hashes, the record naming the newest', async () => {
      const namespace = 'versions';
      const options = { history: { keepVersions: 1_000, keepDays: 30 }, maxViewChars: 100_000 };
      const store = withHistory(createRedisStore({ url: url(), keyPrefix: prefix, namespace, ...options }));
      await store.create({ command: 'create', path: '/memories/log.md', file_text: 'base' });
      const batches = ['a', 'b', 'c', 'd'].map((who) =>
        Array.from({ length: 100 }, (_, index) => ({
          command: 'insert',
          path: '/memories/log.md',
          insert_line: 0,
          insert_text: `${who}-${index}`,
        })),
      );
      const outcomes = await runWorkers(url(), prefix, namespace, batches, options);
      for (const outcome of outcomes.flat()) {
        expect(outcome).toEqual({ ok: 'The file /memories/log.md has been edited.' });
      }
      const view = await store.view({ command: 'view', path: '/memories/log.md' });
      const content = view
        .split('\n')
        .slice(1)
        .map((line) => line.replace(/^ *\d+\t/, ''))
        .join('\n');
      expect(content.split('\n')).toHaveLength(401);
      const versions: MemoryVersion[] = [];
      for (let cursor: string | undefined; ; ) {
        const page = await store.history({ path: '/memories/log.md', limit: 1_000, cursor });
        versions.push(...page.versions);
        if (page.next === null) break;
        cursor = page.next;
      }
      expect(versions.filter((version) => version.operation === 'modified')).toHaveLength(400);
      expect(versions).toHaveLength(401);
      expect(new Set(versions.map((version) => version.sha256)).size).toBe(401);
      const sha256 = createHash('sha256').update(content, 'utf8').digest('hex');
      expect(versions[0]!.sha256).toBe(sha256);
      const driver = createRedisDriver({ url: url(), keyPrefix: prefix });
      const record = await driver.namespace(namespace).readRecord!('log.md' as DriverPath);
      expect(record).toMatchObject({
        sha256,
        size: Buffer.byteLength(content),
        versionId: versions[0]!.id,
        fileId: versions[0]!.fileId,
      });
      await driver.close();
      await store.close();
    }, 120_000);

    // Standalone only: the Cluster runs the same scripts on one slot (the conformance suite's quota
    // group covers it), and 4 more processes cost seconds.
    if (label === 'standalone')
      it('4 processes racing to fill a namespace never pass its quota, not by one byte', async () => {
        // 4 x 25 creates of 37 bytes against 1,000 bytes: exactly 27 fit, the rest are refused.
        const batches = ['a', 'b', 'c', 'd'].map((who) =>
          Array.from({ length: 25 }, (_, index) => ({
            command: 'create',
            path: `/memories/${who}/${String(index).padStart(2, '0')}.md`,
            file_text: `${who}${'x'.repeat(36)}`,
          })),
        );
        const outcomes = (
          await runWorkers(url(), prefix, 'full', batches, { quota: { maxBytes: 1_000 } })
        ).flat();
        expect(outcomes.filter((outcome) => outcome.ok !== undefined)).toHaveLength(27);
        for (const outcome of outcomes) {
          if (outcome.ok === undefined) {
            expect(outcome.code).toBe('QUOTA_EXCEEDED');
            expect(outcome.error).toMatch(
              /^The memory directory is full: saving \/memories\/.* would use 1036 of 1000 bytes\./,
            );
          }
        }
        const store = createRedisStore({ url: url(), keyPrefix: prefix, namespace: 'full' });
        expect((await store.view({ command: 'view', path: '/memories' })).split('\n')[1]).toBe(
          '999B\t/memories',
        );
        await store.close();
        expect(Number(await client.hget(`${prefix}{${prefix}/full}:t`, 'bytes'))).toBe(999);
      }, 120_000);

    // Standalone only, as above.
    if (label === 'standalone')
      it('4 writers killed with SIGKILL mid-way: the newest version of every file matches it, and every path gone says why', async () => {
        const namespace = 'killed';
        const batches = ['a', 'b', 'c', 'd'].map((who) =>
          Array.from({ length: 100 }, (_, index) => {
            const file = `/memories/k/${who}-${index % 10}.md`;
            const commands: object[] = [
              { command: 'create', path: file, file_text: `${who} ${index}` },
              {
                command: 'insert',
                path: '/memories/shared.md',
                insert_line: 0,
                insert_text: `${who}-${index}`,
              },
              { command: 'str_replace', path: file, old_str: `${who} ${index}`, new_str: `${who} ${index}!` },
            ];
            if (index % 10 === 9)
              commands.push({ command: 'rename', old_path: file, new_path: `${file}.${index}` });
            if (index % 7 === 6)
              commands.push({ command: 'delete', path: `/memories/k/${who}-${(index + 3) % 10}.md` });
            return commands;
          }).flat(),
        );
        const store = createRedisStore({ url: url(), keyPrefix: prefix, namespace });
        await store.create({ command: 'create', path: '/memories/shared.md', file_text: '# shared' });
        // Killed while about a quarter of the inserts are in (each worker sends all its commands at once).
        const inserts = async () =>
          (await store.view({ command: 'view', path: '/memories/shared.md' })).split('\n').length - 2;
        await killWorkers(url(), prefix, namespace, batches, async () => (await inserts()) >= 100);
        const driver = createRedisDriver({ url: url(), keyPrefix: prefix });
        const files = await filesOf(driver.namespace(namespace));
        expect(files.get('/memories/shared.md')).toMatch(/# shared$/);
        // Some commands landed after the kill was decided, and the kill came before the end.
        expect(files.get('/memories/shared.md')!.split('\n').length - 1).toBeLessThan(400);
        await expectHistoryMatches(withHistory(store), files);
        await driver.close();
        await store.close();
      }, 120_000);

    it('racing creates with overwrite: false in 4 processes have exactly one winner per path', async () => {
      const namespace = 'claims';
      const paths = Array.from({ length: 10 }, (_, index) => `/memories/claims/${index}.md`);
      const batches = ['a', 'b', 'c', 'd'].map((who) =>
        paths.flatMap((path) =>
          Array.from({ length: 5 }, (_, attempt) => ({
            command: 'create',
            path,
            file_text: `${who}-${attempt}`,
          })),
        ),
      );
      const outcomes = (await runWorkers(url(), prefix, namespace, batches, { overwrite: false })).flat();
      const store = createRedisStore({ url: url(), keyPrefix: prefix, namespace });
      for (const path of paths) {
        const forPath = outcomes.filter((_, index) => batches.flat()[index]!.path === path);
        const winners = forPath.filter((outcome) => outcome.ok !== undefined);
        expect(winners).toEqual([{ ok: `File created successfully at: ${path}` }]);
        for (const loser of forPath.filter((outcome) => outcome.ok === undefined)) {
          expect(loser).toEqual({ code: 'ALREADY_EXISTS', error: `File ${path} already exists` });
        }
        const winner = batches.flat()[outcomes.indexOf(winners[0]!)] as { file_text: string };
        expect(await store.view({ command: 'view', path })).toBe(
          `Here's the content of ${path} with line numbers:\n     1\t${winner.file_text}`,
        );
      }
      await store.close();
    }, 120_000);
  });
}
