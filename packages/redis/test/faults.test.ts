// Failures of the network and of the server, injected for real: the fault proxy between the store
// and Redis (stall, reset, cut replies), and servers of these tests' own that are killed, restarted
// and paused. Every failure is a BACKEND error within the deadline, in plain words; nothing is
// applied twice or late; the same store works again once the fault is gone.

import { type AddressInfo, createServer, type Socket } from 'node:net';
import { isMemoryToolError, type MemoryHistory, type MemoryStore, type MemoryToolError } from '@memdir/core';
import {
  type FaultProxy,
  type PrivateServer,
  startFaultProxy,
  startPrivateRedis,
} from '@memdir/test-support';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_WAIT_MS, REDIS_DEFAULTS } from '../src/connection.js';
import { createRedisStore } from '../src/index.js';
import {
  checkLayout,
  deleteUnder,
  expectHistoryMatches,
  newRedis,
  redisUrl,
  uniquePrefix,
} from './helpers.js';

const DEADLINE_SLACK_MS = 250;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The outcome of a command, with how long it took. */
async function timed(
  promise: Promise<string>,
): Promise<{ ok?: string; code?: string; message?: string; ms: number }> {
  const started = Date.now();
  try {
    return { ok: await promise, ms: Date.now() - started };
  } catch (error) {
    if (!isMemoryToolError(error)) throw error;
    return { code: error.code, message: error.message, ms: Date.now() - started };
  }
}

/** The error of a command that must fail, with how long it took from its start. */
async function timedError(run: () => Promise<string>): Promise<MemoryToolError & { ms: number }> {
  const started = Date.now();
  try {
    await run();
  } catch (error) {
    if (!isMemoryToolError(error)) throw error;
    return Object.assign(error, { ms: Date.now() - started });
  }
  throw new Error('the command succeeded');
}

const create = (path: string, file_text = 'x') => ({ command: 'create' as const, path, file_text });
const view = (path: string) => ({ command: 'view' as const, path });

/** Retries `run` until it succeeds, for the recovery after a fault (a reconnect takes up to 1 s). */
async function eventually(run: () => Promise<string>, ms = 10_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await wait(100);
    }
  }
}

const observer = newRedis();
beforeAll(() => observer.connect());
afterAll(() => observer.quit());

describe('through the fault proxy', () => {
  let proxy: FaultProxy;
  let prefix: string;
  let store: MemoryStore;
  beforeAll(async () => {
    proxy = await startFaultProxy({ target: redisUrl() });
  });
  afterAll(() => proxy.close());
  afterEach(async () => {
    proxy.setMode('pass');
    await store.close();
    await checkLayout(observer, prefix);
    await deleteUnder(observer, prefix);
  });

  function open(options: Parameters<typeof createRedisStore>[0] = {}): MemoryStore {
    prefix = uniquePrefix('f');
    store = createRedisStore({ url: proxy.url, keyPrefix: prefix, ...options });
    return store;
  }

  // One deadline (timeoutMs) bounds every request: a stalled server gives BACKEND with reason
  // timeout within timeoutMs + 250 ms, and a slow but live one (answering after 60% of it) is
  // waited for, for a short and a long timeoutMs alike.
  for (const timeoutMs of [1_000, 12_000]) {
    it(`timeoutMs ${timeoutMs}: a stalled server gives BACKEND (timeout) in time for a read and a change, which never lands; a slow one is waited for`, async () => {
      open({ timeoutMs });
      await store.create(create('/memories/before.md'));
      proxy.setMode('stall');
      const [read, change] = await Promise.all([
        timedError(() => store.view(view('/memories/before.md'))),
        timedError(() => store.create(create('/memories/during.md'))),
      ]);
      const within = `it did not answer within ${timeoutMs / 1000} second${timeoutMs === 1_000 ? '' : 's'}`;
      expect(read).toMatchObject({
        code: 'BACKEND',
        reason: 'timeout',
        outcome: 'not-applied',
        message: `The memory store is unavailable: ${within}. Try again.`,
      });
      expect(change).toMatchObject({
        code: 'BACKEND',
        reason: 'timeout',
        outcome: 'unknown',
        message: `The memory store is unavailable: ${within}. The change may or may not have been saved: view the path before you try again.`,
      });
      for (const outcome of [read, change]) {
        expect(outcome.ms).toBeGreaterThanOrEqual(timeoutMs - 2);
        expect(outcome.ms).toBeLessThan(timeoutMs + 250);
      }
      // What the stalled connection still holds, or ioredis resends, reaches Redis past its fence.
      proxy.setMode('pass');
      expect(await eventually(() => store.view(view('/memories/before.md')))).toContain('     1\tx');
      await wait(200);
      await expect(store.view(view('/memories/during.md'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      // Slow but live: each direction delayed by 30% of the deadline.
      await store.view(view('/memories/before.md'));
      proxy.setMode({ kind: 'latency', ms: timeoutMs * 0.3 });
      const [slowRead, slowChange] = await Promise.all([
        store.view(view('/memories/before.md')),
        store.create(create('/memories/slow.md', 'slow')),
      ]);
      expect(slowRead).toContain('     1\tx');
      expect(slowChange).toBe('File created successfully at: /memories/slow.md');
      proxy.setMode('pass');
      expect(await store.view(view('/memories/slow.md'))).toContain('slow');
    }, 60_000);
  }

  it('a stalled server with the user\u2019s own client (no timeouts of its own): BACKEND at the deadline, the client is left open', async () => {
    prefix = uniquePrefix('f');
    const own = new Redis(proxy.url, { lazyConnect: true });
    own.on('error', () => {});
    store = createRedisStore({ client: own, keyPrefix: prefix, timeoutMs: 1_000 });
    await store.create(create('/memories/a.md'));
    proxy.setMode('stall');
    const outcome = await timedError(() => store.view(view('/memories/a.md')));
    expect(outcome).toMatchObject({
      code: 'BACKEND',
      reason: 'timeout',
      message: 'The memory store is unavailable: it did not answer within 1 second. Try again.',
    });
    expect(outcome.ms).toBeGreaterThanOrEqual(998);
    expect(outcome.ms).toBeLessThan(1_250);
    proxy.setMode('pass');
    expect(await eventually(() => store.view(view('/memories/a.md')))).toContain('     1\tx');
    expect(own.status).toBe('ready');
    await store.close();
    own.disconnect();
  }, 30_000);

  it('connections reset while 50 creates run: each succeeds or says it may not have been saved, and successes are kept', async () => {
    open();
    await store.create(create('/memories/warm.md'));
    const paths = Array.from({ length: 50 }, (_, index) => `/memories/reset/${index}.md`);
    // Slow the traffic so that the reset finds the creates in flight.
    proxy.setMode({ kind: 'latency', ms: 20 });
    proxy.resetStats();
    const running = paths.map((path) => timed(store.create(create(path, path))));
    await wait(10);
    proxy.setMode('reset');
    await wait(50);
    proxy.setMode('pass');
    const outcomes = await Promise.all(running);
    // The reset dropped the connection the creates were on (opened before the stats were reset):
    // ioredis made a new one and resent them.
    expect(proxy.stats().connections).toBeGreaterThanOrEqual(1);
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.ok !== undefined) {
        expect(outcome.ok).toBe(`File created successfully at: ${paths[index]}`);
        expect(await eventually(() => store.view(view(paths[index]!)))).toContain(paths[index]);
      } else {
        expect(outcome.code).toBe('BACKEND');
        expect(outcome.message).toMatch(
          /^The memory store is unavailable: .* The change may or may not have been saved/,
        );
        expect(outcome.message).not.toMatch(/127\.0\.0\.1|\d{4,5}|Error|at /);
      }
      expect(outcome.ms).toBeLessThan(5_000 + DEADLINE_SLACK_MS);
    }
    await eventually(() => store.create(create('/memories/after.md')));
  }, 30_000);

  it('100 inserts whose replies are cut leave exactly 100 new lines, none twice', async () => {
    prefix = uniquePrefix('f');
    // A client like the one the store makes, so the test can see it reconnect (at once: what is
    // tested is the replay, not the reconnect's backoff).
    const own = new Redis(proxy.url, { ...REDIS_DEFAULTS, retryStrategy: () => 5 });
    own.on('error', () => {});
    let reconnects = 0;
    own.on('reconnecting', () => {
      reconnects++;
      // The new connection must get its INFO through: only the insert's reply is cut.
      proxy.setMode('pass');
    });
    store = createRedisStore({ client: own, keyPrefix: prefix });
    await store.create(create('/memories/log.md', '# log'));
    let unknown = 0;
    for (let index = 0; index < 100; index++) {
      const line = `line ${index}`;
      await eventually(() => store.view(view('/memories/log.md')));
      // The insert is one script: cut its reply after a few bytes, so that ioredis resends it.
      proxy.setMode({ kind: 'cut', afterBytes: 3 });
      const insert = {
        command: 'insert' as const,
        path: '/memories/log.md',
        insert_line: 1,
        insert_text: line,
      };
      const outcome = await timed(store.insert(insert));
      proxy.setMode('pass');
      if (outcome.ok === undefined) {
        // What the model is told to do: look, and insert again only if the line is not there.
        unknown++;
        expect(outcome.message).toContain('The change may or may not have been saved');
        const content = await eventually(() => store.view(view('/memories/log.md')));
        if (!content.includes(`\t${line}\n`) && !content.endsWith(`\t${line}`)) await store.insert(insert);
      } else {
        expect(outcome.ok).toBe('The file /memories/log.md has been edited.');
      }
    }
    expect(reconnects).toBeGreaterThanOrEqual(100);
    const content = await store.view({ command: 'view', path: '/memories/log.md', view_range: [1, -1] });
    const lines = content
      .split('\n')
      .slice(1)
      .map((numbered) => numbered.slice(numbered.indexOf('\t') + 1));
    expect(lines[0]).toBe('# log');
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 100 }, (_, index) => `line ${index}`).sort());
    // Most replies were resent by ioredis and answered from the receipt, without bothering the model.
    expect(unknown).toBeLessThan(50);
    // History saw each insert once: a resent script answers from its receipt and records nothing.
    const history = store as MemoryStore & MemoryHistory;
    const versions = (await history.history({ path: '/memories/log.md', limit: 1_000 })).versions;
    expect(versions.map((version) => version.operation)).toEqual([
      ...Array.from({ length: 100 }, () => 'modified'),
      'created',
    ]);
    await expectHistoryMatches(history, new Map([['/memories/log.md', lines.join('\n')]]));
    await store.close();
    own.disconnect();
  }, 120_000);
});

describe('a silent server', () => {
  // A port that accepts connections and never answers (a wrong port, a stuck proxy): the command
  // fails at its deadline, and closing the store then resolves instead of waiting on QUIT forever
  // (which left `memdir view`, `serve` and `copy` hanging with no output).
  it('a command gets BACKEND (timeout) at its deadline, and close() resolves within a second or so', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.resume(); // read and drop what comes, so that the client's closing is seen
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const store = createRedisStore({
        url: `redis://127.0.0.1:${port}`,
        namespace: 'silent',
        timeoutMs: 1_000,
      });
      const outcome = await timed(store.view(view('/memories')));
      expect(outcome).toMatchObject({
        code: 'BACKEND',
        message: 'The memory store is unavailable: it did not answer within 1 second. Try again.',
      });
      const started = Date.now();
      await store.close();
      const closing = Date.now() - started;
      expect(closing).toBeGreaterThanOrEqual(CLOSE_WAIT_MS - 2);
      expect(closing).toBeLessThan(CLOSE_WAIT_MS + 1_000);
      // The store's sockets are gone: the server sees every connection closed.
      await eventually(async () => {
        const open = [...sockets].filter((socket) => !socket.destroyed);
        if (open.length > 0) throw new Error(`${open.length} connections still open`);
        return '';
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 30_000);
});

describe('a server of the tests\u2019 own', () => {
  let server: PrivateServer;
  let store: MemoryStore;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(() => server.close());
  afterEach(() => store.close());

  it('killed: BACKEND within 5 s; restarted (empty): the same store works again, and the logger says so', async () => {
    const logged: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const logger = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [
        level,
        (message: string, fields?: Record<string, unknown>) => logged.push([level, message, fields]),
      ]),
    );
    store = createRedisStore({ url: server.url, logger });
    await store.create(create('/memories/a.md'));
    await server.kill();
    const read = await timed(store.view(view('/memories/a.md')));
    const change = await timed(store.create(create('/memories/b.md')));
    expect(read).toMatchObject({
      code: 'BACKEND',
      message: expect.stringMatching(
        /^The memory store is unavailable: the connection to Redis was lost\. Try again\.$/,
      ),
    });
    expect(change).toMatchObject({
      code: 'BACKEND',
      message: expect.stringContaining('may or may not have been saved'),
    });
    for (const outcome of [read, change]) expect(outcome.ms).toBeLessThan(5_000 + DEADLINE_SLACK_MS);
    await server.restart();
    // Redis came back without its data (no persistence) and without the scripts: EVAL again.
    await eventually(() => store.create(create('/memories/c.md', 'back')));
    expect(await store.view(view('/memories'))).toContain('/memories/c.md');
    const messages = logged.map(([level, message]) => `${level} ${message}`);
    expect(messages).toContain('debug redis: server checked');
    expect(messages).toContain('warn redis: connection lost, reconnecting');
    expect(messages).toContain('info redis: connection regained');
    // Events and counts, never a path or content.
    expect(JSON.stringify(logged)).not.toMatch(/memories|a\.md|back/);
  }, 30_000);

  it('CLIENT PAUSE ALL: BACKEND within 5 s, then the same store works; CLIENT PAUSE WRITE still serves views', async () => {
    store = createRedisStore({ url: server.url, keyPrefix: uniquePrefix('p') });
    await store.create(create('/memories/a.md', 'paused'));
    const admin = newRedis(server.url);
    await admin.connect();
    await admin.call('CLIENT', 'PAUSE', '6000', 'ALL');
    const outcome = await timed(store.view(view('/memories/a.md')));
    expect(outcome).toMatchObject({ code: 'BACKEND' });
    expect(outcome.ms).toBeLessThan(5_000 + DEADLINE_SLACK_MS);
    await admin.call('CLIENT', 'UNPAUSE');
    expect(await eventually(() => store.view(view('/memories/a.md')))).toContain('paused');

    // A pause longer than the deadline (a shorter one is waited for).
    await admin.call('CLIENT', 'PAUSE', '6000', 'WRITE');
    // Read scripts carry flags=no-writes, so a write pause lets them through.
    expect(await timed(store.view(view('/memories/a.md')))).toMatchObject({
      ok: expect.stringContaining('paused'),
    });
    const write = await timed(store.create(create('/memories/b.md')));
    expect(write).toMatchObject({ code: 'BACKEND' });
    expect(write.ms).toBeLessThan(5_000 + DEADLINE_SLACK_MS);
    await admin.call('CLIENT', 'UNPAUSE');
    await eventually(() => store.create(create('/memories/c.md')));
    await admin.quit();
  }, 30_000);

  it('a server paused with SIGSTOP: BACKEND within 5 s, then the same store works again after SIGCONT', async () => {
    store = createRedisStore({ url: server.url, keyPrefix: uniquePrefix('s') });
    await store.create(create('/memories/a.md', 'stopped'));
    await server.pause();
    try {
      const outcome = await timed(store.create(create('/memories/b.md')));
      expect(outcome).toMatchObject({
        code: 'BACKEND',
        message: expect.stringContaining('may or may not have been saved'),
      });
      expect(outcome.ms).toBeLessThan(5_000 + DEADLINE_SLACK_MS);
    } finally {
      await server.resume();
    }
    expect(await eventually(() => store.view(view('/memories/a.md')))).toContain('stopped');
  }, 30_000);
});
