import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { runInWorker, tempFolder, WORKER } from './helpers.js';

const execFileAsync = promisify(execFile);

describe('several processes on one folder', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('100 concurrent inserts from two processes and this one lose nothing', async () => {
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
    const inserts = (who: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 1,
        insert_text: `${who}-${index}\n`,
      }));
    const [first, second, here] = await Promise.all([
      runInWorker(root, inserts('a', 40)),
      runInWorker(root, inserts('b', 40)),
      Promise.all(inserts('c', 20).map((command) => store.execute(command))),
    ]);
    for (const result of [...first, ...second]) {
      expect(result).toEqual({ ok: 'The file /memories/log.md has been edited.' });
    }
    expect(here).toEqual(Array(20).fill('The file /memories/log.md has been edited.'));
    const lines = (await readFile(join(root, 'memories', 'log.md'), 'utf8')).split('\n');
    expect(lines[0]).toBe('# log');
    expect(lines.slice(1).sort()).toEqual(
      [...inserts('a', 40), ...inserts('b', 40), ...inserts('c', 20)].map((c) => c.insert_text.trim()).sort(),
    );
    await store.close();
  }, 60_000);

  it('racing creates with overwrite: false in two processes and this one have exactly one winner', async () => {
    const creates = (who: string) =>
      Array.from({ length: 5 }, (_, index) => ({
        command: 'create',
        path: '/memories/claim.md',
        file_text: `${who}-${index}`,
      }));
    const store = createFsStore({ root, overwrite: false });
    const [first, second, here] = await Promise.all([
      runInWorker(root, creates('a'), { overwrite: false }),
      runInWorker(root, creates('b'), { overwrite: false }),
      Promise.allSettled(creates('c').map((command) => store.execute(command))),
    ]);
    const results = [
      ...first,
      ...second,
      ...here.map((result) =>
        result.status === 'fulfilled'
          ? { ok: result.value }
          : { code: result.reason.code, error: result.reason.message },
      ),
    ];
    const winners = results.filter((result) => result.ok !== undefined);
    expect(winners).toEqual([{ ok: 'File created successfully at: /memories/claim.md' }]);
    for (const result of results.filter((candidate) => candidate.ok === undefined)) {
      expect(result).toEqual({ code: 'ALREADY_EXISTS', error: 'File /memories/claim.md already exists' });
    }
    const content = await readFile(join(root, 'memories', 'claim.md'), 'utf8');
    expect(content).toMatch(/^[abc]-[0-4]$/);
    await store.close();
  }, 60_000);

  it('a str_replace in another process never applies to content that changed under it', async () => {
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/todo.md', file_text: 'tokens:' });
    const tokens = Array.from({ length: 30 }, (_, index) => `t${index};`);
    // Every edit puts its token right after the unique marker. Two edits that both applied to the
    // same old content would leave only one of their tokens: a lost update.
    const edits = tokens.map((token) => ({
      command: 'str_replace',
      path: '/memories/todo.md',
      old_str: 'tokens:',
      new_str: `tokens:${token}`,
    }));
    const [first, second] = await Promise.all([
      runInWorker(root, edits.slice(0, 15)),
      runInWorker(root, edits.slice(15)),
    ]);
    expect([...first, ...second].every((result) => result.ok !== undefined)).toBe(true);
    const content = await readFile(join(root, 'memories', 'todo.md'), 'utf8');
    for (const token of tokens) expect(content).toContain(token);
    await store.close();
  }, 60_000);

  it('a process streaming commands steps aside for another process that waits for the lock', async () => {
    const store = createFsStore({ root });
    let streaming = true;
    const stream = (async () => {
      for (let index = 0; streaming; index++) {
        await store.create({ command: 'create', path: '/memories/stream.md', file_text: `line ${index}` });
      }
    })();
    // The worker gives up after 3 s: it only gets the lock if the streaming holder hands it over.
    const started = Date.now();
    const [result] = await runInWorker(
      root,
      [{ command: 'create', path: '/memories/other.md', file_text: 'from the worker' }],
      { lockTimeoutMs: 3_000 },
    );
    streaming = false;
    await stream;
    expect(result).toEqual({ ok: 'File created successfully at: /memories/other.md' });
    expect(Date.now() - started).toBeLessThan(5_000);
    await store.close();
  }, 60_000);
});

describe('listings while another process moves a folder', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('never show the folder in both places, in neither, or in part (reads take no lock)', async () => {
    const store = createFsStore({ root });
    const files = Array.from({ length: 40 }, (_, index) => `f${index}.md`);
    for (const file of files)
      await store.create({ command: 'create', path: `/memories/a/box/${file}`, file_text: 'x' });
    await store.create({ command: 'create', path: '/memories/b/keep.md', file_text: 'k' });
    const shuttle = execFileAsync(process.execPath, [
      WORKER,
      root,
      'shuttle',
      '/memories/a/box',
      '/memories/b/box',
      '400',
    ]);
    let listings = 0;
    let done = false;
    void shuttle.finally(() => {
      done = true;
    });
    while (!done) {
      const listing = await store.view({ command: 'view', path: '/memories' });
      const inA = listing.includes('/memories/a/box/');
      const inB = listing.includes('/memories/b/box/');
      expect(inA !== inB, listing).toBe(true);
      // Depth 2 shows the folder, not its files: its size says whether all 40 were counted.
      expect(listing, listing).toMatch(/\n40B\t\/memories\/[ab]\/box\//);
      listings++;
    }
    await shuttle;
    expect(listings).toBeGreaterThan(20);
    await store.close();
  }, 120_000);
});
