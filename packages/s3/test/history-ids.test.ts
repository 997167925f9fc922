// A history past its exact range: a namespace whose newest version object is numbered past 2^53 (an
// archive imported before imports were checked could leave memver_9999999999999999). The store
// refuses a change loudly, instead of claiming ids from 1 again behind it, and writes nothing. And a
// store whose remembered next id is out of date (another store wrote since, retention removed the
// version at that id) claims above what its file names, not that freed id below the file's versions.
import { createHash } from 'node:crypto';
import { CopyObjectCommand } from '@aws-sdk/client-s3';
import type { MemdirStore } from '@memdir/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Store } from '../src/index.js';
import { bucket, clearPrefix, keysUnder, rawClient, storeOptions, uniquePrefix } from './helpers.js';

const admin = rawClient();
const prefixes: string[] = [];
const stores: MemdirStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const prefix of prefixes.splice(0)) await clearPrefix(admin, `${prefix}/`);
});
afterAll(() => admin.destroy());

const OUT_OF_IDS = {
  code: 'BACKEND',
  reason: 'misconfigured',
  message:
    "The memory store is unavailable: its history holds a version id past memver_9007199254740991, the highest that stays exact, so no change can be recorded; copy the files to a store with a new history. Trying again will not help until the store's configuration is fixed.",
};

/** The key of version `id` under `history` (history/record.ts: the digits inverted, then the id). */
function keyOf(history: string, id: string): string {
  const digits = id.slice('memver_'.length);
  return `${history}${digits.replace(/\d/g, (digit) => String(9 - Number(digit)))}-${id}`;
}

describe('a history past its exact range', () => {
  for (const id of ['memver_9999999999999999', 'memver_9007199254740991']) {
    it(`newest ${id}: a change is refused with BACKEND and writes nothing; the file still reads`, async () => {
      const prefix = uniquePrefix('history-ids');
      prefixes.push(prefix);
      const first = createS3Store(storeOptions(prefix));
      stores.push(first);
      await first.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
      const history = `${prefix}/.memdir/history/`;
      const [only] = await keysUnder(admin, history);
      expect(only).toBe(keyOf(history, 'memver_0000000000000001'));
      await admin.send(
        new CopyObjectCommand({
          Bucket: bucket,
          CopySource: `${bucket}/${encodeURIComponent(only!)}`,
          Key: keyOf(history, id),
        }),
      );
      const before = (await keysUnder(admin, prefix)).sort();

      const store = createS3Store(storeOptions(prefix));
      stores.push(store);
      await expect(
        store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' }),
      ).rejects.toMatchObject(OUT_OF_IDS);
      await expect(
        store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' }),
      ).rejects.toMatchObject(OUT_OF_IDS);
      expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
        "Here's the content of /memories/a.md with line numbers:\n     1\ta",
      );
      // The bucket holds what it held before: no file, no version. (The lease of the create is left
      // to expire, as after any change that failed once it began; its journal asks nothing of a
      // recovery.)
      await store.close();
      const after = (await keysUnder(admin, prefix)).filter((key) => key !== `${prefix}/.memdir/lease`);
      expect(after.sort()).toEqual(before);
    });
  }
});

describe('a store whose next id retention removed meanwhile', () => {
  it('an edit gets an id above every version its file names: the newest version is its content', async () => {
    const prefix = uniquePrefix('history-stale-id');
    prefixes.push(prefix);
    // Two stores, two processes' worth of state: each remembers the next id it would claim.
    const options = { ...storeOptions(prefix), history: { keepVersions: 3, keepDays: 0 } };
    const idle = createS3Store(options);
    const busy = createS3Store(options);
    stores.push(idle, busy);
    const path = '/memories/x.md';
    await idle.create({ command: 'create', path, file_text: 'x0' });
    // The other store edits the file five times: memver_2..6, retention removing 1..3 as it goes.
    for (let index = 1; index <= 5; index++)
      await busy.str_replace({
        command: 'str_replace',
        path,
        old_str: `x${index - 1}`,
        new_str: `x${index}`,
      });
    // The idle store would claim memver_2 next, free again since retention removed it.
    await idle.str_replace({ command: 'str_replace', path, old_str: 'x5', new_str: 'idle' });
    const { versions } = await busy.history({ path, limit: 10 });
    expect(versions.map((version) => version.size)).toEqual([4, 2, 2]);
    expect(versions[0]!.sha256).toBe(createHash('sha256').update('idle', 'utf8').digest('hex'));
    expect(versions[0]!.id > 'memver_0000000000000006').toBe(true);
  });
});
