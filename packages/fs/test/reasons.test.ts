// The reason and outcome of each BACKEND failure the filesystem store raises (`busy` is in
// lock.test.ts and deadline.test.ts; a full disk (`unavailable`) and a read-only mount
// (`misconfigured`) in recovery.test.ts; a root through a file in layout.test.ts).
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DriverPath } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsDriver, createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

describe('BACKEND reasons', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('timeout: a listing that keeps meeting a move mark past the deadline stops with reason timeout, within timeoutMs + 250 ms', async () => {
    const writer = createFsStore({ root });
    await writer.create({ command: 'create', path: '/memories/a/b.md', file_text: 'b' });
    await writer.close();
    // A mark that says a move is running (an odd seq), as a writer that died mid-move leaves it; a
    // listing takes it as stuck only after a second, and this store cannot take the lock to look:
    // it has written nothing yet.
    await utimes(join(root, '.memdir', 'seq'), 3, 3);
    const store = createFsStore({ root, timeoutMs: 400 });
    const started = Date.now();
    const failure = await store.view({ command: 'view', path: '/memories' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'BACKEND', reason: 'timeout', outcome: 'not-applied' });
    expect(Date.now() - started).toBeLessThan(400 + 250);
    // Once the mark has stood for a second, it is taken for what it is: a move that died.
    const patient = createFsStore({ root });
    await expect(patient.view({ command: 'view', path: '/memories' })).resolves.toContain('/memories/a/b.md');
    await store.close();
    await patient.close();
  });

  it('closed: a driver called after close() says it is closed, with reason closed', async () => {
    const driver = createFsDriver({ root });
    await driver.close();
    for (const call of [
      () => driver.read('' as DriverPath),
      () => driver.write('a.md' as DriverPath, 'a', { op: 'closed-write-000000000000' }),
      () =>
        driver.edit(
          'a.md' as DriverPath,
          { kind: 'insert', line: 0, text: 'x' },
          { op: 'x', maxFileBytes: 10 },
        ),
    ]) {
      await expect(call()).rejects.toMatchObject({
        code: 'BACKEND',
        message: 'The memory store is closed.',
        reason: 'closed',
        outcome: 'not-applied',
      });
    }
    const store = createFsStore({ root });
    await store.close();
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'closed',
    });
  });

  it('misconfigured: something other than a folder where memdir keeps its own files', async () => {
    await mkdir(root, { recursive: true });
    await rm(join(root, '.memdir'), { recursive: true, force: true });
    await writeFile(join(root, '.memdir'), 'not a folder');
    const store = createFsStore({ root });
    await expect(
      store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'misconfigured',
      outcome: 'not-applied',
      message:
        "The memory store is unavailable: something other than a folder is where memdir keeps its own files. Trying again will not help until the store's configuration is fixed.",
    });
    await store.close();
  });
});
