import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInMemoryStore } from '@memdir/core';
import { expect, test } from 'vitest';
import { SyncError, syncOnce } from '../src/index.js';
import { lockFolder } from '../src/lock.js';
import { folderFiles, put, storeFiles, tempDir } from './helpers.js';

const opts = { storeId: 'test:hostile', host: 'H', deleteDelay: 0 };

test('hostile folder: symlinks, a FIFO, non-UTF-8, a big file and a refused name are skipped once, nothing outside touched', async () => {
  await using store = createInMemoryStore({ maxFileBytes: 1024 });
  const dir = tempDir();
  const outside = tempDir();
  put(outside, 'secret.md', 'outside secret');
  mkdirSync(join(outside, 'folder'));
  put(outside, 'folder/inner.md', 'outside inner');
  symlinkSync(join(outside, 'secret.md'), join(dir, 'link.md'));
  symlinkSync(join(outside, 'folder'), join(dir, 'linked-folder'));
  execFileSync('mkfifo', [join(dir, 'pipe.md')]);
  put(dir, 'latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  put(dir, 'big.md', 'x'.repeat(4096));
  put(dir, 'ok.md', 'fine');
  put(dir, 'bad\u0001name.md', 'control character in the name');
  const events: string[] = [];
  const s = await syncOnce(dir, store, {
    ...opts,
    maxFileBytes: 2048,
    onEvent: (e) => events.push(`${e.kind} ${e.path}`),
  });
  expect(s.sent).toBe(1);
  expect(s.skipped).toBe(6);
  expect(events.sort()).toEqual(
    [
      'sent ok.md',
      'skipped bad\u0001name.md',
      'skipped big.md',
      'skipped latin1.md',
      'skipped link.md',
      'skipped linked-folder',
      'skipped pipe.md',
    ].sort(),
  );
  expect(await storeFiles(store)).toEqual({ 'ok.md': 'fine' });
  // One message until they change.
  const again = await syncOnce(dir, store, opts);
  expect(again.skipped).toBe(0);
  put(dir, 'big.md', 'y'.repeat(5000));
  expect((await syncOnce(dir, store, { ...opts, maxFileBytes: 2048 })).skipped).toBe(1);
  // A store file at a symlinked path is not written through the link.
  await store.create({
    command: 'create',
    path: '/memories/linked-folder/inner.md',
    file_text: 'from the store',
  });
  await store.create({ command: 'create', path: '/memories/link.md', file_text: 'from the store' });
  await syncOnce(dir, store, opts);
  expect(readFileSync(join(outside, 'folder/inner.md'), 'utf8')).toBe('outside inner');
  expect(readFileSync(join(outside, 'secret.md'), 'utf8')).toBe('outside secret');
  expect(folderFiles(outside)).toEqual({ 'secret.md': 'outside secret', 'folder/inner.md': 'outside inner' });
});

test('a state folder of another store or namespace is refused, not mixed', async () => {
  await using store = createInMemoryStore();
  const dir = tempDir();
  put(dir, 'a.md', 'a');
  await syncOnce(dir, store, opts);
  await expect(syncOnce(dir, store, { ...opts, storeId: 'test:other' })).rejects.toMatchObject({
    code: 'BOUND_ELSEWHERE',
  });
  await expect(syncOnce(dir, store, { ...opts, namespace: 'team' })).rejects.toBeInstanceOf(SyncError);
  writeFileSync(join(dir, '.memdir-sync', 'state.json'), '{not json');
  await expect(syncOnce(dir, store, opts)).rejects.toMatchObject({ code: 'BAD_STATE' });
  expect(existsSync(join(dir, 'a.md'))).toBe(true);
});

test('store files under the state folder (any case) are skipped, never written into it', async () => {
  await using store = createInMemoryStore();
  const dir = tempDir();
  put(dir, 'a.md', 'a');
  await syncOnce(dir, store, opts);
  const evil = '{"format":1,"store":"test:evil","namespace":null,"files":{}}';
  await store.create({ command: 'create', path: '/memories/.memdir-sync/state.json', file_text: evil });
  await store.create({ command: 'create', path: '/memories/.MEMDIR-SYNC/state.json', file_text: evil });
  const events: string[] = [];
  const s = await syncOnce(dir, store, { ...opts, onEvent: (e) => events.push(`${e.kind} ${e.path}`) });
  expect(s.received).toBe(0);
  expect(events.sort()).toEqual(['skipped .MEMDIR-SYNC/state.json', 'skipped .memdir-sync/state.json']);
  const state = JSON.parse(readFileSync(join(dir, '.memdir-sync', 'state.json'), 'utf8'));
  expect(state.store).toBe('test:hostile');
  expect(Object.keys(state.files)).toEqual(['a.md']);
  expect(folderFiles(dir)).toEqual({ 'a.md': 'a' });
  expect((await syncOnce(dir, store, opts)).skipped).toBe(0);
});

test('passes on one folder never overlap, and a holder killed with SIGKILL leaves no lock behind', async () => {
  await using store = createInMemoryStore();
  const dir = tempDir();
  put(dir, 'a.md', 'a');
  const release = await lockFolder(dir, 0);
  let done = false;
  const waiting = syncOnce(dir, store, opts).then((summary) => {
    done = true;
    return summary;
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(done).toBe(false);
  expect(await storeFiles(store)).toEqual({});
  await release();
  expect((await waiting).sent).toBe(1);

  const lockModule = new URL('../dist/lock.js', import.meta.url).href;
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { lockFolder } = await import(${JSON.stringify(lockModule)}); await lockFolder(${JSON.stringify(dir)}, 0); console.log('held'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  holder.kill('SIGKILL');
  await new Promise((resolve) => holder.once('exit', resolve));
  put(dir, 'b.md', 'b');
  const started = Date.now();
  expect((await syncOnce(dir, store, opts)).sent).toBe(1);
  expect(Date.now() - started).toBeLessThan(2_000);
});

test('a conflict on a 240-byte name keeps the local text beside it under a shortened name, within 255 bytes', async () => {
  await using store = createInMemoryStore({ history: false });
  const dir = tempDir();
  const name = `${'é'.repeat(118)}.md`; // 239 bytes
  await store.create({ command: 'create', path: `/memories/${name}`, file_text: 'v1' });
  await syncOnce(dir, store, opts);
  await store.create({ command: 'create', path: `/memories/${name}`, file_text: 'store v2' });
  put(dir, name, 'local v2');
  const events: string[] = [];
  const s = await syncOnce(dir, store, { ...opts, onEvent: (e) => events.push(e.kind) });
  expect(s).toMatchObject({ conflicts: 1, received: 1 });
  expect(events).toEqual(['conflict', 'received']);
  const files = folderFiles(dir);
  const kept = Object.keys(files).filter((file) => file !== name);
  expect(kept).toHaveLength(1);
  expect(kept[0]).toMatch(/^é+\.conflict-H-.*\.md$/);
  expect(Buffer.byteLength(kept[0]!)).toBeLessThanOrEqual(255);
  expect(files[kept[0]!]).toBe('local v2');
  expect(files[name]).toBe('store v2');
  // The kept file goes to the store like any other, and the next passes change nothing more.
  expect((await syncOnce(dir, store, opts)).sent).toBe(1);
  expect((await storeFiles(store))[kept[0]!]).toBe('local v2');
  expect((await syncOnce(dir, store, opts)).events).toEqual([]);
});

test('a store file whose path this file system refuses (too long here) is skipped once; the pass goes on', async () => {
  await using store = createInMemoryStore();
  const dir = join(tempDir(), ...Array<string>(18).fill('d'.repeat(200)));
  mkdirSync(dir, { recursive: true });
  const deep = `${Array<string>(4).fill('e'.repeat(200)).join('/')}/f.md`;
  await store.create({ command: 'create', path: `/memories/${deep}`, file_text: 'deep' });
  await store.create({ command: 'create', path: '/memories/ok.md', file_text: 'ok' });
  const events: string[] = [];
  const s = await syncOnce(dir, store, { ...opts, onEvent: (e) => events.push(`${e.kind} ${e.path}`) });
  expect(s).toMatchObject({ received: 1, skipped: 1 });
  expect(events.sort()).toEqual(['received ok.md', `skipped ${deep}`]);
  expect(s.events.find((e) => e.kind === 'skipped')?.detail).toMatch(/^it cannot be written here/);
  expect((await syncOnce(dir, store, opts)).events).toEqual([]);
  expect(await storeFiles(store)).toEqual({ [deep]: 'deep', 'ok.md': 'ok' });
});
