// A history past its exact range: a namespace whose version counter is past 2^53 - 1 less the
// store's margin (an import or a hand edit could leave it there; ids past 2^53 - 1 would round in
// JavaScript and in a sorted set's score). Every change with history is refused before its first
// write, with the kit's words, and the keys stay as they were; with history off, changes go on.
import type { MemoryStore } from '@memdir/core';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCE_MARGIN } from '../src/change-prelude.js';
import { createRedisStore } from '../src/index.js';
import {
  clusterUrl,
  deleteUnder,
  keysUnder,
  newCluster,
  newRedis,
  redisUrl,
  uniquePrefix,
} from './helpers.js';

const OUT_OF_IDS = {
  code: 'BACKEND',
  reason: 'misconfigured',
  message:
    "The memory store is unavailable: its history holds a version id past memver_9007199254740991, the highest that stays exact, so no change can be recorded; copy the files to a store with a new history. Trying again will not help until the store's configuration is fixed.",
};

for (const [label, url, connect] of [
  ['standalone', redisUrl, () => newRedis()],
  ['Cluster', clusterUrl, () => newCluster()],
] as const) {
  let admin: Redis | Cluster;
  const prefixes: string[] = [];
  const stores: MemoryStore[] = [];
  beforeAll(async () => {
    admin = connect();
    await admin.connect();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const prefix of prefixes.splice(0)) await deleteUnder(admin, prefix);
  });
  afterAll(() => admin.quit());

  /** Every key under `prefix` with its DUMP: what a refused change must leave as it was. */
  async function snapshot(prefix: string): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const key of (await keysUnder(admin, prefix)).sort())
      found.set(key, (await admin.dumpBuffer(key))!.toString('base64'));
    return found;
  }

  /** A store holding /memories/a.md, whose version counter is then set to `seq`. */
  async function storeAt(seq: string, history = true): Promise<{ store: MemoryStore; prefix: string }> {
    const prefix = uniquePrefix('ids');
    prefixes.push(prefix);
    const first = createRedisStore({ url: url(), keyPrefix: prefix });
    stores.push(first);
    await first.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await admin.hset(`${prefix}{${prefix}/}:t`, 'seq', seq);
    const store = createRedisStore({
      url: url(),
      keyPrefix: prefix,
      ...(history ? {} : { history: false }),
    });
    stores.push(store);
    return { store, prefix };
  }

  describe(`a history past its exact range (${label})`, () => {
    for (const seq of ['9999999999999999', String(Number.MAX_SAFE_INTEGER - SEQUENCE_MARGIN + 1)]) {
      it(`counter at ${seq}: create, str_replace, insert, rename and delete are refused with BACKEND and change no key`, async () => {
        const { store, prefix } = await storeAt(seq);
        const before = await snapshot(prefix);
        for (const change of [
          () => store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' }),
          () =>
            store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' }),
          () => store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'x' }),
          () => store.rename({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/c.md' }),
          () => store.delete({ command: 'delete', path: '/memories/a.md' }),
        ]) {
          await expect(change()).rejects.toMatchObject(OUT_OF_IDS);
        }
        expect(await snapshot(prefix)).toEqual(before);
        expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
          "Here's the content of /memories/a.md with line numbers:\n     1\ta",
        );
      });
    }

    it('below the margin, the next id is exact', async () => {
      const { store } = await storeAt(String(Number.MAX_SAFE_INTEGER - SEQUENCE_MARGIN));
      await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' });
      const history = store as unknown as {
        history(query: object): Promise<{ versions: Array<{ id: string }> }>;
      };
      const { versions } = await history.history({ path: '/memories/b.md', limit: 10 });
      expect(versions.map((version) => version.id)).toEqual([
        `memver_${String(Number.MAX_SAFE_INTEGER - SEQUENCE_MARGIN + 1).padStart(16, '0')}`,
      ]);
    });

    it('with history off, changes go on: no id is taken', async () => {
      const { store } = await storeAt('9999999999999999', false);
      expect(await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' })).toBe(
        'File created successfully at: /memories/b.md',
      );
    });
  });
}
