// A history past its exact range: a store whose history file holds a version id no later id can
// follow exactly (an archive imported before imports were checked left `memver_9999999999999999`;
// the next ids were `memver_10000000000000000`, then `memver_0000000000000NaN`, each overwriting the
// one before). The store refuses the change loudly, writes nothing, and keeps reading what it has.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_VERSION_SEQUENCE, sequenceVersionId } from '@memdir/core/driver';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

const OUT_OF_IDS = {
  code: 'BACKEND',
  reason: 'misconfigured',
  message:
    "The memory store is unavailable: its history holds a version id past memver_9007199254740991, the highest that stays exact, so no change can be recorded; copy the files to a store with a new history. Trying again will not help until the store's configuration is fixed.",
};

describe('a history past its exact range', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  /** A store with one version, whose id is then rewritten in the history file to `id`. */
  async function storeWithVersion(id: string): Promise<string> {
    const first = createFsStore({ root });
    await first.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await first.close();
    const path = join(root, '.memdir', 'history');
    const text = await readFile(path, 'utf8');
    expect(text).toContain('"memver_0000000000000001"');
    await writeFile(path, text.replaceAll('"memver_0000000000000001"', JSON.stringify(id)));
    return path;
  }

  for (const id of [
    'memver_9999999999999999',
    'memver_9007199254740992',
    sequenceVersionId(MAX_VERSION_SEQUENCE),
  ]) {
    it(`after ${id}: a change is refused with BACKEND, nothing is written, and the history still reads`, async () => {
      const historyPath = await storeWithVersion(id);
      const before = await readFile(historyPath, 'utf8');
      const store = createFsStore({ root });
      try {
        await expect(
          store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' }),
        ).rejects.toMatchObject(OUT_OF_IDS);
        await expect(
          store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' }),
        ).rejects.toMatchObject(OUT_OF_IDS);
        expect(await readFile(historyPath, 'utf8')).toBe(before);
        expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
          "Here's the content of /memories/a.md with line numbers:\n     1\ta",
        );
        await expect(store.view({ command: 'view', path: '/memories/b.md' })).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
        const { versions } = await store.history({ limit: 10 });
        expect(versions.map((version) => version.id)).toEqual([id]);
      } finally {
        await store.close();
      }
    });
  }

  it('the last exact id is given out, and only the one after it is refused', async () => {
    await storeWithVersion(sequenceVersionId(MAX_VERSION_SEQUENCE - 1));
    const store = createFsStore({ root });
    try {
      await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' });
      const { versions } = await store.history({ limit: 10 });
      expect(versions.map((version) => version.id)).toEqual([
        'memver_9007199254740991',
        'memver_9007199254740990',
      ]);
      await expect(
        store.create({ command: 'create', path: '/memories/c.md', file_text: 'c' }),
      ).rejects.toMatchObject(OUT_OF_IDS);
    } finally {
      await store.close();
    }
  });
});
