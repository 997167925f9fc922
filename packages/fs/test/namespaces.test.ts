import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { runInNamespace, startHolder, tempFolder } from './helpers.js';

// Processes in separate PID namespaces, as containers sharing one volume are (these tests run as
// root, for `unshare`). A pid means nothing across them: each has its own pid 1.
describe('processes in separate PID namespaces', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('two processes x 250 concurrent inserts into one file, 8 rounds: no line is lost', async () => {
    const store = createFsStore({ root });
    const inserts = (who: string, round: number) =>
      Array.from({ length: 250 }, (_, index) => ({
        command: 'insert',
        path: `/memories/log-${round}.md`,
        insert_line: 1,
        insert_text: `${who}-${index}`,
      }));
    for (let round = 0; round < 8; round++) {
      await store.create({ command: 'create', path: `/memories/log-${round}.md`, file_text: '# log' });
      // One is pid 1 in its namespace, the other pid 42: judged by pid, each would find the other
      // alive (pid 1 is always someone) or gone (nobody is pid 42 in the first one's namespace).
      const [first, second] = await Promise.all([
        runInNamespace(root, inserts('a', round), {}, 'pid1'),
        runInNamespace(root, inserts('b', round), {}, 'pid42'),
      ]);
      const failed = [...first, ...second].filter((result) => result.ok === undefined);
      expect(failed, `round ${round}`).toEqual([]);
      const lines = (await readFile(join(root, 'memories', `log-${round}.md`), 'utf8')).split('\n');
      expect(lines[0]).toBe('# log');
      expect(lines.length - 1, `round ${round}: lines kept`).toBe(500);
      expect(new Set(lines.slice(1)).size).toBe(500);
    }
    await store.close();
  }, 300_000);

  it('a lock left by a killed process is broken at once by a new process with the same pid', async () => {
    const holder = startHolder(root, 'pid1');
    expect(await holder.held).toBe(1);
    await holder.kill();
    // The new process is pid 1 in its own namespace too: by pid, the old holder would look alive.
    const started = Date.now();
    const [result] = await runInNamespace(
      root,
      [{ command: 'create', path: '/memories/after.md', file_text: 'after' }],
      { lockTimeoutMs: 5_000 },
      'pid1',
    );
    expect(result).toEqual({ ok: 'File created successfully at: /memories/after.md' });
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 60_000);

  it('a live process’s temporary file survives a sweep by another namespace’s pid 1, and is swept once that process is gone', async () => {
    const holder = startHolder(root, 'pid1');
    await holder.held;
    const tmp = join(root, '.memdir', 'tmp');
    const inFlight = await readdir(tmp);
    expect(inFlight).toHaveLength(1);
    // Opening for writes sweeps leftovers first; the command then waits for the lock, and gives up.
    const [busy] = await runInNamespace(
      root,
      [{ command: 'create', path: '/memories/x.md', file_text: 'x' }],
      { lockTimeoutMs: 300 },
      'pid1',
    );
    expect(busy).toMatchObject({ code: 'BACKEND' });
    expect(await readdir(tmp)).toEqual(inFlight);
    await holder.kill();
    const [after] = await runInNamespace(
      root,
      [{ command: 'create', path: '/memories/x.md', file_text: 'x' }],
      { lockTimeoutMs: 3_000 },
      'pid1',
    );
    expect(after).toEqual({ ok: 'File created successfully at: /memories/x.md' });
    expect(await readdir(tmp)).toEqual([]);
  }, 60_000);
});
