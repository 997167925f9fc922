import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { startHolder, tempFolder } from './helpers.js';

const BUSY = 'The memory store is busy: another process is holding its lock. Try again.';
const write = { command: 'create', path: '/memories/a.md', file_text: 'a' } as const;
const CREATED = 'File created successfully at: /memories/a.md';

describe('the cross-process lock', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('waits for a live holder, fails as busy after lockTimeoutMs, and goes on as soon as the holder is killed', async () => {
    // The holder's event loop is blocked too: it is alive but answers nothing, and must still
    // count as alive.
    const holder = startHolder(root);
    await holder.held;
    const store = createFsStore({ root, lockTimeoutMs: 300 });
    const started = Date.now();
    await expect(store.create(write)).rejects.toMatchObject({
      code: 'BACKEND',
      message: BUSY,
      reason: 'busy',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // Reads take no lock.
    await expect(store.view({ command: 'view', path: '/memories/a.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await store.view({ command: 'view', path: '/memories/held.md' })).toBe(
      "Here's the content of /memories/held.md with line numbers:\n     1\theld",
    );
    await holder.kill();
    const patient = createFsStore({ root, lockTimeoutMs: 3_000 });
    const afterKill = Date.now();
    await expect(patient.create(write)).resolves.toBe(CREATED);
    // A dead holder is seen at once (its socket refuses connections), not after a timeout.
    expect(Date.now() - afterKill).toBeLessThan(2_000);
    await store.close();
    await patient.close();
  }, 30_000);

  it('a holder that died leaves nothing that slows the next process: its lock, socket and temporary file are cleared', async () => {
    const holder = startHolder(root);
    await holder.held;
    // The hold is inside an edit: the holder has a temporary file open for the new content.
    expect(await readdir(join(root, '.memdir', 'tmp'))).toHaveLength(1);
    await holder.kill();
    const store = createFsStore({ root, lockTimeoutMs: 1_000 });
    await expect(store.create(write)).resolves.toBe(CREATED);
    expect(await readdir(join(root, '.memdir', 'tmp'))).toEqual([]);
    const own = (await readdir(join(root, '.memdir'))).filter((name) => name.startsWith('live-'));
    expect(own).toHaveLength(1); // this process's socket only
    await store.close();
  }, 30_000);

  it('a lock left on another kernel (a VM or machine sharing the folder) is broken once older than staleLockMs, and not before', async () => {
    await mkdir(join(root, '.memdir'), { recursive: true });
    await symlink('memdir-lock 2\n0123456789abcdef\ns0123456789abcdef\n1', join(root, '.memdir', 'lock'));
    const cautious = createFsStore({ root, lockTimeoutMs: 300, staleLockMs: 60_000 });
    await expect(cautious.create(write)).rejects.toMatchObject({ code: 'BACKEND', message: BUSY });
    const store = createFsStore({ root, lockTimeoutMs: 2_000, staleLockMs: 200 });
    await expect(store.create(write)).resolves.toBe(CREATED);
    await cautious.close();
    await store.close();
  });

  it('a lock that is not memdir’s is judged by its age alone', async () => {
    await mkdir(join(root, '.memdir'), { recursive: true });
    await symlink(`${process.pid}\nsome-host\nsome-token`, join(root, '.memdir', 'lock'));
    const store = createFsStore({ root, lockTimeoutMs: 2_000, staleLockMs: 200 });
    await expect(store.create(write)).resolves.toBe(CREATED);
    await store.close();
  });

  it('lockTimeoutMs is a cap: at or above timeoutMs it is allowed, and the deadline ends the wait with "busy" first', async () => {
    const holder = startHolder(root);
    await holder.held;
    const store = createFsStore({ root, timeoutMs: 1_000, lockTimeoutMs: 60_000 });
    const started = Date.now();
    const failure = await store.create(write).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'BACKEND', message: BUSY, reason: 'busy', outcome: 'not-applied' });
    expect(Date.now() - started).toBeLessThan(1_250);
    await holder.kill();
    await store.close();
  }, 30_000);
});
