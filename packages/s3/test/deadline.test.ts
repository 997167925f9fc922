// One deadline per command (timeoutMs): every request of the store is aborted at the time its command
// has left, so a stalled server gives BACKEND (reason `timeout`) just after timeoutMs, and a slow
// but live one is waited for, whatever timeoutMs is. Through test-support's fault proxy in front of
// radosgw, for 1 s and 12 s (the 12 s cases side by side, to keep the file short).
import { isMemoryToolError, type MemoryStore, type MemoryToolError } from '@memdir/core';
import { type FaultProxy, startFaultProxy } from '@memdir/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Store } from '../src/index.js';
import { clearPrefix, rawClient, server, storeOptions, uniquePrefix } from './helpers.js';

/** How late past timeoutMs a stalled command may fail (the brief's bound). */
const SLACK_MS = 250;
const admin = rawClient();
afterAll(() => admin.destroy());
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A store through a fault proxy, with one file in it and the server probed, then `mode`. */
async function through(timeoutMs: number): Promise<{ store: MemoryStore; proxy: FaultProxy }> {
  const proxy = await startFaultProxy({ target: server.clientConfig.endpoint });
  const prefix = uniquePrefix('deadline');
  // Without history, an overwrite is one request (with it, two in turn: its version, then the
  // file), so "each request answers after 60% of the deadline" is a command that should succeed.
  const store = createS3Store({ ...storeOptions(prefix), endpoint: proxy.url, timeoutMs, history: false });
  cleanup.push(async () => {
    await proxy.close();
    await store.close();
    await clearPrefix(admin, `${prefix}/`);
  });
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
  await store.view({ command: 'view', path: '/memories/a.md' });
  return { store, proxy };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value?: T; error?: MemoryToolError; ms: number }> {
  const started = Date.now();
  try {
    const value = await run();
    return { value, ms: Date.now() - started };
  } catch (error) {
    expect(isMemoryToolError(error), String(error)).toBe(true);
    return { error: error as MemoryToolError, ms: Date.now() - started };
  }
}

const CONTENT = "Here's the content of /memories/a.md with line numbers:\n     1\ta";
const viewFile = (store: MemoryStore) => () => store.view({ command: 'view', path: '/memories/a.md' });
const overwrite = (store: MemoryStore, text: string) => () =>
  store.create({ command: 'create', path: '/memories/a.md', file_text: text });

/** A stalled server: BACKEND with reason `timeout` within timeoutMs + SLACK_MS. */
async function expectTimeout(run: () => Promise<unknown>, timeoutMs: number, change: boolean) {
  const { error, ms } = await timed(run);
  expect(error?.code).toBe('BACKEND');
  expect(error?.reason).toBe('timeout');
  expect(error?.outcome).toBe(change ? 'unknown' : 'not-applied');
  expect(ms).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(ms).toBeLessThan(timeoutMs + SLACK_MS);
}

/** A slow server answering each request after 60% of timeoutMs: the command succeeds. */
async function expectWaitedFor(run: () => Promise<string>, timeoutMs: number, expected: string) {
  const { value, error, ms } = await timed(run);
  expect(error?.message).toBeUndefined();
  expect(value).toBe(expected);
  expect(ms).toBeGreaterThanOrEqual(timeoutMs * 0.6 - 50);
}

describe('one deadline per command', () => {
  it('timeoutMs 1,000: a slow server is waited for; a stalled one fails a read and a change in time', async () => {
    const { store, proxy } = await through(1_000);
    // Each direction delayed by 30%: one request answers after 60% of the deadline.
    proxy.setMode({ kind: 'latency', ms: 300 });
    await expectWaitedFor(viewFile(store), 1_000, CONTENT);
    await expectWaitedFor(overwrite(store, 'a'), 1_000, 'File created successfully at: /memories/a.md');
    proxy.setMode('stall');
    await expectTimeout(viewFile(store), 1_000, false);
    await expectTimeout(overwrite(store, 'b'), 1_000, true);
  }, 30_000);

  it('timeoutMs 12,000: a stalled server fails a change in time; a slow one is waited for', async () => {
    const [stalled, slow] = await Promise.all([through(12_000), through(12_000)]);
    stalled.proxy.setMode('stall');
    slow.proxy.setMode({ kind: 'latency', ms: 3_600 });
    await Promise.all([
      expectTimeout(overwrite(stalled.store, 'b'), 12_000, true),
      expectWaitedFor(viewFile(slow.store), 12_000, CONTENT),
    ]);
  }, 60_000);
});
