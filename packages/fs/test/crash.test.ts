import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { diskTotals, startChurn, tempFolder, totalsRecord } from './helpers.js';

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

  it('a process killed with SIGKILL between a change and its totals leaves totals the next change gets right', async () => {
    // Kills land anywhere: between a change and the update of the totals (the record then says
    // "changing", and the next change recomputes), inside a recompute, or between commands.
    const seen = { changing: 0, clean: 0 };
    // At least 8 rounds, and on until two kills fell inside a change (most do: a change is marked
    // before its content is written and fsynced).
    for (let round = 0; round < 30 && (round < 8 || seen.changing < 2); round++) {
      const churn = startChurn(root, 0, 0, 'churn-sizes');
      await churn.ready;
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 150));
      churn.child.kill('SIGKILL');
      await churn.exited;
      const record = await totalsRecord(root);
      if (record) seen[record.state as 'changing' | 'clean']++;

      // The next change judges its quota on the true totals: the room left is exactly 5 bytes.
      const disk = await diskTotals(join(root, 'memories'));
      const max = disk.bytes + 5;
      const store = createFsStore({ root, quota: { maxBytes: max } });
      await expect(
        store.create({ command: 'create', path: '/memories/probe.md', file_text: 'p'.repeat(6) }),
      ).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: `The memory directory is full: saving /memories/probe.md would use ${max + 1} of ${max} bytes. Delete or shorten files in /memories first.`,
      });
      await expect(
        store.create({ command: 'create', path: '/memories/probe.md', file_text: 'p'.repeat(5) }),
      ).resolves.toBe('File created successfully at: /memories/probe.md');
      expect(await totalsRecord(root)).toEqual({ state: 'clean', bytes: max, files: disk.files + 1 });
      await store.delete({ command: 'delete', path: '/memories/probe.md' });
      await store.close();
    }
    expect(seen.changing, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
