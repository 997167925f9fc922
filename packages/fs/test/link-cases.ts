import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryStore } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FsStoreOptions } from '../src/index.js';
import { tempFolder } from './helpers.js';

const ESCAPE = 'Path would escape /memories directory via symlink';

/** Every entry beneath `folder`: kind, inode, and content or link target. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const walk = async (dir: string, prefix: string) => {
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name);
      const key = `${prefix}${name}`;
      const info = await lstat(path);
      if (info.isSymbolicLink()) entries[key] = `link ${info.ino} -> ${await readlink(path)}`;
      else if (info.isDirectory()) {
        entries[key] = `dir ${info.ino}`;
        await walk(path, `${key}/`);
      } else if (info.isFile()) entries[key] = `file ${info.ino} ${await readFile(path, 'utf8')}`;
      else entries[key] = `other ${info.ino}`;
    }
  };
  await walk(folder, '');
  return entries;
}

// Each link, as a driver path and the target it is given (`OUTSIDE` stands for the outside folder).
const LINKS = [
  { title: 'here -> . (the memory folder itself)', link: 'here', target: '.' },
  { title: 'a/b/up -> .. (a folder above it)', link: 'a/b/up', target: '..' },
  { title: 'alias -> real (a sibling)', link: 'alias', target: 'real' },
  { title: 'out -> a folder outside', link: 'out', target: 'OUTSIDE' },
];

/**
 * The link cases, for a store factory: this package's, or the same store in its portable mode
 * (fallback.test.ts).
 */
export function describeLinks(createFsStore: (options: FsStoreOptions) => MemoryStore): void {
  describe.each(LINKS)('a link $title', ({ link, target }) => {
    let work: string;
    let root: string;
    let outside: string;
    let store: MemoryStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ path: work, cleanup } = await tempFolder());
      root = join(work, 'root');
      outside = join(work, 'outside');
      const memories = join(root, 'memories');
      await mkdir(join(memories, 'real'), { recursive: true });
      await mkdir(join(memories, 'a', 'b'), { recursive: true });
      await mkdir(outside);
      for (const folder of [join(memories, 'real'), join(memories, 'a'), outside]) {
        await writeFile(join(folder, 'file.md'), 'original');
      }
      await writeFile(join(memories, 'a', 'b', 'note.md'), 'note');
      await writeFile(join(memories, 'keep.md'), 'keep');
      await symlink(target === 'OUTSIDE' ? outside : target, join(memories, link));
      store = createFsStore({ root });
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('every command through it or naming it is refused, and nothing anywhere changes', async () => {
      // What the model's paths can reach, and what lies outside; memdir's own files are not compared.
      const everything = async () => ({
        memories: await snapshot(join(root, 'memories')),
        outside: await snapshot(outside),
      });
      const before = await everything();
      const at = `/memories/${link}`;
      const commands = [
        { command: 'view', path: at },
        { command: 'view', path: `${at}/file.md` },
        { command: 'view', path: `${at}/b` },
        { command: 'create', path: at, file_text: 'over the link' },
        { command: 'create', path: `${at}/file.md`, file_text: 'through the link' },
        { command: 'create', path: `${at}/new.md`, file_text: 'through the link' },
        { command: 'create', path: `${at}/deep/new.md`, file_text: 'through the link' },
        { command: 'str_replace', path: `${at}/file.md`, old_str: 'original', new_str: 'changed' },
        { command: 'insert', path: `${at}/file.md`, insert_line: 0, insert_text: 'changed' },
        { command: 'delete', path: at },
        { command: 'delete', path: `${at}/file.md` },
        { command: 'delete', path: `${at}/b` },
        { command: 'rename', old_path: at, new_path: '/memories/moved' },
        { command: 'rename', old_path: `${at}/file.md`, new_path: '/memories/moved.md' },
        { command: 'rename', old_path: '/memories/keep.md', new_path: `${at}/keep.md` },
        { command: 'rename', old_path: '/memories/keep.md', new_path: at },
      ];
      for (const command of commands) {
        await expect(store.execute(command), JSON.stringify(command)).rejects.toMatchObject({
          code: 'INVALID_PATH',
          message: ESCAPE,
        });
      }
      expect(await everything()).toEqual(before);
    });

    it('listings leave it out and still show everything else', async () => {
      const listing = await store.view({ command: 'view', path: '/memories' });
      expect(listing).not.toContain(`/memories/${link}`);
      expect(listing).toContain('/memories/real/file.md');
      expect(listing).toContain('/memories/keep.md');
    });

    it('deleting a folder that holds it removes the link itself, never what it leads to', async () => {
      // The folder holding the link: `a` for a/b/up, the memory folder's children otherwise (put
      // the link into a folder of its own first).
      let folder = 'a';
      if (!link.startsWith('a/')) {
        await mkdir(join(root, 'memories', 'box'));
        await writeFile(join(root, 'memories', 'box', 'x.md'), 'x');
        await symlink(
          target === 'OUTSIDE' ? outside : target === '.' ? '..' : `../${target}`,
          join(root, 'memories', 'box', 'l'),
        );
        folder = 'box';
      }
      await expect(store.delete({ command: 'delete', path: `/memories/${folder}` })).resolves.toBe(
        `Successfully deleted /memories/${folder}`,
      );
      const names = await readdir(join(root, 'memories'));
      expect(names).not.toContain(folder);
      expect(names).toEqual(expect.arrayContaining(['keep.md', 'real']));
      expect(await readFile(join(root, 'memories', 'real', 'file.md'), 'utf8')).toBe('original');
      expect(await readFile(join(outside, 'file.md'), 'utf8')).toBe('original');
      expect(await readdir(join(root, '.memdir', 'tmp'))).toEqual([]);
    });
  });

  describe('the memory folder itself', () => {
    it('a link in place of {root}/memories refuses every command and changes nothing', async () => {
      const { path: work, cleanup } = await tempFolder();
      await mkdir(join(work, 'elsewhere'));
      await writeFile(join(work, 'elsewhere', 'file.md'), 'elsewhere');
      await mkdir(join(work, 'root'));
      await symlink(join(work, 'elsewhere'), join(work, 'root', 'memories'));
      const before = await snapshot(join(work, 'elsewhere'));
      const store = createFsStore({ root: join(work, 'root') });
      for (const command of [
        { command: 'view', path: '/memories' },
        { command: 'view', path: '/memories/file.md' },
        { command: 'create', path: '/memories/new.md', file_text: 'x' },
        { command: 'delete', path: '/memories/file.md' },
      ]) {
        await expect(store.execute(command)).rejects.toMatchObject({ code: 'INVALID_PATH', message: ESCAPE });
      }
      expect(await snapshot(join(work, 'elsewhere'))).toEqual(before);
      await store.close();
      await cleanup();
    });
  });
}
