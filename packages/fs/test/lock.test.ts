import { spawn } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

describe('the cross-process lock', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
    await mkdir(join(root, '.memdir'), { recursive: true });
  });
  afterEach(() => cleanup());

  // The lock as a holder leaves it: a symbolic link whose target names the owner.
  const holdLock = (pid: number) =>
    symlink(`${pid}\n${hostname()}\nsome-token`, join(root, '.memdir', 'lock'));

  it('waits for a live holder, fails as busy after lockTimeoutMs, and goes on once the holder is gone', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    await holdLock(holder.pid!);
    const store = createFsStore({ root, lockTimeoutMs: 300 });
    const write = { command: 'create', path: '/memories/a.md', file_text: 'a' } as const;
    await expect(store.create(write)).rejects.toMatchObject({
      code: 'BACKEND',
      message: 'The memory store is busy: another process is holding its lock. Try again.',
    });
    await expect(store.view({ command: 'view', path: '/memories/a.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.on('exit', resolve));
    await expect(store.create(write)).resolves.toBe('File created successfully at: /memories/a.md');
    await store.close();
  });

  it('breaks a lock left by a process that died', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    await holdLock(dead.pid!);
    const store = createFsStore({ root, lockTimeoutMs: 1_000 });
    await expect(store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' })).resolves.toBe(
      'File created successfully at: /memories/a.md',
    );
    await store.close();
  });

  it('breaks a lock older than staleLockMs even when its pid is alive (pid reuse)', async () => {
    await holdLock(process.pid);
    const store = createFsStore({ root, lockTimeoutMs: 2_000, staleLockMs: 200 });
    await expect(store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' })).resolves.toBe(
      'File created successfully at: /memories/a.md',
    );
    await store.close();
  });
});
