// One deadline per command (timeoutMs), through the fault proxy: a stalled server gives BACKEND with
// reason `timeout` within timeoutMs + 250 ms, on a connection in use and on the first connect; a
// slow but live one (each round trip taking 60% of timeoutMs) is waited for. For 1 s and 12 s.
import { isMemoryToolError } from '@memdir/core';
import { startFaultProxy } from '@memdir/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore, type PostgresMemoryStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Outcome {
  ms: number;
  ok?: string;
  code?: string;
  reason?: string;
  outcome?: string;
}

async function timed(promise: Promise<string>): Promise<Outcome> {
  const started = Date.now();
  try {
    const ok = await promise;
    return { ms: Date.now() - started, ok };
  } catch (error) {
    if (!isMemoryToolError(error)) throw error;
    return { ms: Date.now() - started, code: error.code, reason: error.reason, outcome: error.outcome };
  }
}

/** A store on a schema of its own, through a proxy of its own. */
async function proxied(
  timeoutMs: number,
): Promise<{ store: PostgresMemoryStore; proxy: Awaited<ReturnType<typeof startFaultProxy>> }> {
  const schema = freshSchema();
  const proxy = await startFaultProxy({ target: databaseUrl() });
  const store = createPostgresStore({ connectionString: proxy.url, schema, timeoutMs });
  cleanups.push(() => dropSchema(admin, schema));
  cleanups.push(() => proxy.close());
  cleanups.push(() => store.close());
  return { store, proxy };
}

const view = (store: PostgresMemoryStore) => store.view({ command: 'view', path: '/memories/a.md' });
const create = (store: PostgresMemoryStore, text: string) =>
  store.create({ command: 'create', path: '/memories/a.md', file_text: text });

/** Opens a few connections and sets the schema up, so the measured commands pay one round trip each. */
async function warm(store: PostgresMemoryStore): Promise<void> {
  await create(store, 'warm');
  await Promise.all([view(store), view(store), view(store)]);
}

describe.each([1_000, 12_000])('timeoutMs %i', (timeoutMs) => {
  it('a stalled server gives BACKEND timeout within timeoutMs + 250 ms; a slow live one is waited for', async () => {
    const [stalled, slow, cold] = await Promise.all([
      proxied(timeoutMs),
      proxied(timeoutMs),
      proxied(timeoutMs),
    ]);
    await Promise.all([warm(stalled.store), warm(slow.store)]);
    stalled.proxy.setMode('stall');
    cold.proxy.setMode('stall');
    // A round trip is a delay each way: 60% of the deadline in all.
    slow.proxy.setMode({ kind: 'latency', ms: Math.round(timeoutMs * 0.3) });
    const [read, change, first, slowRead, slowChange] = await Promise.all([
      timed(view(stalled.store)),
      timed(create(stalled.store, 'lost')),
      timed(view(cold.store)),
      timed(view(slow.store)),
      // Sequential on the slow store: one command, one round trip, on a connection already open.
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, timeoutMs * 0.7));
        return timed(create(slow.store, 'slow'));
      })(),
    ]);
    expect(read).toMatchObject({ code: 'BACKEND', reason: 'timeout', outcome: 'not-applied' });
    expect(change).toMatchObject({ code: 'BACKEND', reason: 'timeout', outcome: 'unknown' });
    expect(first).toMatchObject({ code: 'BACKEND', reason: 'timeout' });
    for (const outcome of [read, change, first]) expect(outcome.ms).toBeLessThanOrEqual(timeoutMs + 250);
    expect(slowRead.ok).toContain('     1\twarm');
    expect(slowRead.ms).toBeGreaterThanOrEqual(timeoutMs * 0.55);
    expect(slowChange.ok).toBe('File created successfully at: /memories/a.md');
    // Both go on once the server answers again.
    stalled.proxy.setMode('pass');
    cold.proxy.setMode('pass');
    slow.proxy.setMode('pass');
    expect(await view(stalled.store)).toContain('     1\t');
    expect(await create(cold.store, 'after')).toBe('File created successfully at: /memories/a.md');
    expect(await view(slow.store)).toContain('     1\tslow');
  }, 60_000);
});
