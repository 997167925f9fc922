// Retention on radosgw, counted in the bucket: each change prunes its own file in its own step (at
// most PRUNE_PER_CHANGE version objects deleted), so edits of one file with keepDays 0 leave at
// most keepVersions version objects, whatever their number. The conformance run checks this with
// 200 edits (historyEdits, conformance.test.ts); history-chain.test.ts runs the plan of 10,000.
import type { MemdirStore } from '@memdir/core';
import { driverLog, PRUNE_PER_CHANGE } from '@memdir/core/driver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { backendOf } from '../src/backend.js';
import { Call } from '../src/call.js';
import { sweepVersions } from '../src/history/sweep.js';
import { createS3Store } from '../src/index.js';
import { KeySpace, normalizePrefix } from '../src/keys.js';
import { bucket, clearPrefix, keysUnder, rawClient, storeOptions, uniquePrefix } from './helpers.js';

const admin = rawClient();
const prefixes: string[] = [];
const stores: MemdirStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const prefix of prefixes.splice(0)) await clearPrefix(admin, `${prefix}/`);
});
afterAll(() => admin.destroy());

function open(prefix: string, keepVersions: number, keepDays: number): MemdirStore {
  const store = createS3Store({ ...storeOptions(prefix), history: { keepVersions, keepDays } });
  stores.push(store);
  return store;
}

const versionObjects = async (prefix: string) =>
  (await keysUnder(admin, `${prefix}/.memdir/history/`)).length;

describe('retention in the bucket', () => {
  it('60 changes of one file (overwrites, inserts, replacements) with keepVersions 3 and keepDays 0 leave 3 version objects, the newest matching the file', async () => {
    const prefix = uniquePrefix('retention');
    prefixes.push(prefix);
    const store = open(prefix, 3, 0);
    await store.create({ command: 'create', path: '/memories/hot.md', file_text: 'start' });
    for (let index = 0; index < 60; index++) {
      if (index % 3 === 0)
        await store.create({ command: 'create', path: '/memories/hot.md', file_text: `edit ${index}` });
      else if (index % 3 === 1)
        await store.insert({
          command: 'insert',
          path: '/memories/hot.md',
          insert_line: 0,
          insert_text: `${index}`,
        });
      else
        await store
          .str_replace({ command: 'str_replace', path: '/memories/hot.md', old_str: 'edit', new_str: 'EDIT' })
          .catch(() =>
            store.str_replace({
              command: 'str_replace',
              path: '/memories/hot.md',
              old_str: 'EDIT',
              new_str: 'edit',
            }),
          );
      expect(await versionObjects(prefix)).toBeLessThanOrEqual(3);
    }
    const page = await store.history({ path: '/memories/hot.md', limit: 10 });
    expect(page.versions).toHaveLength(3);
    const content = (await store.view({ command: 'view', path: '/memories/hot.md' }))
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^ *\d+\t/, ''))
      .join('\n');
    expect((await store.version(page.versions[0]!.id)).content).toBe(content);
  }, 120_000);

  it(`a lower keepVersions catches up by at most ${PRUNE_PER_CHANGE} versions per change; a deletion prunes in its DeleteObjects`, async () => {
    const prefix = uniquePrefix('retention-lower');
    prefixes.push(prefix);
    const wide = open(prefix, 10, 0);
    for (let index = 0; index < 12; index++) {
      await wide.create({ command: 'create', path: '/memories/f.md', file_text: `v${index}` });
    }
    expect(await versionObjects(prefix)).toBe(10);
    const narrow = open(prefix, 2, 0);
    const counts: number[] = [];
    for (let index = 0; index < 3; index++) {
      await narrow.create({ command: 'create', path: '/memories/f.md', file_text: `n${index}` });
      counts.push(await versionObjects(prefix));
    }
    // 10 + 1 - 4, 7 + 1 - 4, then down to keepVersions.
    expect(counts).toEqual([7, 4, 2]);
    await narrow.delete({ command: 'delete', path: '/memories/f.md' });
    // The deletion and the newest version before it (keepVersions 2).
    expect(await versionObjects(prefix)).toBe(2);
    const { versions } = await narrow.history({ limit: 10 });
    expect(versions.map((version) => version.operation)).toEqual(['deleted', 'modified']);
  }, 120_000);
});

describe('the sweep of history (for admin)', () => {
  it('prunes what changes could not (versions past a lower keepVersions), at most its budget a call', async () => {
    const prefix = uniquePrefix('retention-sweep');
    prefixes.push(prefix);
    const store = open(prefix, 30, 30);
    for (let index = 0; index < 12; index++) {
      await store.create({ command: 'create', path: '/memories/s.md', file_text: `s${index}` });
    }
    const client = rawClient();
    const space = {
      backend: backendOf(client, bucket, normalizePrefix(prefix), 10_000, false),
      keys: new KeySpace(normalizePrefix(prefix)),
    };
    const call = new Call(driverLog('s3', undefined), undefined);
    const first = await sweepVersions(space, { keepVersions: 2, keepDays: 0 }, Date.now(), 6, call);
    expect(first).toEqual({ pruned: 6, done: false });
    const second = await sweepVersions(space, { keepVersions: 2, keepDays: 0 }, Date.now(), 6, call);
    expect(second).toEqual({ pruned: 4, done: true });
    expect(await versionObjects(prefix)).toBe(2);
    const { versions } = await store.history({ limit: 10 });
    expect(versions).toHaveLength(2);
    expect((await store.version(versions[0]!.id)).content).toBe('s11');
    client.destroy();
  }, 60_000);
});
