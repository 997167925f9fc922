// The admin operations over a backend's namespaces (createMemoryAdmin over the target's driver):
// listing with pages and prefixes, usage after every kind of change, a drop that leaves nothing and
// touches no neighbour, and the sweep (expiry with a moved clock, refreshOnRead, retention). For
// drivers whose capabilities declare `admin`; the checks work through the store and the admin, so
// what only the adapter can see (its keys, rows, objects) is for its own `check` hook and tests.
// Run once, in the suite's first run: the admin works on the backend's namespaces, not inside one.

import type { MemoryStore } from '@memdir/core';
import { createMemoryAdmin, type MemoryAdmin, type MemoryAdminOptions, SWEEP_ACTOR } from '@memdir/core';
import { expect } from 'vitest';
import { expectError, listingHeader, seed, view, walk } from './assertions.js';
import { allVersions, DAY_MS, pause, withHistory } from './history-helpers.js';
import type { Suite } from './suite.js';

const EMPTY = `${listingHeader('/memories')}0B\t/memories`;

function create(store: MemoryStore, path: string, file_text: string): Promise<string> {
  return store.create({ command: 'create', path, file_text });
}

export function adminTests(suite: Suite): void {
  const { test } = suite;
  if (suite.capabilities.admin !== true || suite.driverMethods === undefined || suite.namespace !== undefined)
    return;
  const history = suite.capabilities.history === true;

  /** An admin over the test's backend (it closes nothing of the driver, which the suite closes). */
  async function admin(options: MemoryAdminOptions = {}): Promise<MemoryAdmin> {
    return createMemoryAdmin((await suite.driver())!, options);
  }

  /** A store on namespace `name` of the test's backend. */
  const tenant = (name: string | undefined, options = {}) => suite.open({ ...options, namespace: name });

  /** Everything a store shows: its tree, and its history where there is one. */
  async function everything(store: MemoryStore): Promise<unknown> {
    const tree = await walk(store, ['/memories', '/memories/.hidden']);
    return history ? { tree, versions: await allVersions(withHistory(store)) } : { tree };
  }

  test('admin: listNamespaces pages through the namespaces that hold anything, in byte order, and filters by prefix', async () => {
    const names = ['t-b', 't-a', 't-ab', 't-a.1', 'u-1', 't-A'];
    for (const name of names) await create(await tenant(name), '/memories/n.md', name);
    await view(await tenant('t-empty'), '/memories');
    await create(await tenant(undefined), '/memories/root.md', 'not a namespace');
    const gone = await tenant('t-gone');
    await create(gone, '/memories/g.md', 'g');
    await gone.delete({ command: 'delete', path: '/memories/g.md' });
    // Versions are something a namespace holds.
    const sorted = [...names, ...(history ? ['t-gone'] : [])].sort();
    const ops = await admin();
    expect((await ops.listNamespaces()).namespaces).toEqual(sorted);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ops.listNamespaces({ limit: 2, cursor });
      expect(page.namespaces.length).toBeLessThanOrEqual(2);
      paged.push(...page.namespaces);
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    expect(paged).toEqual(sorted);
    expect((await ops.listNamespaces({ prefix: 't-a' })).namespaces).toEqual(['t-a', 't-a.1', 't-ab']);
    expect((await ops.listNamespaces({ prefix: 't-a', limit: 1, cursor: 't-a' })).namespaces).toEqual([
      't-a.1',
    ]);
    expect((await ops.listNamespaces({ prefix: 'v' })).namespaces).toEqual([]);
    await expectError(ops.listNamespaces({ prefix: 'a/b' }), 'INVALID_INPUT');
    await expectError(ops.listNamespaces({ limit: 0 }), 'INVALID_INPUT');
  });

  test('admin: usage counts files, bytes and versions after every kind of change, and the time of the last change', async () => {
    const store = await tenant('usage');
    const ops = await admin();
    let versions = 0;
    let last = 0;
    const expectUsage = async (files: number, bytes: number, added: number) => {
      versions += history ? added : 0;
      const usage = await ops.usage('usage');
      expect(usage).toMatchObject({ namespace: 'usage', files, bytes, versions });
      const at = Date.parse(usage.lastChangeAt!);
      expect(at).toBeGreaterThanOrEqual(last);
      last = at;
    };
    expect(await ops.usage('usage')).toEqual({
      namespace: 'usage',
      files: 0,
      bytes: 0,
      versions: 0,
      lastChangeAt: null,
    });
    await create(store, '/memories/a.md', 'hello');
    await expectUsage(1, 5, 1);
    await create(store, '/memories/a.md', 'hello, world');
    await expectUsage(1, 12, 1);
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: ', world',
      new_str: '',
    });
    await expectUsage(1, 5, 1);
    await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: '\u00e9' });
    await expectUsage(1, 8, 1);
    await create(store, '/memories/.hidden/h.md', 'hid');
    await expectUsage(2, 11, 1);
    await store.rename({ command: 'rename', old_path: '/memories/.hidden', new_path: '/memories/d' });
    await expectUsage(2, 11, 1);
    await store.delete({ command: 'delete', path: '/memories/a.md' });
    await expectUsage(1, 3, 1);
    if (history) {
      const [creation] = await allVersions(withHistory(store), {
        operations: ['created'],
        path: '/memories/a.md',
      });
      await withHistory(store).restore(creation!.id);
      await expectUsage(2, 8, 1);
    }
    await create(await tenant(undefined), '/memories/root.md', 'root');
    expect(await ops.usage()).toMatchObject({ namespace: null, files: 1, bytes: 4 });
    await expectError(ops.usage('../x'), 'INVALID_INPUT');
  });

  test('admin: dropNamespace erases files, folders, hidden files and versions in batches, resumes a started drop, and touches no neighbour, not even names that start with its own', async () => {
    const doomed = await tenant('drop');
    const files: Record<string, string> = { '/memories/.hidden/h.md': 'h', '/memories/deep/er/x.md': 'x' };
    for (let index = 0; index < 20; index++) files[`/memories/f${index}.md`] = `file ${index}`;
    await seed(doomed, files);
    await doomed.str_replace({
      command: 'str_replace',
      path: '/memories/f1.md',
      old_str: 'file',
      new_str: 'edited',
    });
    await doomed.delete({ command: 'delete', path: '/memories/f2.md' });
    const neighbours = [
      await tenant('drop-x'),
      await tenant('dropx'),
      await tenant('dro'),
      await tenant(undefined),
    ];
    for (const [index, store] of neighbours.entries())
      await seed(store, { '/memories/n.md': `neighbour ${index}` });
    const before = await Promise.all(neighbours.map(everything));

    // A drop that stopped after its first batch (a crash), then finished by the admin.
    const driver = (await suite.driver())!;
    expect(await driver.dropNamespace!('drop', { batch: 3 })).toMatchObject({ done: false });
    const ops = await admin({ batch: 7 });
    const progress: number[] = [];
    const { removed } = await ops.dropNamespace('drop', {
      onProgress: (step) => progress.push(step.removed),
    });
    expect(removed).toBeGreaterThan(0);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress[progress.length - 1]).toBe(removed);

    expect(await ops.usage('drop')).toEqual({
      namespace: 'drop',
      files: 0,
      bytes: 0,
      versions: 0,
      lastChangeAt: null,
    });
    expect((await ops.listNamespaces()).namespaces).toEqual(['dro', 'drop-x', 'dropx']);
    expect(await view(doomed, '/memories')).toBe(EMPTY);
    await expectError(view(doomed, '/memories/.hidden/h.md'), 'NOT_FOUND');
    if (history) expect(await allVersions(withHistory(doomed))).toEqual([]);
    expect(await Promise.all(neighbours.map(everything))).toEqual(before);
    // Dropping what is not there is done at once; the namespace can be used again.
    expect((await ops.dropNamespace('drop')).removed).toBe(0);
    await create(doomed, '/memories/again.md', 'again');
    expect((await ops.listNamespaces({ prefix: 'drop' })).namespaces).toEqual(['drop', 'drop-x', 'dropx']);
  });

  test('admin: sweep expires files not changed for afterDays in every namespace, recording each as a deletion by the memdir service', async () => {
    const names = ['sweep-a', 'sweep-b', undefined];
    const stores = await Promise.all(names.map((name) => tenant(name)));
    for (const store of stores) await create(store, '/memories/old.md', 'old');
    const ops = await admin();
    // The backend's own time of the last old file, so that no clock but its own is compared.
    const usages = await Promise.all(names.map((name) => ops.usage(name)));
    const oldAt = Math.max(...usages.map((usage) => Date.parse(usage.lastChangeAt!)));
    await pause(40);
    for (const store of stores) await create(store, '/memories/new.md', 'new');
    // Nothing expires without an expiry.
    expect((await ops.sweep()).expired).toBe(0);
    const seen: Array<string | null> = [];
    const now = oldAt + DAY_MS + 1;
    const report = await ops.sweep({
      expire: { afterDays: 1 },
      now,
      onProgress: (step) => seen.push(step.namespace),
    });
    expect(report).toMatchObject({ namespaces: 3, expired: 3, pruned: 0 });
    expect(seen).toEqual([null, 'sweep-a', 'sweep-b']);
    for (const store of stores) {
      await expectError(view(store, '/memories/old.md'), 'NOT_FOUND');
      expect(await view(store, '/memories/new.md')).toBe(
        "Here's the content of /memories/new.md with line numbers:\n     1\tnew",
      );
      if (!history) continue;
      const [deletion] = await allVersions(withHistory(store), { path: '/memories/old.md' });
      expect(deletion).toMatchObject({
        operation: 'deleted',
        actor: SWEEP_ACTOR,
        command: 'sweep',
        toolUseId: null,
      });
    }
    expect((await ops.sweep({ expire: { afterDays: 1 }, now })).expired).toBe(0);
    // The admin's own expiry is the default of its sweeps.
    const expiring = await admin({ expire: { afterDays: 1 } });
    expect((await expiring.sweep({ now: Date.now() + 2 * DAY_MS })).expired).toBe(3);
    expect(await view(stores[2]!, '/memories')).toBe(EMPTY);
  });

  test('admin: with refreshOnRead a file read lately is not expired; a read without it does not count', async () => {
    const reader = await tenant('touch', { expire: { afterDays: 1, refreshOnRead: true } });
    const plain = await tenant('touch');
    await seed(plain, { '/memories/read.md': 'r', '/memories/unread.md': 'u', '/memories/edited.md': 'e' });
    const ops = await admin();
    const writtenAt = Date.parse((await ops.usage('touch')).lastChangeAt!);
    await pause(40);
    await view(reader, '/memories/read.md');
    await view(plain, '/memories/unread.md');
    await reader
      .str_replace({ command: 'str_replace', path: '/memories/edited.md', old_str: 'zz', new_str: 'y' })
      .catch(() => {});
    const report = await ops.sweep({ expire: { afterDays: 1 }, now: writtenAt + DAY_MS + 20 });
    expect(report.expired).toBe(1);
    expect(await view(plain, '/memories')).toBe(
      `${listingHeader('/memories')}2B\t/memories\n1B\t/memories/edited.md\n1B\t/memories/read.md`,
    );
  });

  if (history) {
    test("admin: sweep prunes the versions retention no longer keeps, deleted files' included, and never a file's newest keepVersions", async () => {
      const store = withHistory(await tenant('prune', { history: { keepVersions: 100, keepDays: 30 } }));
      for (let index = 0; index < 6; index++) await create(store, '/memories/f.md', `f${index}`);
      for (let index = 0; index < 3; index++) await create(store, '/memories/g.md', `g${index}`);
      await store.delete({ command: 'delete', path: '/memories/g.md' });
      const ops = await admin({ batch: 3 });
      // Young versions are kept whatever their number.
      expect((await ops.sweep({ history: { keepVersions: 2, keepDays: 30 } })).pruned).toBe(0);
      const report = await ops.sweep({
        history: { keepVersions: 2, keepDays: 1 },
        now: Date.now() + 2 * DAY_MS,
      });
      expect(report.pruned).toBe(6);
      const kept = await allVersions(store);
      expect(kept.map((version) => [version.path, version.operation])).toEqual([
        ['/memories/g.md', 'deleted'],
        ['/memories/g.md', 'modified'],
        ['/memories/f.md', 'modified'],
        ['/memories/f.md', 'modified'],
      ]);
      expect((await ops.usage('prune')).versions).toBe(4);
    });
  }
}
