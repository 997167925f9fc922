import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { MemoryStore } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

const run = promisify(execFile);

const LISTING_HEADER =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const EMPTY_ROOT = `${LISTING_HEADER}\n0B\t/memories`;

describe('the folder on disk', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let store: MemoryStore;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
    root = join(root, 'memory');
  });
  afterEach(async () => {
    await store?.close();
    await cleanup();
  });

  it('createFsStore makes {root}/memories (0700) when it opens, before any command', async () => {
    store = createFsStore({ root });
    expect((await stat(join(root, 'memories'))).mode & 0o777).toBe(0o700);
    expect((await stat(root)).mode & 0o777).toBe(0o700);
    const tenant = createFsStore({ root, namespace: 'tenant' });
    expect((await stat(join(root, 'namespaces', 'tenant', 'memories'))).isDirectory()).toBe(true);
    await tenant.close();
  });

  it('recovers when the whole folder is removed while the store is open', async () => {
    store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a/note.md', file_text: 'before' });
    await rm(root, { recursive: true, force: true });
    // Reads see an empty store (and write nothing); the next write makes the folders again.
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(EMPTY_ROOT);
    await expect(store.view({ command: 'view', path: '/memories/a/note.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      store.create({ command: 'create', path: '/memories/a/note.md', file_text: 'after' }),
    ).resolves.toBe('File created successfully at: /memories/a/note.md');
    expect(await readFile(join(root, 'memories', 'a', 'note.md'), 'utf8')).toBe('after');
    // Again, this time right after a write (the lock may still be held in the removed folder).
    await rm(root, { recursive: true, force: true });
    await expect(
      store.insert({ command: 'insert', path: '/memories/a/note.md', insert_line: 0, insert_text: 'x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' })).resolves.toBe(
      'File created successfully at: /memories/b.md',
    );
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      `${LISTING_HEADER}\n1B\t/memories\n1B\t/memories/b.md`,
    );
  });

  it('recovers when only memories/ or only .memdir/ is removed', async () => {
    store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await rm(join(root, 'memories'), { recursive: true, force: true });
    await expect(store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' })).resolves.toBe(
      'File created successfully at: /memories/b.md',
    );
    await rm(join(root, '.memdir'), { recursive: true, force: true });
    await expect(store.create({ command: 'create', path: '/memories/c.md', file_text: 'c' })).resolves.toBe(
      'File created successfully at: /memories/c.md',
    );
    await expect(
      store.rename({ command: 'rename', old_path: '/memories/c.md', new_path: '/memories/d/c.md' }),
    ).resolves.toBe('Successfully renamed /memories/c.md to /memories/d/c.md');
    expect((await readdir(join(root, 'memories'))).sort()).toEqual(['b.md', 'd']);
  });

  it('a folder put in place of the old one (moved away) is used within a second', async () => {
    store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/old.md', file_text: 'old' });
    await rename(join(root, 'memories'), join(root, 'memories-backup'));
    await mkdir(join(root, 'memories'));
    await writeFile(join(root, 'memories', 'new.md'), 'new');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      `${LISTING_HEADER}\n3B\t/memories\n3B\t/memories/new.md`,
    );
    await store.create({ command: 'create', path: '/memories/later.md', file_text: 'later' });
    expect((await readdir(join(root, 'memories'))).sort()).toEqual(['later.md', 'new.md']);
    expect(await readdir(join(root, 'memories-backup'))).toEqual(['old.md']);
  });

  it('an empty folder (left by a crash or by hand) is no directory: views miss it, writes and moves take its name', async () => {
    store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/keep.md', file_text: 'k' });
    for (const name of ['e1', 'e2', 'e3', 'e4', 'e5'])
      await mkdir(join(root, 'memories', name, 'inner'), { recursive: true });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      `${LISTING_HEADER}\n1B\t/memories\n1B\t/memories/keep.md`,
    );
    await expect(store.view({ command: 'view', path: '/memories/e1' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      store.str_replace({ command: 'str_replace', path: '/memories/e1', old_str: 'a', new_str: 'b' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.delete({ command: 'delete', path: '/memories/e2' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'The path /memories/e2 does not exist',
    });
    await expect(
      store.rename({ command: 'rename', old_path: '/memories/e2', new_path: '/memories/x' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      store.create({ command: 'create', path: '/memories/e3', file_text: 'now a file' }),
    ).resolves.toBe('File created successfully at: /memories/e3');
    expect(await readFile(join(root, 'memories', 'e3'), 'utf8')).toBe('now a file');
    await expect(
      store.rename({ command: 'rename', old_path: '/memories/keep.md', new_path: '/memories/e4' }),
    ).resolves.toBe('Successfully renamed /memories/keep.md to /memories/e4');
    await expect(
      store.create({ command: 'create', path: '/memories/e5/inner/deep.md', file_text: 'd' }),
    ).resolves.toBe('File created successfully at: /memories/e5/inner/deep.md');
  });
});

/** A tmpfs of its own, so the test can fill it or make it read-only. Needs root. */
async function mountTmpfs(options: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const { path, cleanup } = await tempFolder('memdir-mount-');
  await run('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', path]);
  return {
    path,
    cleanup: async () => {
      await run('umount', ['-l', path]);
      await cleanup();
    },
  };
}

const READ_ONLY =
  'The memory store is read-only: its folder is on a read-only filesystem, so changes cannot be saved. Viewing still works.';

describe('a read-only folder', () => {
  let mount: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    mount = await mountTmpfs('size=4m,mode=0700');
  });
  afterEach(() => mount.cleanup());

  async function remountReadOnly() {
    await run('mount', ['-o', 'remount,ro', mount.path]);
  }

  it('views and listings work, every change fails with a clear BACKEND error and changes nothing', async () => {
    const writer = createFsStore({ root: mount.path });
    await writer.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha' });
    await writer.close();
    await remountReadOnly();
    const store = createFsStore({ root: mount.path });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      `${LISTING_HEADER}\n5B\t/memories\n5B\t/memories/notes/\n5B\t/memories/notes/a.md`,
    );
    expect(await store.view({ command: 'view', path: '/memories/notes/a.md' })).toBe(
      "Here's the content of /memories/notes/a.md with line numbers:\n     1\talpha",
    );
    for (const command of [
      { command: 'create', path: '/memories/b.md', file_text: 'b' },
      { command: 'create', path: '/memories/notes/a.md', file_text: 'b' },
      { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'alpha', new_str: 'beta' },
      { command: 'insert', path: '/memories/notes/a.md', insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: '/memories/notes/a.md' },
      { command: 'rename', old_path: '/memories/notes/a.md', new_path: '/memories/z.md' },
    ]) {
      const failure = await store.execute(command).catch((error: unknown) => error);
      expect(failure, JSON.stringify(command)).toMatchObject({
        code: 'BACKEND',
        message: READ_ONLY,
        reason: 'misconfigured',
        outcome: 'not-applied',
      });
      expect((failure as Error).message).not.toContain(mount.path);
    }
    expect(await readFile(join(mount.path, 'memories', 'notes', 'a.md'), 'utf8')).toBe('alpha');
    await store.close();
  });

  it('a folder memdir never wrote to (no .memdir, as Anthropic’s own tool leaves it) lists and views', async () => {
    await mkdir(join(mount.path, 'memories', 'x'), { recursive: true });
    await writeFile(join(mount.path, 'memories', 'x', 'y.md'), 'y');
    await remountReadOnly();
    const store = createFsStore({ root: mount.path });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      `${LISTING_HEADER}\n1B\t/memories\n1B\t/memories/x/\n1B\t/memories/x/y.md`,
    );
    expect(await store.view({ command: 'view', path: '/memories/x/y.md' })).toBe(
      "Here's the content of /memories/x/y.md with line numbers:\n     1\ty",
    );
    await expect(
      store.create({ command: 'create', path: '/memories/n.md', file_text: 'n' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      message: READ_ONLY,
    });
    await store.close();
  });
});

describe('a full disk', () => {
  let mount: { path: string; cleanup: () => Promise<void> };
  afterEach(() => mount.cleanup());

  /** Writes filler files outside the memory folder until the filesystem refuses. */
  async function fill(folder: string, chunk: number): Promise<string[]> {
    await mkdir(folder, { recursive: true });
    const names: string[] = [];
    for (let index = 0; ; index++) {
      const name = join(folder, `filler-${index}`);
      try {
        await writeFile(name, Buffer.alloc(chunk, 1));
        names.push(name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        await rm(name, { force: true });
        return names;
      }
    }
  }

  it('a write that does not fit fails as BACKEND, leaves no folder behind and keeps the old content', async () => {
    mount = await mountTmpfs('size=1m,mode=0700');
    const store = createFsStore({ root: mount.path });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'old content' });
    await fill(join(mount.path, 'filler'), 4096);
    const big = 'x'.repeat(200_000);
    const full = {
      code: 'BACKEND',
      message: 'The memory store is unavailable: the disk is full. Try again.',
      reason: 'unavailable',
      outcome: 'not-applied',
    };
    await expect(
      store.create({ command: 'create', path: '/memories/new/deep/file.md', file_text: big }),
    ).rejects.toMatchObject(full);
    await expect(
      store.create({ command: 'create', path: '/memories/a.md', file_text: big }),
    ).rejects.toMatchObject(full);
    await expect(
      store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'old', new_str: big }),
    ).rejects.toMatchObject(full);
    expect(await readdir(join(mount.path, 'memories'))).toEqual(['a.md']);
    expect(await readFile(join(mount.path, 'memories', 'a.md'), 'utf8')).toBe('old content');
    expect(await readdir(join(mount.path, '.memdir', 'tmp'))).toEqual([]);
    expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\told content",
    );
    await store.close();
  });

  it('out of inodes, a create in new folders leaves none of them behind, however far it got', async () => {
    mount = await mountTmpfs('size=4m,nr_inodes=400,mode=0700');
    const store = createFsStore({ root: mount.path });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    const fillers = await fill(join(mount.path, 'filler'), 1);
    // Free one inode at a time until the create fits: every attempt before that failed at a
    // different step (the lock, the temporary file, the first, second or third folder).
    let failures = 0;
    for (;;) {
      const outcome = await store
        .create({ command: 'create', path: '/memories/x/y/z/file.md', file_text: 'z' })
        .catch((error: unknown) => error);
      if (typeof outcome === 'string') break;
      failures++;
      expect(outcome).toMatchObject({
        code: 'BACKEND',
        message: 'The memory store is unavailable: the disk is full. Try again.',
      });
      expect(await readdir(join(mount.path, 'memories'))).toEqual(['a.md']);
      expect(await readdir(join(mount.path, '.memdir', 'tmp'))).toEqual([]);
      await rm(fillers.pop()!);
    }
    expect(failures).toBeGreaterThanOrEqual(4);
    expect(await readFile(join(mount.path, 'memories', 'x', 'y', 'z', 'file.md'), 'utf8')).toBe('z');
    await store.close();
  });
});
