import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wrapDriver } from '../src/driver/index.js';
import {
  type CopyProgress,
  copyStore,
  createInMemoryDriver,
  createMemoryStore,
  type MemdirStore,
  type MemoryDriver,
  type MemoryStore,
  storeDriver,
} from '../src/index.js';

const md5 = (content: string) => createHash('md5').update(content, 'utf8').digest('hex');

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

  it("keeps the target's quota: a file past it is not written and is reported as its commands would say", async () => {
    const from = createMemoryStore(createInMemoryDriver());
    await seed(from, { '/memories/a.md': 'aaaa', '/memories/b.md': 'bbbb', '/memories/c.md': 'cccc' });
    const byCount = createInMemoryDriver();
    const counted = await copyStore(from, byCount, { quota: { maxFiles: 2 }, concurrency: 1 });
    expect(counted.problems).toEqual([
      {
        path: '/memories/c.md',
        reason: 'The memory directory is full: it holds 2 of 2 files. Delete files in /memories first.',
      },
    ]);
    expect(counted).toMatchObject({ copied: 2, verified: false });
    expect(Object.keys(await filesOf(byCount))).toEqual(['a.md', 'b.md']);
    const byBytes = createInMemoryDriver();
    const sized = await copyStore(from, byBytes, { quota: { maxBytes: 10 }, concurrency: 1 });
    expect(sized.problems).toEqual([
      {
        path: '/memories/c.md',
        reason:
          'The memory directory is full: saving /memories/c.md would use 12 of 10 bytes. Delete or shorten files in /memories first.',
      },
    ]);
    await expect(copyStore(from, createInMemoryDriver(), { quota: { maxFiles: 0 } })).rejects.toThrow(
      'copyStore: quota.maxFiles must be a positive integer, got 0',
    );
    const noQuotas = wrapDriver(createInMemoryDriver(), { capabilities: { atomicRename: true } });
    await expect(copyStore(from, noQuotas, { quota: { maxFiles: 5 } })).rejects.toThrow(
      "copyStore: the target's driver cannot enforce quotas (capabilities.quotas is not set)",
    );
  });

  it('reads the target once per file, to verify it, when the target did not hold the file', async () => {
    const from = createMemoryStore(createInMemoryDriver());
    const many: Record<string, string> = {};
    for (let index = 0; index < 50; index++) many[`/memories/d${index % 5}/f${index}.md`] = `file ${index}`;
    await seed(from, many);
    const inner = createInMemoryDriver();
    let reads = 0;
    const counting: MemoryDriver = wrapDriver(inner, {
      namespace: () => counting,
      read(path, options) {
        reads++;
        return inner.read(path, options);
      },
    });
    const report = await copyStore(from, counting, { concurrency: 4 });
    expect(report).toMatchObject({ copied: 50, verified: true });
    expect(reads).toBe(50);
    // Run again: each file is read to compare it, then to verify it.
    reads = 0;
    expect(await copyStore(from, counting)).toMatchObject({ identical: 50, verified: true });
    expect(reads).toBe(100);
  });

  describe('into a target whose listing carries MD5s (capabilities.listsContentMd5)', () => {
    /**
     * An in-memory target that lists each file's MD5 as `md5Of` says (the true one unless a test
     * says otherwise) and counts its reads and listings.
     */
    function md5Target(md5Of: (content: string) => string | undefined = (content) => md5(content)) {
      const inner = createInMemoryDriver();
      const counts = { reads: 0, lists: 0 };
      const driver: MemoryDriver = wrapDriver(inner, {
        capabilities: { ...inner.capabilities, listsContentMd5: true },
        namespace: () => driver,
        read(path, options) {
          counts.reads++;
          return inner.read(path, options);
        },
        async *list(dir, options) {
          counts.lists++;
          for await (const entry of inner.list(dir, options)) {
            const node = await inner.read(entry.path);
            yield { ...entry, contentMd5: node?.kind === 'file' ? md5Of(node.content) : undefined };
          }
        },
      });
      return { inner, driver, counts };
    }

    it('verifies from one listing, reading no file back; run again, it knows identical files from the listing', async () => {
      const from = createMemoryStore(createInMemoryDriver());
      await seed(from, TRICKY);
      const target = md5Target();
      const report = await copyStore(from, target.driver);
      const files = Object.keys(TRICKY).length;
      expect(report).toMatchObject({
        copied: files,
        verified: true,
        verifiedFromListing: files,
        mismatches: [],
      });
      expect(target.counts).toEqual({ reads: 0, lists: 2 });
      expect(await filesOf(target.inner)).toEqual(await filesOf(storeDriver(from)!));
      target.counts.lists = 0;
      const again = await copyStore(from, target.driver);
      expect(again).toMatchObject({ copied: 0, identical: Object.keys(TRICKY).length, verified: true });
      expect(target.counts).toEqual({ reads: 0, lists: 2 });
    });

    it('a listed MD5 that is not the content\u2019s (an encrypted object\u2019s ETag) is no verdict: the file is read', async () => {
      const from = createMemoryStore(createInMemoryDriver());
      await seed(from, TRICKY);
      const target = md5Target(() => 'd41d8cd98f00b204e9800998ecf8427e');
      const report = await copyStore(from, target.driver);
      expect(report).toMatchObject({
        copied: Object.keys(TRICKY).length,
        verified: true,
        verifiedFromListing: 1,
        mismatches: [],
      });
      // Each file read once, to verify it; the one empty file's MD5 is that very value.
      expect(target.counts.reads).toBe(Object.keys(TRICKY).length - 1);
      // Run again: read to compare, then to verify.
      target.counts.reads = 0;
      expect(await copyStore(from, target.driver)).toMatchObject({ identical: Object.keys(TRICKY).length });
      expect(target.counts.reads).toBe(2 * (Object.keys(TRICKY).length - 1));
    });

    it('a file the target holds with other bytes than were written is a mismatch, whatever it lists', async () => {
      const from = createMemoryStore(createInMemoryDriver());
      await seed(from, { '/memories/a.md': 'the source', '/memories/b.md': 'fine' });
      const target = md5Target();
      // The backend keeps other bytes than it was given for a.md, and lists their true MD5.
      const lossy = wrapDriver(target.driver, {
        namespace: () => lossy,
        write(path, content, options) {
          return target.driver.write(path, path === 'a.md' ? 'the sourcE' : content, options);
        },
      });
      const report = await copyStore(from, lossy);
      expect(report.verified).toBe(false);
      expect(report.mismatches).toEqual([
        { path: '/memories/a.md', reason: 'different content in the target' },
      ]);
    });
  });

  it('holds at most 4 MiB of file content in flight, whatever the concurrency (one larger file goes alone)', async () => {
    const backend = createInMemoryDriver();
    let inFlight = 0;
    let most = 0;
    const watched: MemoryDriver = wrapDriver(backend, {
      namespace: () => watched,
      async read(path, options) {
        const node = await backend.read(path, options);
        const size = node?.kind === 'file' ? node.content.length : 0;
        inFlight += size;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= size;
        return node;
      },
    });
    const from = createMemoryStore(watched, { maxFileBytes: 8 * 1024 * 1024 });
    const files: Record<string, string> = {};
    for (let index = 0; index < 12; index++) files[`/memories/big${index}.md`] = 'x'.repeat(1024 * 1024);
    files['/memories/huge.md'] = 'y'.repeat(5 * 1024 * 1024);
    await seed(from, files);
    most = 0;
    const report = await copyStore(from, createInMemoryDriver(), {
      concurrency: 16,
      maxFileBytes: 8 * 1024 * 1024,
    });
    expect(report).toMatchObject({ copied: 13, verified: true });
    expect(most).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(most).toBeGreaterThanOrEqual(2 * 1024 * 1024);
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

describe('copyStore and history', () => {
  async function sourceWithHistory(): Promise<MemdirStore> {
    const from = createMemoryStore(createInMemoryDriver(), { actor: { type: 'user', id: 'alice' } });
    await seed(from, { '/memories/a.md': 'a1', '/memories/d/b.md': 'b' });
    await from.create({ command: 'create', path: '/memories/a.md', file_text: 'a2' });
    await from.rename({ command: 'rename', old_path: '/memories/d/b.md', new_path: '/memories/c.md' });
    await from.create({ command: 'create', path: '/memories/gone.md', file_text: 'g' });
    await from.delete({ command: 'delete', path: '/memories/gone.md' });
    return from;
  }

  it('withHistory copies every version as it is, then the files with their file ids and no version of their own', async () => {
    const from = await sourceWithHistory();
    const to = createMemoryStore(createInMemoryDriver());
    const phases = new Set<string>();
    const report = await copyStore(from, to, {
      withHistory: true,
      onProgress: (step) => phases.add(step.phase),
    });
    expect(report).toMatchObject({ versions: 6, copied: 2, verified: true });
    expect(phases).toEqual(new Set(['versions', 'scan', 'copy', 'verify']));
    const source = await from.history({ limit: 100 });
    expect(await to.history({ limit: 100 })).toEqual(source);
    // Run again: the history is there already (nothing to add), the files are identical.
    expect(await copyStore(from, to, { withHistory: true })).toMatchObject({
      versions: 0,
      identical: 2,
      verified: true,
    });
    await to.insert({ command: 'insert', path: '/memories/c.md', insert_line: 0, insert_text: 'new' });
    const [edit, renamed] = (await to.history({ path: '/memories/c.md' })).versions;
    expect(edit!.id > source.versions[0]!.id).toBe(true);
    expect(edit!.fileId).toBe(renamed!.fileId);
  });

  it('withHistory resumes after the versions the target already has, and refuses a target with a history of its own', async () => {
    const from = await sourceWithHistory();
    const target = createInMemoryDriver();
    const [first, second] = [...(await from.history()).versions].reverse();
    const full = await Promise.all(
      [first!, second!].map((version) => storeDriver(from)!.readVersion!(version.id)),
    );
    await target.importVersions!(
      full.map((version) => version!),
      {},
    );
    expect(await copyStore(from, target, { withHistory: true })).toMatchObject({
      versions: 4,
      verified: true,
    });
    const own = createMemoryStore(createInMemoryDriver());
    await own.create({ command: 'create', path: '/memories/mine.md', file_text: 'mine' });
    await expect(copyStore(from, own, { withHistory: true })).rejects.toMatchObject({
      code: 'CONFLICT',
      message:
        'copyStore withHistory: the target has a history of its own; copy into a store with no versions yet.',
    });
    const plain = wrapDriver(createInMemoryDriver(), { capabilities: { atomicRename: true } });
    await expect(copyStore(from, plain, { withHistory: true })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
    });
  });

  it('without withHistory a target with history records each file it writes as created by the import', async () => {
    const from = await sourceWithHistory();
    const to = createMemoryStore(createInMemoryDriver());
    await copyStore(from, to);
    const versions = (await to.history()).versions;
    expect(
      versions.map((version) => [version.path, version.operation, version.command, version.actor]),
    ).toEqual(
      expect.arrayContaining([
        ['/memories/a.md', 'created', 'import', null],
        ['/memories/c.md', 'created', 'import', null],
      ]),
    );
    expect(versions).toHaveLength(2);
  });
});
