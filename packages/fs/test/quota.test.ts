// Quotas across processes, and the totals they are judged on (`.memdir/totals`): never passed by
// concurrent writers, recomputed whenever the record cannot be trusted.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { diskTotals, runInWorker, tempFolder, totalsRecord, type WorkerResult } from './helpers.js';

const bytesFull = (path: string, total: number, max: number) =>
  `The memory directory is full: saving ${path} would use ${total} of ${max} bytes. Delete or shorten files in /memories first.`;

describe('quotas across processes', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  const tenant = () => join(root, 'namespaces', 'tenant');
  /** Four processes, each firing all of `commands(who)` at one moment. */
  const race = (commands: (who: string) => unknown[], quota: { maxBytes?: number; maxFiles?: number }) => {
    const startAt = Date.now() + 1_500;
    return Promise.all(
      ['a', 'b', 'c', 'd'].map((who) =>
        runInWorker(root, commands(who), { namespace: 'tenant', quota, startAt }),
      ),
    );
  };

  it('4 processes racing to fill one namespace never take it past maxBytes, not by one byte', async () => {
    const max = 1_000;
    // Sizes from 1 to 13 bytes: the totals reach the quota exactly or within a byte many times over.
    const size = (who: string, index: number) => 1 + ((index * 7 + who.charCodeAt(0)) % 13);
    const creates = (who: string) =>
      Array.from({ length: 60 }, (_, index) => ({
        command: 'create',
        path: `/memories/${who}/${index}.md`,
        file_text: 'x'.repeat(size(who, index)),
      }));
    const results = await race(creates, { maxBytes: max });
    let saved = 0;
    let refused = 0;
    results.forEach((ofWorker, worker) => {
      const who = 'abcd'[worker]!;
      ofWorker.forEach((result: WorkerResult, index) => {
        const path = `/memories/${who}/${index}.md`;
        if (result.ok !== undefined) {
          expect(result.ok).toBe(`File created successfully at: ${path}`);
          saved += size(who, index);
          return;
        }
        refused++;
        expect(result.code, JSON.stringify(result)).toBe('QUOTA_EXCEEDED');
        // The total it would have left is past the quota, and what was there before it was not.
        const total = Number(/would use (\d+) of/.exec(result.error!)?.[1]);
        expect(result.error).toBe(bytesFull(path, total, max));
        expect(total).toBeGreaterThan(max);
        expect(total - size(who, index)).toBeLessThanOrEqual(max);
      });
    });
    expect(refused).toBeGreaterThan(0);
    const disk = await diskTotals(join(tenant(), 'memories'));
    expect(disk.bytes).toBe(saved);
    expect(disk.bytes).toBeLessThanOrEqual(max);
    expect(await totalsRecord(tenant())).toEqual({ state: 'clean', ...disk });
  }, 120_000);

  it('4 processes racing to fill one namespace never take it past maxFiles, not by one file', async () => {
    const creates = (who: string) =>
      Array.from({ length: 30 }, (_, index) => ({
        command: 'create',
        path: `/memories/${who}-${index}.md`,
        file_text: who,
      }));
    const results = (await race(creates, { maxFiles: 50 })).flat();
    expect(results.filter((result) => result.ok !== undefined)).toHaveLength(50);
    for (const result of results.filter((each) => each.ok === undefined)) {
      expect(result).toEqual({
        code: 'QUOTA_EXCEEDED',
        error: 'The memory directory is full: it holds 50 of 50 files. Delete files in /memories first.',
      });
    }
    expect((await diskTotals(join(tenant(), 'memories'))).files).toBe(50);
  }, 120_000);
});

describe('the totals record', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  /** A store whose quota leaves exactly `room` bytes above what the folder holds on disk. */
  async function expectRoomOf(room: number): Promise<void> {
    const disk = await diskTotals(join(root, 'memories'));
    const max = disk.bytes + room;
    const store = createFsStore({ root, quota: { maxBytes: max } });
    await expect(
      store.create({ command: 'create', path: '/memories/probe.md', file_text: 'p'.repeat(room + 1) }),
    ).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message: bytesFull('/memories/probe.md', max + 1, max),
    });
    await expect(
      store.create({ command: 'create', path: '/memories/probe.md', file_text: 'p'.repeat(room) }),
    ).resolves.toBe('File created successfully at: /memories/probe.md');
    expect(await totalsRecord(root)).toEqual({ state: 'clean', bytes: max, files: disk.files + 1 });
    await store.delete({ command: 'delete', path: '/memories/probe.md' });
    await store.close();
  }

  it('follows every kind of change: creates, overwrites, edits, renames and deletes of files and folders', async () => {
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'alpha' });
    await store.create({ command: 'create', path: '/memories/d/b.md', file_text: 'beta\u00e9' });
    await store.create({ command: 'create', path: '/memories/d/.hidden/c.md', file_text: 'hidden counts' });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'alpha, longer' });
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'longer',
      new_str: 'x',
    });
    await store.insert({ command: 'insert', path: '/memories/d/b.md', insert_line: 1, insert_text: 'line' });
    await store.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e/d' });
    expect(await totalsRecord(root)).toEqual({
      state: 'clean',
      ...(await diskTotals(join(root, 'memories'))),
    });
    await store.delete({ command: 'delete', path: '/memories/e' });
    expect(await totalsRecord(root)).toEqual({ state: 'clean', bytes: 8, files: 1 });
    await store.delete({ command: 'delete', path: '/memories/a.md' });
    expect(await totalsRecord(root)).toEqual({ state: 'clean', bytes: 0, files: 0 });
    await store.close();
  });

  for (const [label, record] of [
    ['left changing by a writer that died between a change and its totals', 'changing'],
    ['written on another boot of the kernel (a power failure may have lost the last ones)', 'another boot'],
    ['counted for another memories folder (removed, replaced or restored since)', 'another folder'],
    ['unreadable', 'garbage'],
    ['missing', 'missing'],
  ] as const) {
    it(`is recomputed from the files when it is ${label}`, async () => {
      const store = createFsStore({ root });
      await store.create({ command: 'create', path: '/memories/x/a.md', file_text: 'a'.repeat(30) });
      await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b'.repeat(12) });
      await store.close();
      const file = join(root, '.memdir', 'totals');
      const [, , , kernel, , , folder] = (await readFile(file, 'latin1')).trim().split(' ');
      const wrong = (state: string, on: string, of = folder) =>
        `memdir-totals 1 ${state} ${on} 999999 77 ${of}`.padEnd(191) + '\n';
      if (record === 'changing') await writeFile(file, wrong('changing', kernel!));
      if (record === 'another boot') await writeFile(file, wrong('clean', '0123456789abcdef'));
      if (record === 'another folder') await writeFile(file, wrong('clean', kernel!, '1:1:1'));
      if (record === 'garbage') await writeFile(file, 'not a totals record\n');
      if (record === 'missing') await writeFile(file, '');
      await expectRoomOf(5);
    });
  }

  it('counts files another program put in the folder once it is recomputed (README: delete .memdir/totals)', async () => {
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await writeFile(join(root, 'memories', 'outside.md'), 'o'.repeat(40));
    await writeFile(join(root, '.memdir', 'totals'), '');
    await store.close();
    await expectRoomOf(3);
  });
});
