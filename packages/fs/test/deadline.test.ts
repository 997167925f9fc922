// One deadline per command: a change waits for another process's lock as long as `timeoutMs`
// allows, less a margin to answer in time. A holder that never lets go gives BACKEND `busy` within
// timeoutMs + 250 ms (never before most of it passed); one that lets go after 60% of it is waited
// for. Each case runs on its own folder, the two of one timeout at once.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { startHolder, tempFolder } from './helpers.js';

const BUSY = 'The memory store is busy: another process is holding its lock. Try again.';

describe.each([1_000, 12_000])('timeoutMs %i', (timeoutMs) => {
  let roots: { stalled: string; slow: string };
  let cleanups: (() => Promise<void>)[];
  beforeAll(async () => {
    const [stalled, slow] = await Promise.all([tempFolder(), tempFolder()]);
    roots = { stalled: stalled.path, slow: slow.path };
    cleanups = [stalled.cleanup, slow.cleanup];
  });
  afterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

  it('a holder that never lets go: BACKEND busy within timeoutMs + 250 ms, for every waiting command of this process; one that lets go after 60% of it: waited for', async () => {
    const stalled = startHolder(roots.stalled);
    const slow = startHolder(roots.slow, 'none', timeoutMs * 0.6);
    await Promise.all([stalled.held, slow.held]);
    const stalledStore = createFsStore({ root: roots.stalled, timeoutMs });
    const slowStore = createFsStore({ root: roots.slow, timeoutMs });
    const started = Date.now();
    const [busy, waited] = await Promise.all([
      // Three commands: one waits for the other process, two wait behind it in this process.
      Promise.all(
        ['a', 'b', 'c'].map((name) =>
          stalledStore.create({ command: 'create', path: `/memories/${name}.md`, file_text: name }).then(
            () => ({ error: undefined, after: Date.now() - started }),
            (error: unknown) => ({ error, after: Date.now() - started }),
          ),
        ),
      ),
      slowStore
        .create({ command: 'create', path: '/memories/slow.md', file_text: 'waited' })
        .then((text) => ({ text, at: Date.now() })),
    ]);
    for (const { error, after } of busy) {
      expect(error).toMatchObject({ code: 'BACKEND', message: BUSY, reason: 'busy', outcome: 'not-applied' });
      expect(after).toBeLessThan(timeoutMs + 250);
      // Derived from the deadline: no fixed wait of its own ends it early.
      expect(after).toBeGreaterThanOrEqual(timeoutMs * 0.7);
    }
    expect(waited.text).toBe('File created successfully at: /memories/slow.md');
    // It waited for the holder to let go: from the holder's own clock (this test's `started` comes
    // later, by however long a loaded machine takes to pass the holder's word on).
    expect(waited.at - slow.heldAt).toBeGreaterThanOrEqual(timeoutMs * 0.6);
    expect(await readFile(join(roots.slow, 'memories', 'slow.md'), 'utf8')).toBe('waited');
    // Reads never wait for the lock.
    const read = Date.now();
    await expect(stalledStore.view({ command: 'view', path: '/memories/held.md' })).resolves.toContain(
      'held',
    );
    expect(Date.now() - read).toBeLessThan(1_000);
    await stalled.kill();
    await slow.exited;
    await stalledStore.close();
    await slowStore.close();
  }, 60_000);
});
