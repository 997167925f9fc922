// The admin on the folders themselves (the conformance admin group checks it through the stores):
// a drop leaves no trace of the namespace on disk, a drop interrupted after its first batch is
// finished by another admin (another process), and every neighbour's folder, names that start
// with the dropped one's included, is left exactly as it was, byte for byte.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMemoryStore } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsAdmin, createFsDriver } from '../src/index.js';
import { tempFolder } from './helpers.js';

/** Everything beneath `dir`: each entry's kind and, for a regular file, its content (live sockets and the lock left out). */
async function tree(dir: string, path = ''): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const child = join(dir, entry.name);
    const relative = `${path}/${entry.name}`;
    if (entry.isDirectory()) {
      found[relative] = 'folder';
      Object.assign(found, await tree(child, relative));
    } else if (entry.isFile()) {
      found[relative] = await readFile(child, 'utf8');
    }
  }
  return found;
}

describe('admin on the folder', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('dropNamespace erases the folder, resumes in another admin after a crash, and touches no neighbour', async () => {
    const driver = createFsDriver({ root });
    const names = ['drop', 'drop-x', 'dropx', 'dro', 'drop.1', 'drop@a'];
    for (const name of [...names, undefined]) {
      const store = createMemoryStore(driver, { namespace: name });
      for (let index = 0; index < 6; index++) {
        await store.create({
          command: 'create',
          path: `/memories/d${index % 2}/f${index}.md`,
          file_text: `${name} ${index}`,
        });
      }
      await store.create({ command: 'create', path: '/memories/.hidden/h.md', file_text: 'h' });
      await store.str_replace({
        command: 'str_replace',
        path: '/memories/d0/f0.md',
        old_str: '0',
        new_str: 'zero',
      });
      await store.delete({ command: 'delete', path: '/memories/d1/f1.md' });
      await store.close();
    }
    const inner = createMemoryStore(driver.namespace('drop'), { namespace: 'inner' });
    await inner.create({ command: 'create', path: '/memories/nested.md', file_text: 'nested' });
    await inner.close();
    await driver.close();
    const spaces = join(root, 'namespaces');
    const neighbours = async () => ({
      root: await tree(join(root, 'memories')),
      history: await readFile(join(root, '.memdir', 'history'), 'utf8'),
      ...Object.fromEntries(
        await Promise.all(names.slice(1).map(async (name) => [name, await tree(join(spaces, name))])),
      ),
    });
    const before = await neighbours();

    // The first batch of a drop, then the process is gone.
    const first = createFsDriver({ root });
    expect(await first.dropNamespace('drop', { batch: 3 })).toEqual({ removed: 3, done: false });
    await first.close();
    const left = (await readdir(spaces)).filter((name) => name.startsWith('.drop~drop~'));
    expect(left).toHaveLength(1);
    await expect(lstat(join(spaces, 'drop'))).rejects.toMatchObject({ code: 'ENOENT' });

    const admin = createFsAdmin({ root, batch: 10 });
    const steps: number[] = [];
    const { removed } = await admin.dropNamespace('drop', { onProgress: (step) => steps.push(step.removed) });
    expect(removed).toBeGreaterThan(10);
    expect(steps.length).toBeGreaterThan(1);
    // Nothing is left, not even the folders the admin's own check made when it opened the
    // namespace (issue 34: no folder named after a dropped namespace).
    expect((await readdir(spaces)).sort()).toEqual([...names.slice(1)].sort());
    expect(await neighbours()).toEqual(before);
    expect((await admin.listNamespaces()).namespaces).toEqual([...names.slice(1)].sort());
    expect(await admin.usage('drop')).toEqual({
      namespace: 'drop',
      files: 0,
      bytes: 0,
      versions: 0,
      lastChangeAt: null,
    });
    expect(await admin.usage('dropx')).toMatchObject({ files: 6, versions: 9 });
    await admin.close();
    // Looking at the dropped namespace again made its folders for the look, and took them away.
    await expect(lstat(join(spaces, 'drop'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a namespace opened and closed without a write leaves no folder named after it; one written to keeps its own', async () => {
    const driver = createFsDriver({ root });
    const looked = createMemoryStore(driver, { namespace: 'alice-1' });
    expect(await looked.view({ command: 'view', path: '/memories' })).toContain('/memories');
    await looked.close();
    const written = createMemoryStore(driver, { namespace: 'bob' });
    await written.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await written.delete({ command: 'delete', path: '/memories/a.md' });
    await written.close();
    await driver.close();
    expect(await readdir(join(root, 'namespaces'))).toEqual(['bob']);
    expect(await tree(join(root, 'namespaces', 'bob', 'memories'))).toEqual({});
  });
});
