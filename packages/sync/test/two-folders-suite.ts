// The two-folder tests as one call per store: two folders, an agent and one store of any kind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemdirStore } from '@memdir/core';
import { describe, expect, test } from 'vitest';
import { formatSummary, syncOnce } from '../src/index.js';
import { folderFiles, put, sorted, storeFiles, tempDir } from './helpers.js';

export interface StoreCase {
  name: string;
  open(history: boolean): Promise<MemdirStore>;
}

export function twoFolderSuite(c: StoreCase): void {
  describe(`${c.name}: two folders on one store`, () => {
    const opts = (host: string) => ({ storeId: `test:${c.name}`, host, deleteDelay: 0 });

    test('edits on both sides and by an agent converge', async () => {
      await using store = await c.open(true);
      const a = tempDir();
      const b = tempDir();
      put(a, 'notes/a.md', 'from a');
      put(b, 'b.md', 'from b');
      await store.create({ command: 'create', path: '/memories/agent.md', file_text: 'agent wrote\n' });
      for (let round = 0; round < 2; round++) {
        await syncOnce(a, store, opts('A'));
        await syncOnce(b, store, opts('B'));
      }
      put(a, 'notes/a.md', 'from a, edited');
      await store.str_replace({
        command: 'str_replace',
        path: '/memories/agent.md',
        old_str: 'agent',
        new_str: 'the agent',
      });
      put(b, 'b.md', 'from b, edited');
      const first = await syncOnce(a, store, opts('A'));
      expect(first.sent).toBe(1);
      // B's edit has not been sent yet: A receives the agent's only.
      expect(first.received).toBe(1);
      expect(formatSummary(first)).toBe('sync: 1 sent, 1 received, 0 deleted, 0 conflicts, 0 skipped');
      await syncOnce(b, store, opts('B'));
      await syncOnce(a, store, opts('A'));
      const expected = {
        'agent.md': 'the agent wrote\n',
        'b.md': 'from b, edited',
        'notes/a.md': 'from a, edited',
      };
      expect(sorted(folderFiles(a))).toEqual(expected);
      expect(sorted(folderFiles(b))).toEqual(expected);
      expect(sorted(await storeFiles(store))).toEqual(expected);
      const quiet = await syncOnce(a, store, opts('A'));
      expect(formatSummary(quiet)).toBeNull();
    });

    test('a delete reaches the store and the other folder; an agent delete reaches both', async () => {
      await using store = await c.open(true);
      const a = tempDir();
      const b = tempDir();
      put(a, 'x.md', 'x');
      put(a, 'y.md', 'y');
      await syncOnce(a, store, opts('A'));
      await syncOnce(b, store, opts('B'));
      const { rmSync } = await import('node:fs');
      rmSync(join(a, 'x.md'));
      const s = await syncOnce(a, store, opts('A'));
      expect(s.deleted).toBe(1);
      await store.delete({ command: 'delete', path: '/memories/y.md' });
      await syncOnce(b, store, opts('B'));
      await syncOnce(a, store, opts('A'));
      expect(folderFiles(a)).toEqual({});
      expect(folderFiles(b)).toEqual({});
      expect(await storeFiles(store)).toEqual({});
    });

    test('a conflict: the store wins everywhere, the losing text is a version by this machine (history)', async () => {
      await using store = await c.open(true);
      const a = tempDir();
      put(a, 'c.md', 'base');
      await syncOnce(a, store, opts('A'));
      put(a, 'c.md', 'local edit');
      await store.create({ command: 'create', path: '/memories/c.md', file_text: 'remote edit' });
      const s = await syncOnce(a, store, opts('A'));
      expect(s.conflicts).toBe(1);
      expect(folderFiles(a)).toEqual({ 'c.md': 'remote edit' });
      expect(await storeFiles(store)).toEqual({ 'c.md': 'remote edit' });
      const page = await store.history({ path: '/memories/c.md' });
      const lost = page.versions.find((v) => v.actor?.id === 'memdir-sync@A' && v.sha256 !== null);
      expect(lost).toBeDefined();
      const texts = await Promise.all(page.versions.map(async (v) => (await store.version(v.id)).content));
      expect(texts).toContain('local edit');
    });

    test('a conflict without history: the losing text is kept beside it as NAME.conflict-HOST-TIME.md', async () => {
      await using store = await c.open(false);
      const a = tempDir();
      const b = tempDir();
      put(a, 'c.md', 'base');
      await syncOnce(a, store, opts('A'));
      await syncOnce(b, store, opts('B'));
      put(a, 'c.md', 'edit on a');
      put(b, 'c.md', 'edit on b');
      await syncOnce(a, store, opts('A'));
      const s = await syncOnce(b, store, opts('B'));
      expect(s.conflicts).toBe(1);
      await syncOnce(b, store, opts('B'));
      await syncOnce(a, store, opts('A'));
      const files = folderFiles(a);
      expect(files['c.md']).toBe('edit on a');
      const kept = Object.keys(files).filter((name) => /^c\.conflict-B-.*\.md$/.test(name));
      expect(kept).toHaveLength(1);
      expect(files[kept[0]!]).toBe('edit on b');
      expect(sorted(folderFiles(b))).toEqual(sorted(files));
      expect(sorted(await storeFiles(store))).toEqual(sorted(files));
    });

    test('a folder that lost its state, or was emptied, is downloaded again, never read as a mass delete', async () => {
      await using store = await c.open(true);
      const a = tempDir();
      put(a, 'one.md', '1');
      put(a, 'two/three.md', '3');
      await syncOnce(a, store, opts('A'));
      const { rmSync } = await import('node:fs');
      rmSync(join(a, 'one.md'));
      rmSync(join(a, 'two'), { recursive: true });
      const s = await syncOnce(a, store, opts('A'));
      expect(s.deleted).toBe(0);
      expect(s.received).toBe(2);
      rmSync(join(a, '.memdir-sync'), { recursive: true });
      rmSync(join(a, 'one.md'));
      await syncOnce(a, store, opts('A'));
      expect(sorted(folderFiles(a))).toEqual({ 'one.md': '1', 'two/three.md': '3' });
      expect(Object.keys(await storeFiles(store))).toHaveLength(2);
    });

    test('deletes wait for the delay and a re-check; log-only and disabled send none', async () => {
      await using store = await c.open(true);
      const a = tempDir();
      let clock = 1_000_000;
      const now = () => clock;
      // Another file stays: a folder left empty is downloaded again, not read as deletes.
      put(a, 'stays.md', 'stays');
      put(a, 'd.md', 'd');
      await syncOnce(a, store, { storeId: `test:${c.name}`, now });
      const { rmSync } = await import('node:fs');
      rmSync(join(a, 'd.md'));
      expect((await syncOnce(a, store, { storeId: `test:${c.name}`, now })).deleted).toBe(0);
      clock += 29_000;
      expect((await syncOnce(a, store, { storeId: `test:${c.name}`, now })).deleted).toBe(0);
      const logged = await syncOnce(a, store, { storeId: `test:${c.name}`, now, deletions: 'log-only' });
      expect(logged.deleted).toBe(0);
      clock += 2_000;
      expect(
        (await syncOnce(a, store, { storeId: `test:${c.name}`, now, deletions: 'log-only' })).deleted,
      ).toBe(0);
      expect(Object.keys(await storeFiles(store)).sort()).toEqual(['d.md', 'stays.md']);
      expect((await syncOnce(a, store, { storeId: `test:${c.name}`, now })).deleted).toBe(1);
      expect(await storeFiles(store)).toEqual({ 'stays.md': 'stays' });
      put(a, 'e.md', 'e');
      await syncOnce(a, store, { storeId: `test:${c.name}`, now });
      rmSync(join(a, 'e.md'));
      const s = await syncOnce(a, store, { storeId: `test:${c.name}`, now, deletions: 'disabled' });
      expect(s.received).toBe(1);
      expect(readFileSync(join(a, 'e.md'), 'utf8')).toBe('e');
    });

    test('read-only pulls and sends nothing', async () => {
      await using store = await c.open(true);
      const a = tempDir();
      put(a, 'local.md', 'only here');
      await store.create({ command: 'create', path: '/memories/r.md', file_text: 'remote' });
      const s = await syncOnce(a, store, { ...opts('A'), readOnly: true });
      expect(s).toMatchObject({ sent: 0, received: 1 });
      expect(await storeFiles(store)).toEqual({ 'r.md': 'remote' });
    });
  });
}
