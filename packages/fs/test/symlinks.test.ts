import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryStore } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

const ESCAPE = 'Path would escape /memories directory via symlink';

describe('symbolic links', () => {
  let root: string;
  let outside: string;
  let store: MemoryStore;
  let cleanups: (() => Promise<void>)[];

  beforeEach(async () => {
    const a = await tempFolder();
    const b = await tempFolder('memdir-outside-');
    root = a.path;
    outside = b.path;
    cleanups = [a.cleanup, b.cleanup];
    await writeFile(join(outside, 'secret.txt'), 'top secret');
    store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'mine' });
    const memories = join(root, 'memories');
    await symlink(outside, join(memories, 'out-dir'));
    await symlink(join(outside, 'secret.txt'), join(memories, 'out-file'));
    await symlink(join(outside, 'missing.txt'), join(memories, 'dangling'));
  });
  afterEach(async () => {
    await store.close();
    for (const cleanup of cleanups) await cleanup();
  });

  async function expectEscape(promise: Promise<string>) {
    await expect(promise).rejects.toMatchObject({ code: 'INVALID_PATH', message: ESCAPE });
  }

  async function expectOutsideUntouched() {
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  }

  it('view through a link out of the folder fails', async () => {
    await expectEscape(store.view({ command: 'view', path: '/memories/out-dir' }));
    await expectEscape(store.view({ command: 'view', path: '/memories/out-dir/secret.txt' }));
    await expectEscape(store.view({ command: 'view', path: '/memories/out-file' }));
  });

  it('create, str_replace and insert through a link out of the folder fail and write nothing', async () => {
    await expectEscape(
      store.create({ command: 'create', path: '/memories/out-dir/new.txt', file_text: 'x' }),
    );
    await expectEscape(
      store.create({ command: 'create', path: '/memories/out-dir/deep/new.txt', file_text: 'x' }),
    );
    await expectEscape(
      store.create({ command: 'create', path: '/memories/out-file', file_text: 'overwritten' }),
    );
    await expectEscape(store.create({ command: 'create', path: '/memories/dangling', file_text: 'x' }));
    await expectEscape(store.create({ command: 'create', path: '/memories/dangling/x', file_text: 'x' }));
    await expectEscape(
      store.str_replace({
        command: 'str_replace',
        path: '/memories/out-file',
        old_str: 'top',
        new_str: 'no',
      }),
    );
    await expectEscape(
      store.insert({
        command: 'insert',
        path: '/memories/out-dir/secret.txt',
        insert_line: 0,
        insert_text: 'x',
      }),
    );
    await expectOutsideUntouched();
  });

  it('delete and rename through a link out of the folder fail and change nothing', async () => {
    await expectEscape(store.delete({ command: 'delete', path: '/memories/out-dir' }));
    await expectEscape(store.delete({ command: 'delete', path: '/memories/out-dir/secret.txt' }));
    await expectEscape(
      store.rename({ command: 'rename', old_path: '/memories/out-file', new_path: '/memories/x' }),
    );
    await expectEscape(
      store.rename({
        command: 'rename',
        old_path: '/memories/notes.md',
        new_path: '/memories/out-dir/notes.md',
      }),
    );
    await expectOutsideUntouched();
    expect((await lstat(join(root, 'memories', 'out-dir'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(root, 'memories', 'notes.md'), 'utf8')).toBe('mine');
  });

  it('listings skip symbolic links', async () => {
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n4B\t/memories\n4B\t/memories/notes.md",
    );
  });

  it('a link that stays inside the folder is refused like any other (SPEC section 8), and not listed', async () => {
    await mkdir(join(root, 'memories', 'real'));
    await writeFile(join(root, 'memories', 'real', 'a.md'), 'inside');
    await symlink(join(root, 'memories', 'real'), join(root, 'memories', 'alias'));
    await expectEscape(store.view({ command: 'view', path: '/memories/alias/a.md' }));
    await expectEscape(store.view({ command: 'view', path: '/memories/alias' }));
    expect(await store.view({ command: 'view', path: '/memories' })).not.toContain('alias');
    expect(await store.view({ command: 'view', path: '/memories/real/a.md' })).toBe(
      "Here's the content of /memories/real/a.md with line numbers:\n     1\tinside",
    );
  });

  it('a link to memdir’s own folder counts as out of the memory folder', async () => {
    await symlink(join(root, '.memdir'), join(root, 'memories', 'internals'));
    await expectEscape(store.view({ command: 'view', path: '/memories/internals' }));
    await expectEscape(store.create({ command: 'create', path: '/memories/internals/lock', file_text: 'x' }));
  });
});

describe('files that are not plain files', () => {
  it('a link to an endless device is refused, not read forever', async () => {
    const { path: root, cleanup } = await tempFolder();
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await symlink('/dev/zero', join(root, 'memories', 'zero'));
    await expect(store.view({ command: 'view', path: '/memories/zero' })).rejects.toMatchObject({
      code: 'INVALID_PATH',
      message: ESCAPE,
    });
    await store.close();
    await cleanup();
  });

  it('a large file is read whole', async () => {
    const { path: root, cleanup } = await tempFolder();
    const store = createFsStore({ root });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    const lines = Array.from({ length: 20_000 }, (_, index) => `line ${index}`);
    await writeFile(join(root, 'memories', 'big.md'), lines.join('\n'));
    expect(await store.view({ command: 'view', path: '/memories/big.md', view_range: [19_999, -1] })).toBe(
      "Here's the content of /memories/big.md with line numbers:\n 19999\tline 19998\n 20000\tline 19999",
    );
    await store.close();
    await cleanup();
  });
});
