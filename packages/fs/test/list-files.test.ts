// The walk behind listings, folder deletes and recounts: the same files whether the lookups stay on
// this thread (a warm cache) or go through the thread pool (a cold disk).
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTrusted } from '../src/dir.js';
import { listFiles } from '../src/list-files.js';
import { tempFolder } from './helpers.js';

describe('listFiles', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('finds every regular file with its size, links and hidden subtrees left out, warm or cold alike', async () => {
    const expected: Record<string, number> = {};
    for (const folder of ['a', 'b', 'b/deep', 'c']) {
      await mkdir(join(root, folder), { recursive: true });
      for (let index = 0; index < 90; index++) {
        const path = `${folder}/f${index}.md`;
        const size = (index * 7) % 31;
        await writeFile(join(root, path), 'x'.repeat(size));
        expected[path] = size;
      }
    }
    await mkdir(join(root, 'c', '.git', 'objects'), { recursive: true });
    await writeFile(join(root, 'c', '.git', 'objects', 'o'), 'hidden');
    await writeFile(join(root, '.hidden.md'), 'hidden file');
    await symlink(join(root, 'a'), join(root, 'link-to-a'));
    await symlink(join(root, 'a', 'f1.md'), join(root, 'b', 'link.md'));

    const folder = await openTrusted(root);
    try {
      const asMap = (entries: { path: string; size: number }[]) =>
        Object.fromEntries(entries.map((entry) => [entry.path, entry.size]));
      const warm = asMap(await listFiles(folder, '', false));
      // -1: the disk counts as cold after the first 64 lookups, and the pool takes the rest.
      const cold = asMap(await listFiles(folder, '', false, -1));
      const all = { ...expected, '.hidden.md': 11, 'c/.git/objects/o': 6 };
      expect(warm).toEqual(all);
      expect(cold).toEqual(all);
      // With hidden names skipped, each is reported once, with no size, and not walked.
      const skipping = asMap(await listFiles(folder, '', true, -1));
      expect(skipping).toEqual({ ...expected, '.hidden.md': 0, 'c/.git': 0 });
    } finally {
      folder.close();
    }
  });
});
