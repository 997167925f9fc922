// History under SIGKILL and faults: a writer killed at each step of its change (after its version
// object was written and before its commit, after a rename's copy, in the middle of a folder
// delete), and changes through the fault proxy (connections reset, replies cut short). Afterwards
// a fresh store finds, for every path, that the newest version matches what the path holds, and
// that the history shows no change that did not happen; and the files' records (their ids, hashes
// and versions in their own metadata, and the id index) agree with both.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DriverPath, DriverRecord, MemdirStore } from '@memdir/core';
import { type FaultMode, startFaultProxy } from '@memdir/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Driver, createS3Store } from '../src/index.js';
import { bucket, clearPrefix, keysUnder, rawClient, server, storeOptions, uniquePrefix } from './helpers.js';

const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));
const LEASE_TTL_MS = 3_000;
const admin = rawClient();
const prefixes: string[] = [];
const stores: MemdirStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const prefix of prefixes.splice(0)) await clearPrefix(admin, `${prefix}/`);
});
afterAll(() => admin.destroy());

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function open(prefix: string, options: object = {}): MemdirStore {
  const store = createS3Store({
    ...storeOptions(prefix),
    leaseTtlMs: LEASE_TTL_MS,
    timeoutMs: 20_000,
    ...options,
  });
  stores.push(store);
  return store;
}

/** Runs `commands` in a worker, one after another, and SIGKILLs it once its `count`-th `kind` request was answered. */
async function killAfter(prefix: string, commands: unknown[], kind: string, count: number): Promise<boolean> {
  const payload = JSON.stringify({
    store: {
      store: { bucket, prefix, leaseTtlMs: LEASE_TTL_MS, timeoutMs: 60_000 },
      clientConfig: server.clientConfig,
    },
    commands,
    holdAfter: { kind, count },
  });
  const child = spawn(process.execPath, [WORKER, payload], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  const applied = await new Promise<boolean>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('held-unapplied')) resolve(false);
      else if (output.includes('held\n')) resolve(true);
      if (output.includes('finished')) reject(new Error('the worker finished before it was held'));
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`worker exited early (${code ?? signal}): ${errors}`)),
    );
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return applied;
}

/** Every version, newest first, across pages. */
async function everyVersion(store: MemdirStore) {
  const versions = [];
  let cursor: string | undefined;
  do {
    const page = await store.history({ limit: 1_000, cursor });
    versions.push(...page.versions);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return versions;
}

/**
 * For each of `paths`: a file there has a newest version (the first of the history at or beneath
 * it) with its content's hash; a path with nothing has as newest version its deletion or a move away.
 */
async function expectHistoryMatches(store: MemdirStore, paths: readonly string[]): Promise<void> {
  const versions = await everyVersion(store);
  for (const path of paths) {
    const newest = versions.find((version) => version.path === path || version.previousPath === path);
    const shown = await store.view({ command: 'view', path }).catch(() => null);
    if (shown?.startsWith("Here's the content")) {
      const content = shown
        .split('\n')
        .slice(1)
        .map((line) => line.replace(/^ *\d+\t/, ''))
        .join('\n');
      expect(newest, path).toMatchObject({ path, sha256: sha(content) });
      expect(newest!.operation).not.toBe('deleted');
    } else if (newest) {
      expect(
        newest.operation === 'deleted' || newest.previousPath === path,
        `${path}: ${newest.operation}`,
      ).toBe(true);
    }
  }
}

/**
 * Records agree with the files and the history (identity): each file at `paths` has a record with
 * its content's hash and the id and version of its newest version; listRecords gives the same
 * records, and locate finds each by its id (through the id index, or a scan).
 */
async function expectRecordsMatch(
  prefix: string,
  store: MemdirStore,
  paths: readonly string[],
): Promise<void> {
  const driver = createS3Driver(storeOptions(prefix));
  try {
    const versions = await everyVersion(store);
    const listed = await driver.listRecords!({ limit: 1_000 });
    for (const path of paths) {
      const driverPath = path.slice('/memories/'.length) as DriverPath;
      const record = await driver.readRecord!(driverPath, { content: true });
      if (record === null) {
        expect(
          listed.items.some((item) => item.path === driverPath),
          path,
        ).toBe(false);
        continue;
      }
      const newest = versions.find((version) => version.path === path);
      expect(record, path).toMatchObject({
        sha256: sha(record.content!),
        fileId: newest!.fileId,
        versionId: newest!.id,
      });
      const { content: _, ...plain } = record;
      expect(listed.items.find((item) => item.path === driverPath)).toEqual(plain);
      expect((await driver.locate!(record.fileId)) as DriverRecord).toEqual(plain);
    }
    const ids = listed.items.map((item) => (item as DriverRecord).fileId);
    expect(new Set(ids).size).toBe(ids.length);
  } finally {
    await driver.close();
  }
}

/** A prefix with `/memories/a.md` ('one') and `/memories/d/x.md`, `/memories/d/y.md` written with history. */
async function seeded(label: string): Promise<string> {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  const store = open(prefix);
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'one' });
  await store.create({ command: 'create', path: '/memories/d/x.md', file_text: 'x' });
  await store.create({ command: 'create', path: '/memories/d/y.md', file_text: 'y' });
  await store.close();
  return prefix;
}

const PATHS = [
  '/memories/a.md',
  '/memories/b.md',
  '/memories/new.md',
  '/memories/d/x.md',
  '/memories/d/y.md',
];

describe('history when a writer is killed (SIGKILL)', () => {
  const cases = [
    {
      name: 'a new file, between its version and its PUT: no version shown',
      commands: [{ command: 'create', path: '/memories/new.md', file_text: 'never' }],
      kind: 'VERSION',
      versions: 3,
      unseen: true,
    },
    {
      name: 'an edit, between its version and its PUT: no version shown',
      commands: [{ command: 'str_replace', path: '/memories/a.md', old_str: 'one', new_str: 'two' }],
      kind: 'VERSION',
      versions: 3,
      unseen: true,
    },
    {
      name: 'a delete, between its version and its DeleteObjects: the next store finishes it, and the deletion shows',
      commands: [{ command: 'delete', path: '/memories/a.md' }],
      kind: 'VERSION',
      versions: 4,
    },
    {
      name: 'a rename, after its copy: the next store finishes it, and the rename shows',
      commands: [{ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' }],
      kind: 'COPY',
      versions: 4,
    },
    {
      name: 'a folder delete, after its first version: the next store finishes it, one deletion per file',
      commands: [{ command: 'delete', path: '/memories/d' }],
      kind: 'VERSION',
      versions: 5,
    },
  ];
  for (const { name, commands, kind, versions, unseen } of cases) {
    it(name, async () => {
      let prefix = await seeded('history-kill');
      for (let attempt = 1; !(await killAfter(prefix, commands, kind, 1)); attempt++) {
        if (attempt === 3) throw new Error(`the server failed the ${kind} request held after, 3 times`);
        prefix = await seeded('history-kill');
      }
      // The next change of structure takes over the dead writer's lease once it expires and
      // finishes what it journalled.
      const store = open(prefix);
      await store.create({ command: 'create', path: '/memories/after.md', file_text: 'after' });
      await expectHistoryMatches(store, PATHS);
      await expectRecordsMatch(prefix, store, PATHS);
      const all = await everyVersion(store);
      expect(all.filter((version) => version.path !== '/memories/after.md')).toHaveLength(versions);
      if (unseen) {
        // The dead writer's version object is there, and not shown.
        expect((await keysUnder(admin, `${prefix}/.memdir/history/`)).length).toBe(all.length + 1);
      }
    }, 60_000);
  }
});

describe('history through faults', () => {
  it('resets, replies cut short and 503s in the middle of changes: the newest version of each file matches it, no version twice', async () => {
    const proxy = await startFaultProxy({ target: server.clientConfig.endpoint });
    const prefix = uniquePrefix('history-faults');
    prefixes.push(prefix);
    const store = open(prefix, { endpoint: proxy.url, timeoutMs: 5_000 });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'start' });
    const faults: FaultMode[] = [
      { kind: 'cut', afterBytes: 120 },
      { kind: 'slow-down', nth: 2 },
      { kind: 'reset' },
      { kind: 'slow-down', nth: 1 },
      { kind: 'cut', afterBytes: 20 },
    ];
    let answered = 0;
    /** What the creates that answered wrote: each is in history. */
    const written: string[] = [];
    for (let index = 0; index < 30; index++) {
      const text = `change ${index}`;
      const path = index % 4 === 3 ? '/memories/b.md' : '/memories/a.md';
      proxy.setMode(faults[index % faults.length]!);
      // The fault lasts a few milliseconds into the change (its first requests, or its commit).
      const healed = new Promise((resolve) => setTimeout(resolve, 5 + (index % 4) * 15)).then(() =>
        proxy.setMode('pass'),
      );
      const change =
        index % 3 === 2
          ? store.insert({ command: 'insert', path, insert_line: 0, insert_text: text })
          : index % 10 === 9
            ? store.delete({ command: 'delete', path })
            : store.create({ command: 'create', path, file_text: text });
      await change.then(
        () => {
          answered++;
          if (index % 3 !== 2 && index % 10 !== 9) written.push(text);
        },
        () => undefined,
      );
      await healed;
    }
    proxy.setMode('pass');
    const fresh = open(prefix);
    await expectHistoryMatches(fresh, ['/memories/a.md', '/memories/b.md']);
    const versions = await everyVersion(fresh);
    const ids = versions.map((version) => version.id);
    expect(new Set(ids).size).toBe(ids.length);
    const hashes = new Set(versions.map((version) => version.sha256));
    for (const text of written) expect(hashes.has(sha(text)), text).toBe(true);
    expect(answered).toBeGreaterThan(10);
    await proxy.close();
  }, 180_000);
});

describe('updateById when its writer is killed (SIGKILL)', () => {
  it('a new path and content, after the PUT at the new path: the next store finishes the move with the new content', async () => {
    let prefix = '';
    let fileId = '';
    const record = { actor: null, command: 'update', toolUseId: null, keepVersions: 20, keepDays: 30 };
    for (let attempt = 1; ; attempt++) {
      prefix = await seeded('update-kill');
      const driver = createS3Driver(storeOptions(prefix));
      // The id index names a.md (the worker's lookup is then one GET and one HEAD).
      fileId = (await driver.readRecord!('a.md' as DriverPath))!.fileId;
      expect(await driver.locate!(fileId)).toMatchObject({ path: 'a.md' });
      await driver.close();
      const call = {
        method: 'updateById',
        args: [fileId, { path: 'b.md', content: 'two' }, { op: 'kill-update', maxFileBytes: 1_000, record }],
      };
      // Held once the new content is at b.md, before a.md is frozen.
      if (await killAfter(prefix, [call], 'FILE', 1)) break;
      if (attempt === 3) throw new Error('the server failed the PUT held after, 3 times');
    }
    expect(await keysUnder(admin, `${prefix}/memories/`)).toContain(`${prefix}/memories/b.md`);
    const store = open(prefix);
    await store.create({ command: 'create', path: '/memories/after.md', file_text: 'after' });
    expect(await store.view({ command: 'view', path: '/memories/b.md' })).toMatch(/ 1\ttwo$/);
    await expect(store.view({ command: 'view', path: '/memories/a.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expectHistoryMatches(store, PATHS);
    await expectRecordsMatch(prefix, store, PATHS);
    const newest = (await everyVersion(store)).find((version) => version.path === '/memories/b.md');
    expect(newest).toMatchObject({
      fileId,
      operation: 'renamed',
      previousPath: '/memories/a.md',
      command: 'update',
    });
  }, 60_000);
});
