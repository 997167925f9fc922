import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

describe('files on disk', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('keeps each memory file as a plain file under {root}/memories', async () => {
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/projects/memdir.md', file_text: '# memdir\n' });
    expect(await readFile(join(root, 'memories', 'projects', 'memdir.md'), 'utf8')).toBe('# memdir\n');
    await store.close();
  });

  it('keeps a namespace in {root}/namespaces/{name}, apart from the default space', async () => {
    const tenant = createFsStore({ root, namespace: 'tenant-42' });
    const plain = createFsStore({ root });
    await tenant.create({ command: 'create', path: '/memories/a.md', file_text: 'tenant' });
    expect(await readFile(join(root, 'namespaces', 'tenant-42', 'memories', 'a.md'), 'utf8')).toBe('tenant');
    await expect(plain.view({ command: 'view', path: '/memories/a.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await tenant.close();
    await plain.close();
  });

  it('reads and writes the same folder as Anthropic’s BetaLocalFilesystemMemoryTool', async () => {
    const reference = await BetaLocalFilesystemMemoryTool.init(root);
    await reference.create({ command: 'create', path: '/memories/from-sdk.md', file_text: 'hello\n' });
    const store = createFsStore({ root });
    expect(await store.view({ command: 'view', path: '/memories/from-sdk.md' })).toBe(
      "Here's the content of /memories/from-sdk.md with line numbers:\n     1\thello\n     2\t",
    );
    await store.create({ command: 'create', path: '/memories/from-memdir.md', file_text: 'hi' });
    expect(await reference.view({ command: 'view', path: '/memories/from-memdir.md' })).toBe(
      "Here's the content of /memories/from-memdir.md with line numbers:\n     1\thi",
    );
    await store.close();
  });

  it('temporary files never show in listings and never collide with names the model picks', async () => {
    const store = createFsStore({ root });
    // Names a naive store might use for its own files.
    for (const path of ['/memories/.memdir/lock', '/memories/.tmp-1-2', '/memories/lock']) {
      await store.create({ command: 'create', path, file_text: 'model data' });
    }
    const writes = Array.from({ length: 40 }, (_, index) =>
      store.create({
        command: 'create',
        path: `/memories/batch/f${index}.md`,
        file_text: 'x'.repeat(10_000),
      }),
    );
    const views: string[] = [];
    for (let index = 0; index < 10; index++)
      views.push(await store.view({ command: 'view', path: '/memories' }));
    await Promise.all(writes);
    for (const view of views) {
      for (const line of view.split('\n').slice(2)) {
        expect(line).toMatch(/^\S+\t\/memories\/(lock|batch\/|batch\/f\d+\.md)$/);
      }
    }
    expect(await readFile(join(root, 'memories', '.memdir', 'lock'), 'utf8')).toBe('model data');
    expect(await readdir(join(root, '.memdir', 'tmp'))).toEqual([]);
    await store.close();
  });

  it('removes folders that delete and rename leave empty, and keeps the memory folder', async () => {
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a/b/c/file.md', file_text: 'x' });
    await store.rename({
      command: 'rename',
      old_path: '/memories/a/b/c/file.md',
      new_path: '/memories/z/file.md',
    });
    expect(await readdir(join(root, 'memories'))).toEqual(['z']);
    await store.delete({ command: 'delete', path: '/memories/z/file.md' });
    expect(await readdir(join(root, 'memories'))).toEqual([]);
    await store.close();
  });

  it('reports a root that runs through a file as BACKEND misconfigured, without the host path, to reads and changes', async () => {
    await writeFile(join(root, 'not-a-folder'), 'x');
    const store = createFsStore({ root: join(root, 'not-a-folder', 'memory') });
    const misconfigured = {
      code: 'BACKEND',
      reason: 'misconfigured',
      outcome: 'not-applied',
      message:
        "The memory store is unavailable: the path of the memory folder runs through a file. Trying again will not help until the store's configuration is fixed.",
    };
    await expect(
      store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' }),
    ).rejects.toMatchObject(misconfigured);
    const failure = await store.view({ command: 'view', path: '/memories' }).catch((error: unknown) => error);
    expect(failure).toMatchObject(misconfigured);
    expect((failure as Error).message).not.toContain(root);
    expect((failure as Error).cause).toBeInstanceOf(Error);
    await store.close();
  });
});

describe('permissions', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let previousUmask: number;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
    // A permissive umask (as in many containers) must not widen what memdir creates.
    previousUmask = process.umask(0);
  });
  afterEach(async () => {
    process.umask(previousUmask);
    await cleanup();
  });

  it('creates files 0600 and folders 0700, also after edits', async () => {
    const store = createFsStore({ root: join(root, 'memory') });
    await store.create({ command: 'create', path: '/memories/a/b/note.md', file_text: 'one' });
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a/b/note.md',
      old_str: 'one',
      new_str: 'two',
    });
    await store.rename({
      command: 'rename',
      old_path: '/memories/a/b/note.md',
      new_path: '/memories/c/d/note.md',
    });
    const mode = async (...parts: string[]) => (await stat(join(root, 'memory', ...parts))).mode & 0o777;
    expect(await mode()).toBe(0o700);
    expect(await mode('memories')).toBe(0o700);
    expect(await mode('memories', 'c')).toBe(0o700);
    expect(await mode('memories', 'c', 'd')).toBe(0o700);
    expect(await mode('memories', 'c', 'd', 'note.md')).toBe(0o600);
    expect(await mode('.memdir')).toBe(0o700);
    await mkdir(join(root, 'memory', 'memories', 'x'), { mode: 0o755 });
    await store.create({ command: 'create', path: '/memories/x/y.md', file_text: 'y' });
    expect(await mode('memories', 'x', 'y.md')).toBe(0o600);
    await store.close();
  });
});
