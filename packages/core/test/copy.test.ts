import { describe, expect, it } from 'vitest';
import { wrapDriver } from '../src/driver/index.js';
import {
  type CopyProgress,
  copyStore,
  createInMemoryDriver,
  createMemoryStore,
  type MemoryDriver,
  type MemoryStore,
  storeDriver,
} from '../src/index.js';

/** Files that exercise what a careless copy gets wrong. */
const TRICKY: Record<string, string> = {
  '/memories/notes.md': '# Notes\n',
  '/memories/.hidden/secret.md': 'hidden files are copied too',
  '/memories/node_modules/pkg/index.js': 'module.exports = 1;',
  '/memories/a/b/c/deep.md': 'deep',
  '/memories/nul.bin': 'a\u0000b\u0000',
  '/memories/crlf.txt': 'one\r\ntwo\r\n',
  '/memories/bom.txt': '\ufeffbom',
  '/memories/nfd.txt': 'cafe\u0301 (NFD content stays NFD)',
  '/memories/astral \u{1f600}.md': '\u{1f600}\u2028\ue000',
  '/memories/wild_%*?[]{}\'":.md': 'literal name',
  '/memories/empty.md': '',
};

async function seed(store: MemoryStore, files: Record<string, string>): Promise<void> {
  for (const [path, file_text] of Object.entries(files))
    await store.create({ command: 'create', path, file_text });
}

/** Every file of a driver, hidden ones included. */
async function filesOf(driver: MemoryDriver): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for await (const entry of driver.list('' as never)) {
    const node = await driver.read(entry.path);
    if (node?.kind === 'file') files[entry.path] = node.content;
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe('copyStore', () => {
  it('copies every file, hidden ones and odd contents included, byte for byte, and verifies them', async () => {
    const from = createMemoryStore(createInMemoryDriver());
    const to = createMemoryStore(createInMemoryDriver());
    await seed(from, TRICKY);
    const report = await copyStore(from, to);
    expect(report).toMatchObject({
      files: Object.keys(TRICKY).length,
      copied: Object.keys(TRICKY).length,
      identical: 0,
      problems: [],
      mismatches: [],
      interrupted: false,
      verified: true,
      extraInTarget: 0,
    });
    expect(await filesOf(storeDriver(to)!)).toEqual(await filesOf(storeDriver(from)!));
    expect((await filesOf(storeDriver(to)!))['nul.bin']).toBe('a\u0000b\u0000');
  });

  it('run again, it rewrites nothing: every file is already identical', async () => {
    const from = createMemoryStore(createInMemoryDriver());
    const to = createMemoryStore(createInMemoryDriver());
    await seed(from, TRICKY);
    await copyStore(from, to);
    const before = await storeDriver(to)!.read('notes.md' as never);
    const again = await copyStore(from, to);
    expect(again).toMatchObject({ copied: 0, identical: Object.keys(TRICKY).length, verified: true });
    expect(await storeDriver(to)!.read('notes.md' as never)).toEqual(before);
  });

  it('an interrupted copy says so, and run again completes with every file once', async () => {
    const backend = createInMemoryDriver();
    const controller = new AbortController();
    // Stops the copy as the 50th file is read from the source (Ctrl-C in the CLI does the same).
    let reads = 0;
    const interrupting: MemoryDriver = wrapDriver(backend, {
      namespace: () => interrupting,
      read(path, options) {
        if (++reads === 50) controller.abort();
        return backend.read(path, options);
      },
    });
    const from = createMemoryStore(interrupting);
    const to = createMemoryStore(createInMemoryDriver());
    const many: Record<string, string> = {};
    for (let index = 0; index < 200; index++) many[`/memories/d${index % 7}/f${index}.md`] = `file ${index}`;
    await seed(from, many);
    const first = await copyStore(from, to, { signal: controller.signal, concurrency: 2 });
    expect(first.interrupted).toBe(true);
    expect(first.verified).toBe(false);
    expect(first.copied).toBeGreaterThanOrEqual(49);
    expect(first.copied).toBeLessThanOrEqual(52);
    const second = await copyStore(from, to);
    expect(second).toMatchObject({
      interrupted: false,
      verified: true,
      copied: 200 - first.copied,
      identical: first.copied,
    });
    expect(await filesOf(storeDriver(to)!)).toEqual(await filesOf(storeDriver(from)!));
  });

  it('a target file with other content is left alone and reported, unless overwrite is set', async () => {
    const from = createMemoryStore(createInMemoryDriver());
    const to = createMemoryStore(createInMemoryDriver());
    await seed(from, { '/memories/a.md': 'new', '/memories/b.md': 'b' });
    await seed(to, { '/memories/a.md': 'old', '/memories/keep.md': 'mine' });
    const report = await copyStore(from, to);
    expect(report.problems).toEqual([
      {
        path: '/memories/a.md',
        reason: 'the target has this file with other content (use overwrite to replace it)',
      },
    ]);
    expect(report).toMatchObject({ copied: 1, verified: false, extraInTarget: 1 });
    expect((await filesOf(storeDriver(to)!))['a.md']).toBe('old');
    const forced = await copyStore(from, to, { overwrite: true });
    expect(forced).toMatchObject({ copied: 1, identical: 1, problems: [], verified: true, extraInTarget: 1 });
    expect(await filesOf(storeDriver(to)!)).toEqual({ 'a.md': 'new', 'b.md': 'b', 'keep.md': 'mine' });
  });

  it("a file over the target's limit is not copied, not even in part, and is reported with its size", async () => {
    const source = createMemoryStore(createInMemoryDriver(), { maxFileBytes: 10 * 1024 * 1024 });
    const target = createInMemoryDriver();
    await seed(source, {
      '/memories/big.md': 'x'.repeat(3 * 1024 * 1024),
      '/memories/just-right.md': 'y'.repeat(100),
      '/memories/over.md': 'z'.repeat(101),
      '/memories/small.md': 'fits',
    });
    const report = await copyStore(source, target, { maxFileBytes: 100 });
    expect(report.problems).toEqual([
      {
        path: '/memories/big.md',
        reason: "it is 3145728 bytes, over the target's limit of 100 bytes per file",
      },
      { path: '/memories/over.md', reason: "it is 101 bytes, over the target's limit of 100 bytes per file" },
    ]);
    expect(report).toMatchObject({ files: 4, copied: 2, verified: false });
    expect(Object.keys(await filesOf(target))).toEqual(['just-right.md', 'small.md']);
    // Without the option, the limit is every store's default, 1 MiB.
    const defaults = await copyStore(source, createInMemoryDriver());
    expect(defaults.problems).toEqual([
      {
        path: '/memories/big.md',
        reason: "it is 3145728 bytes, over the target's limit of 1048576 bytes per file",
      },
    ]);
    await expect(copyStore(source, target, { maxFileBytes: 0 })).rejects.toThrow(
      'copyStore: maxFileBytes must be a positive integer, got 0',
    );
  });

  it('a path the target cannot take (a file or directory in the way, or too long) is reported', async () => {
    const from = createMemoryStore(createInMemoryDriver());
    await seed(from, {
      '/memories/x/y.md': 'under a file in the target',
      '/memories/dir': 'a directory in the target',
      [`/memories/${'l'.repeat(60)}`]: 'too long for the target',
    });
    const inner = createInMemoryDriver();
    const small: MemoryDriver = wrapDriver(inner, {
      capabilities: { atomicRename: true, maxPathBytes: 50 },
      namespace: () => small,
    });
    const to = createMemoryStore(small);
    await seed(to, { '/memories/x': 'file', '/memories/dir/inside.md': 'd' });
    const report = await copyStore(from, to);
    expect(report.problems).toEqual([
      { path: '/memories/dir', reason: 'the target has a directory at this path' },
      {
        path: `/memories/${'l'.repeat(60)}`,
        reason: 'the path is longer than the 50 bytes the target holds',
      },
      { path: '/memories/x/y.md', reason: 'the target has a file at /memories/x, where this file cannot go' },
    ]);
    expect(report.verified).toBe(false);
    expect(await filesOf(small)).toEqual({ 'dir/inside.md': 'd', x: 'file' });
  });

  it('copies between namespaces of one backend, and a dry run writes nothing', async () => {
    const backend = createInMemoryDriver();
    const from = createMemoryStore(backend, { namespace: 'alice' });
    const to = createMemoryStore(backend, { namespace: 'bob' });
    await seed(from, { '/memories/a.md': 'a', '/memories/.h': 'h' });
    const dry = await copyStore(from, to, { dryRun: true });
    expect(dry).toMatchObject({ copied: 2, verified: false });
    expect(await filesOf(backend.namespace('bob'))).toEqual({});
    await copyStore(from, to);
    expect(await filesOf(backend.namespace('bob'))).toEqual({ '.h': 'h', 'a.md': 'a' });
    expect(await filesOf(backend)).toEqual({});
  });

  it('reports progress through scan, copy and verify, ending with the totals', async () => {
    const from = createMemoryStore(createInMemoryDriver());
    const to = createMemoryStore(createInMemoryDriver());
    await seed(from, { '/memories/a.md': 'aaaa', '/memories/b.md': 'bb' });
    const seen: CopyProgress[] = [];
    await copyStore(from, to, { onProgress: (progress) => seen.push(progress) });
    const last = (phase: string) => seen.filter((progress) => progress.phase === phase).at(-1);
    expect(last('scan')).toMatchObject({ totalFiles: 2, totalBytes: 6 });
    expect(last('copy')).toMatchObject({ files: 2, bytes: 6, copied: 2, failed: 0 });
    expect(last('verify')).toMatchObject({ files: 2, bytes: 6 });
  });

  it('refuses a store written by hand, which has no driver to copy through', async () => {
    const handmade = { ...createMemoryStore(createInMemoryDriver()) };
    await expect(copyStore(handmade, createMemoryStore(createInMemoryDriver()))).rejects.toThrow(
      'copyStore: the source is a store written by hand',
    );
  });
});
