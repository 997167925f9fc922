import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { startChurn, tempFolder } from './helpers.js';

const FILES = 4;
const SIZE = 256 * 1024;

function body(generation: number): string {
  const line = `generation ${generation}\n`;
  return line.repeat(Math.ceil(SIZE / line.length)).slice(0, SIZE);
}

describe('crash safety', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('a process killed with SIGKILL mid-write leaves every file with its old or its new content', async () => {
    for (let round = 0; round < 5; round++) {
      const churn = startChurn(root, FILES, SIZE);
      await churn.ready;
      // Let it run a little so the kill lands at a random point of a write or an edit.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      churn.child.kill('SIGKILL');
      await churn.exited;

      const folder = join(root, 'memories', 'churn');
      for (const name of await readdir(folder)) {
        const content = await readFile(join(folder, name), 'utf8');
        if (name === 'counter.txt') {
          expect(content).toMatch(/^count: \d+$/);
          continue;
        }
        const generation = Number(/^generation (\d+)\n/.exec(content)?.[1]);
        expect(Number.isInteger(generation), `${name} starts with a generation line`).toBe(true);
        expect(content === body(generation), `${name} holds exactly generation ${generation}`).toBe(true);
      }
    }

    // The killed holder's lock is detected as abandoned, so the next writer goes straight on;
    // and its half-written temporary files are never seen and get swept.
    const store = createFsStore({ root, lockTimeoutMs: 4_000 });
    const started = Date.now();
    await expect(
      store.insert({
        command: 'insert',
        path: '/memories/churn/counter.txt',
        insert_line: 1,
        insert_text: 'after',
      }),
    ).resolves.toBe('The file /memories/churn/counter.txt has been edited.');
    expect(Date.now() - started).toBeLessThan(5_000);
    const listing = await store.view({ command: 'view', path: '/memories/churn' });
    expect(listing.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^\S+\t\/memories\/churn$/),
      expect.stringMatching(/^\S+\t\/memories\/churn\/counter\.txt$/),
      ...Array.from({ length: FILES }, (_, index) =>
        expect.stringMatching(new RegExp(`^256K\\t/memories/churn/file-${index}\\.txt$`)),
      ),
    ]);
    expect(await readdir(join(root, '.memdir', 'tmp'))).toEqual([]);
    await store.close();
  }, 60_000);
});
