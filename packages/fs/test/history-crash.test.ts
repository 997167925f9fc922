// History under SIGKILL: a writer process (history on, the default) creating, editing, moving and
// deleting files is killed at random points, often between a change's versions and their commit
// line. Afterwards history must neither show a change that did not happen nor miss one that did:
// the newest version at every file's path matches its content, and the newest version touching a
// path that holds no file removed or moved it.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { startChurn, tempFolder } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every file beneath `dir` on disk, as `/memories/...` paths, with its content. */
async function filesOnDisk(dir: string, path = '/memories'): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const child = join(dir, entry.name);
    if (entry.isDirectory())
      for (const [key, value] of await filesOnDisk(child, `${path}/${entry.name}`)) found.set(key, value);
    else if (entry.isFile()) found.set(`${path}/${entry.name}`, await readFile(child, 'utf8'));
  }
  return found;
}

/** The last line of the history file: a `g` line means the kill fell between a change's versions and its commit. */
async function lastLine(root: string): Promise<string> {
  const text = await readFile(join(root, '.memdir', 'history'), 'utf8').catch(() => '');
  return text.trimEnd().split('\n').at(-1) ?? '';
}

describe('history under SIGKILL', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('a writer killed mid-change leaves a history whose newest version of every path matches the files', async () => {
    let pending = 0;
    let rounds = 0;
    // At least 8 rounds, and on until two kills fell between a change's versions and its commit.
    for (; rounds < 40 && (rounds < 8 || pending < 2); rounds++) {
      const churn = startChurn(root, 0, 0, 'churn-sizes');
      await churn.ready;
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 150));
      churn.child.kill('SIGKILL');
      await churn.exited;
      if ((await lastLine(root)).startsWith('{"g":')) pending++;

      const store = createFsStore({ root });
      const files = await filesOnDisk(join(root, 'memories'));
      for (const [path, content] of files) {
        const { versions } = await store.history({ path, limit: 1 });
        expect(versions[0], path).toMatchObject({ path, sha256: sha(content) });
        expect(versions[0]!.operation, path).not.toBe('deleted');
      }
      // Every path history knows that holds no file now: its newest version removed or moved it.
      const known = new Set<string>();
      for (let cursor: string | undefined, page = 0; page < 20; page++) {
        const listed = await store.history({ limit: 1_000, cursor });
        for (const version of listed.versions) if (version.path) known.add(version.path);
        if (!listed.next) break;
        cursor = listed.next;
      }
      for (const path of known) {
        if (files.has(path)) continue;
        const { versions } = await store.history({ path, limit: 1 });
        const newest = versions[0]!;
        const movedAway = newest.previousPath === path;
        expect(newest.operation === 'deleted' || movedAway, `${path}: ${newest.operation}`).toBe(true);
      }
      await store.close();
    }
    expect(pending, `kills between versions and commit in ${rounds} rounds`).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
