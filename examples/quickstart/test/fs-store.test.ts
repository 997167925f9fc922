import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInMemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { playDemoSession as runSession, DEMO_SESSION as session } from 'memdir';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'memdir-quickstart-test-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('quickstart on the filesystem store', () => {
  it('gives Claude the same text as the in-memory reference store, call for call', async () => {
    const store = createFsStore({ root });
    try {
      const onDisk = await runSession(store, session);
      const inMemory = await runSession(createInMemoryStore(), session);
      expect(onDisk.map(({ content, isError }) => ({ content, isError }))).toEqual(
        inMemory.map(({ content, isError }) => ({ content, isError })),
      );
    } finally {
      await store.close();
    }
  });

  it('leaves plain files a user can cat, owner-only, and no emptied folders', async () => {
    const store = createFsStore({ root });
    try {
      await runSession(store, session);
    } finally {
      await store.close();
    }
    const memories = path.join(root, 'memories');
    const preferences = session.find((step) => step.input['path'] === '/memories/user-preferences.md')!;
    expect(await readFile(path.join(memories, 'user-preferences.md'), 'utf8')).toBe(
      preferences.input['file_text'],
    );
    const archived = await readFile(path.join(memories, 'archive', 'checkout-retry.md'), 'utf8');
    expect(archived).toContain('- [x] Cap retries at 5 attempts\n');
    expect(archived).toContain('- retry.test.ts uses real timers: switch it to vi.useFakeTimers() first\n');
    expect((await stat(path.join(memories, 'user-preferences.md'))).mode & 0o777).toBe(0o600);
    await expect(stat(path.join(memories, 'scratch'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(path.join(memories, 'progress'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
