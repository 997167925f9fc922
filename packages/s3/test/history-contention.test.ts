// S3 with history on (the default) under contention from several processes (issue 34, point 5), with
// the default options: 4 processes x 250 concurrent inserts into one file, each confirmed once and
// recorded by exactly one version, without writing each version again on every lost round; and 4
// processes racing to fill a namespace's quota with new files, each create either made or refused
// with QUOTA_EXCEEDED. The inserts take longer than `timeoutMs` (5 s) on a loaded machine: they wait
// their turn behind writers that keep finishing, so `queueTimeoutMs` (60 s) bounds them. What is
// asserted is the outcome, not a speed: `pnpm bench --section s3` times the same case.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { MemoryHistory, MemoryStore, MemoryVersion } from '@memdir/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Store } from '../src/index.js';
import {
  bucket,
  clearPrefix,
  keysUnder,
  leftovers,
  rawClient,
  server,
  storeOptions,
  uniquePrefix,
} from './helpers.js';

const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));
const admin = rawClient();
const prefixes: string[] = [];
afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await clearPrefix(admin, `${prefix}/`);
});
afterAll(() => admin.destroy());

interface Result {
  ok?: string;
  code?: string;
  error?: string;
}

/** What a worker counted: its results, and the requests the server accepted, by kind. */
interface Counted {
  results: Result[];
  requests: Record<string, number>;
}

/** Runs tool inputs all at once in another Node.js process, counting its requests. */
function runWorker(prefix: string, commands: unknown[], store: object): Promise<Counted> {
  const payload = JSON.stringify({
    store: { store: { bucket, prefix, ...store }, clientConfig: server.clientConfig },
    commands,
    countRequests: true,
  });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WORKER, payload], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`worker failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as Counted);
    });
  });
}

function newPrefix(label: string): string {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  return prefix;
}

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every version of `path`, newest first, page after page. */
async function allVersions(store: MemoryHistory, path: string): Promise<MemoryVersion[]> {
  const versions: MemoryVersion[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.history({ path, limit: 1_000, cursor });
    versions.push(...page.versions);
    if (page.next === null) return versions;
    cursor = page.next;
  }
}

/** A file's content from a view with line numbers. */
function contentOf(view: string): string {
  return view
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^ *\d+\t/, ''))
    .join('\n');
}

const WHO = ['a', 'b', 'c', 'd'];
/** Inserts per process: the issue's 250. */
const PER_PROCESS = 250;
const INSERTS = WHO.length * PER_PROCESS;
/** The store's defaults: `timeoutMs` 5 s, `queueTimeoutMs` 60 s, history on. */
const DEFAULTS = {};

describe('history on, several processes (issue 34)', () => {
  it('4 processes x 250 concurrent inserts into one file, default options: all confirmed, every line once, one version each, few written twice', async () => {
    const prefix = newPrefix('history-inserts');
    // The checker, not under test: its history pages of 1,000 versions are 1,000 ranged GETs each,
    // which a loaded machine may not fit in 5 s. The workers run at the default options.
    const store = createS3Store({
      ...storeOptions(prefix),
      timeoutMs: 60_000,
      maxViewChars: 100_000,
    }) as MemoryStore & MemoryHistory;
    await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
    const inserts = (who: string) =>
      Array.from({ length: PER_PROCESS }, (_, index) => ({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 1,
        insert_text: `${who}-${index}`,
      }));
    const workers = await Promise.all(WHO.map((who) => runWorker(prefix, inserts(who), DEFAULTS)));
    const results = workers.flatMap((worker) => worker.results);
    expect(results).toHaveLength(INSERTS);
    for (const result of results)
      expect(result).toEqual({ ok: 'The file /memories/log.md has been edited.' });
    const content = contentOf(await store.view({ command: 'view', path: '/memories/log.md' }));
    const lines = content.split('\n');
    expect(lines[0]).toBe('# log');
    expect(lines.slice(1).sort()).toEqual(
      WHO.flatMap((who) => inserts(who).map((command) => command.insert_text)).sort(),
    );
    const versions = await allVersions(store, '/memories/log.md');
    await store.close();
    // One version per confirmed insert (and the create): none lost, none twice.
    expect(versions.map((version) => version.operation).sort()).toEqual([
      'created',
      ...Array.from({ length: INSERTS }, () => 'modified'),
    ]);
    expect(new Set(versions.map((version) => version.id)).size).toBe(INSERTS + 1);
    expect(new Set(versions.map((version) => version.operationId)).size).toBe(INSERTS + 1);
    // Each insert adds one line: the versions' sizes all differ, and the newest is the content.
    expect(new Set(versions.map((version) => version.size)).size).toBe(INSERTS + 1);
    expect(versions[0]!.sha256).toBe(sha(content));
    // Groups that lost a race do not write their versions again round after round: before, the
    // processes wrote about 2.7 version objects per insert (2,650-3,000 for 1,000), discarding the rest.
    const written = workers.reduce((sum, worker) => sum + (worker.requests.VERSION ?? 0), 0);
    expect(written).toBeGreaterThanOrEqual(INSERTS);
    expect(written).toBeLessThanOrEqual(INSERTS * 1.5);
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 240_000);

  it('4 processes racing to fill a quota with new files, default options: each create made or refused with QUOTA_EXCEEDED, the quota filled exactly', async () => {
    const prefix = newPrefix('history-quota-race');
    const quota = { maxBytes: 100_000, maxFiles: 30 };
    const creates = (who: string) =>
      Array.from({ length: 25 }, (_, index) => ({
        command: 'create',
        path: `/memories/${who}/f${index}.md`,
        file_text: `${who}${index}`.padEnd(20, '.'),
      }));
    const results = await Promise.all(
      WHO.map((who) => runWorker(prefix, creates(who), { quota, ...DEFAULTS })),
    );
    const made: string[] = [];
    for (const [worker, who] of WHO.entries()) {
      for (const [index, result] of results[worker]!.results.entries()) {
        const path = `/memories/${who}/f${index}.md`;
        if (result.ok !== undefined) {
          expect(result).toEqual({ ok: `File created successfully at: ${path}` });
          made.push(path);
        } else {
          expect(result).toEqual({
            code: 'QUOTA_EXCEEDED',
            error: 'The memory directory is full: it holds 30 of 30 files. Delete files in /memories first.',
          });
        }
      }
    }
    // No file was given up on: the quota is filled to the file.
    expect(made).toHaveLength(quota.maxFiles);
    const keys = await keysUnder(admin, `${prefix}/memories/`);
    expect(keys.map((key) => key.slice(prefix.length)).sort()).toEqual(made.sort());
    const store = createS3Store({ ...storeOptions(prefix), quota }) as MemoryStore & MemoryHistory;
    for (const path of made) {
      const [who, index] = [path.split('/')[2]!, path.match(/f(\d+)/)![1]!];
      expect(await store.view({ command: 'view', path })).toBe(
        `Here's the content of ${path} with line numbers:\n     1\t${`${who}${index}`.padEnd(20, '.')}`,
      );
    }
    // One version each, all of files made.
    const versions = await allVersions(store, '/memories');
    expect(versions.map((version) => `${version.operation} ${version.path}`).sort()).toEqual(
      made.map((path) => `created ${path}`).sort(),
    );
    await store.close();
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 180_000);
});
