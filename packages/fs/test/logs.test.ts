// What the driver tells operators through the `logger` option: lock waits, broken locks, leftovers
// swept, recomputed totals, a folder reopened; never a path or a byte of content.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemdirLogger } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { startHolder, tempFolder } from './helpers.js';

describe('logs', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('says what happened to the lock, the totals and the folder, and never a path or content', async () => {
    const lines: string[] = [];
    const record = (level: string) => (message: string, fields?: Record<string, unknown>) => {
      lines.push(`${level} ${message} ${JSON.stringify(fields)}`);
    };
    const logger: MemdirLogger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    // A holder that dies while holding the lock: its lock is broken, its temporary file swept.
    const holder = startHolder(root);
    await holder.held;
    const busy = createFsStore({ root, logger, lockTimeoutMs: 200 });
    await expect(
      busy.create({ command: 'create', path: '/memories/secret-name.md', file_text: 'secret content' }),
    ).rejects.toMatchObject({ reason: 'busy' });
    await holder.kill();
    await busy.close();
    await writeFile(join(root, '.memdir', 'totals'), '');
    const store = createFsStore({ root, logger });
    await store.create({ command: 'create', path: '/memories/secret-name.md', file_text: 'secret content' });
    await rm(join(root, 'memories'), { recursive: true });
    await store.create({ command: 'create', path: '/memories/secret-name.md', file_text: 'secret content' });
    await store.close();

    const text = lines.join('\n');
    expect(text).toContain('warn fs: gave up waiting for the lock held by another process');
    expect(text).toContain('info fs: broke the lock of a dead process');
    expect(text).toContain('info fs: cleared leftovers of dead processes');
    expect(text).toMatch(/info fs: totals recounted \{"package":"@memdir\/fs","cause":"no-record"/);
    expect(text).toContain('info fs: reopening the memory folder: a different one stands in its place');
    // The new folder's totals are its own, not the removed one's.
    expect(text).toMatch(/info fs: totals recounted \{"package":"@memdir\/fs","cause":"other-folder"/);
    for (const secret of [root, 'secret-name', 'secret content', 'memories/']) {
      expect(text).not.toContain(secret);
    }
  }, 30_000);
});
