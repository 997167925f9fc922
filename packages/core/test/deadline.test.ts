// One deadline per command (core v3): every driver call of a command carries the same absolute
// deadline, `timeoutMs` after the command started, so a command of several calls (read, then
// compare-and-swap) fails at the deadline, not at a multiple of it; BACKEND errors say why.
import { describe, expect, it } from 'vitest';
import { checkTime, deadlineOf, sleep, timeLeft, wrapDriver } from '../src/driver/index.js';
import {
  createInMemoryDriver,
  createMemoryStore,
  type DriverCallOptions,
  type DriverPath,
  type MemoryDriver,
} from '../src/index.js';

function withoutEdit(driver: MemoryDriver, overrides: Partial<MemoryDriver>): MemoryDriver {
  return wrapDriver(driver, { edit: undefined, update: undefined, ...overrides });
}

describe('the command deadline', () => {
  it('every call of one command carries the same deadline, timeoutMs after the command started', async () => {
    const inner = createInMemoryDriver();
    const seen: Array<[string, number | undefined]> = [];
    const driver = withoutEdit(inner, {
      read: (path, options) => {
        seen.push(['read', options?.deadline]);
        return inner.read(path, options);
      },
      write: (path, content, options) => {
        seen.push(['write', options.deadline]);
        return inner.write(path, content, options);
      },
    });
    const store = createMemoryStore(driver, { timeoutMs: 1234 });
    const started = Date.now();
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    seen.length = 0;
    const editStarted = Date.now();
    await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'b' });
    const finished = Date.now();
    expect(seen.map(([method]) => method)).toEqual(['read', 'write']);
    const [[, first], [, second]] = seen as [[string, number], [string, number]];
    expect(first).toBe(second);
    expect(first).toBeGreaterThanOrEqual(editStarted + 1234);
    expect(first).toBeLessThanOrEqual(finished + 1234);
    expect(started).toBeLessThanOrEqual(editStarted);
  });

  it('a slow read leaves the write only what is left: the command fails at timeoutMs, not later', async () => {
    const inner = createInMemoryDriver();
    const store0 = createMemoryStore(inner);
    await store0.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    let writeLeft = -1;
    const driver = withoutEdit(inner, {
      read: async (path, options) => {
        await sleep(300);
        return inner.read(path, options);
      },
      write: (_path, _content, options) => {
        writeLeft = timeLeft(options);
        return new Promise<never>(() => {});
      },
    });
    const store = createMemoryStore(driver, { timeoutMs: 500 });
    const started = Date.now();
    await expect(
      store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'x' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'timeout',
      outcome: 'unknown',
      message:
        'The memory store is unavailable: it did not answer within 0.5 seconds. The change may or may not have been saved: view the path before you try again.',
    });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(500 + 250);
    expect(writeLeft).toBeGreaterThan(0);
    expect(writeLeft).toBeLessThanOrEqual(220);
  });

  it('a read that outlives the deadline is BACKEND timeout, not-applied, and its signal is aborted', async () => {
    const inner = createInMemoryDriver();
    let signal: AbortSignal | undefined;
    const driver = wrapDriver(inner, {
      describe: (_path, options) => {
        signal = options.signal;
        return new Promise<never>(() => {});
      },
    });
    const store = createMemoryStore(driver, { timeoutMs: 100 });
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'timeout',
      outcome: 'not-applied',
      message: 'The memory store is unavailable: it did not answer within 0.1 seconds. Try again.',
    });
    expect(signal?.aborted).toBe(true);
  });

  it('a timeoutMs of 12 s waits for a slow but live driver', async () => {
    const inner = createInMemoryDriver();
    const driver = wrapDriver(inner, {
      describe: async (path, options) => {
        await sleep(5_300);
        return inner.describe!(path, options);
      },
    });
    const store = createMemoryStore(driver, { timeoutMs: 12_000 });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  }, 15_000);

  it('a driver that throws something that is not a MemoryToolError is BACKEND unexpected; for a change the outcome is unknown', async () => {
    const inner = createInMemoryDriver();
    const driver = wrapDriver(inner, {
      describe: async () => {
        throw new Error('secret host path /home/x');
      },
      write: async () => {
        throw new Error('boom');
      },
    });
    const store = createMemoryStore(driver);
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'unexpected',
      outcome: 'not-applied',
      message: 'The memory store is unavailable: the storage backend failed unexpectedly. Try again.',
    });
    await expect(
      store.create({ command: 'create', path: '/memories/a', file_text: 'a' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'unexpected',
      outcome: 'unknown',
    });
  });
});

describe('waiting behind writers that make progress (queueTimeoutMs)', () => {
  /**
   * A store whose `view` waits in a queue: its driver reports progress every `everyMs` for `reports`
   * times (forever when Infinity), then answers after `answerAfterMs` from the start (never when
   * Infinity).
   */
  function queued(
    store: { timeoutMs: number; queueTimeoutMs?: number },
    queue: { everyMs: number; reports: number; answerAfterMs: number },
  ) {
    const inner = createInMemoryDriver();
    const seen: { deadlines: number[]; signal?: AbortSignal | undefined } = { deadlines: [] };
    const driver = wrapDriver(inner, {
      describe: (path, options) => {
        seen.signal = options.signal;
        seen.deadlines.push(options.deadline!);
        let reported = 0;
        const timer = setInterval(() => {
          if (reported++ >= queue.reports) return clearInterval(timer);
          options.progressed?.();
          seen.deadlines.push(options.deadline!);
        }, queue.everyMs);
        if (queue.answerAfterMs === Number.POSITIVE_INFINITY) return new Promise<never>(() => {});
        return sleep(queue.answerAfterMs).then(() => {
          clearInterval(timer);
          return inner.describe!(path, options);
        });
      },
    });
    return { store: createMemoryStore(driver, store), seen };
  }

  const EMPTY =
    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories";

  it('a call that reports progress keeps going past timeoutMs and succeeds; its deadline follows', async () => {
    const { store, seen } = queued(
      { timeoutMs: 200, queueTimeoutMs: 5_000 },
      { everyMs: 50, reports: Number.POSITIVE_INFINITY, answerAfterMs: 700 },
    );
    const started = Date.now();
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(EMPTY);
    expect(Date.now() - started).toBeGreaterThanOrEqual(690);
    // The options object the driver holds carries the moved deadline, never an earlier one.
    const last = seen.deadlines.at(-1)!;
    expect(last).toBeGreaterThan(started + 700);
    expect(seen.deadlines).toEqual([...seen.deadlines].sort((a, b) => a - b));
    expect(seen.signal?.aborted).toBe(false);
  });

  it('a call that reports none fails at timeoutMs with the usual message', async () => {
    const { store } = queued(
      { timeoutMs: 200, queueTimeoutMs: 5_000 },
      { everyMs: 50, reports: 0, answerAfterMs: Number.POSITIVE_INFINITY },
    );
    const started = Date.now();
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'timeout',
      outcome: 'not-applied',
      message: 'The memory store is unavailable: it did not answer within 0.2 seconds. Try again.',
    });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(200 + 250);
  });

  it('progress never carries a call past queueTimeoutMs; the watchdog fails it there and aborts its signal', async () => {
    const { store, seen } = queued(
      { timeoutMs: 200, queueTimeoutMs: 600 },
      { everyMs: 50, reports: Number.POSITIVE_INFINITY, answerAfterMs: Number.POSITIVE_INFINITY },
    );
    const started = Date.now();
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'timeout',
      outcome: 'not-applied',
      message: 'The memory store is unavailable: it did not answer within 0.6 seconds. Try again.',
    });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(600 + 250);
    expect(seen.signal?.aborted).toBe(true);
    expect(Math.max(...seen.deadlines)).toBeLessThanOrEqual(started + 600 + 5);
  });

  it('a call that stops reporting progress fails timeoutMs after the last report', async () => {
    const { store, seen } = queued(
      { timeoutMs: 300, queueTimeoutMs: 10_000 },
      { everyMs: 100, reports: 4, answerAfterMs: Number.POSITIVE_INFINITY },
    );
    const started = Date.now();
    const failed = await store.view({ command: 'view', path: '/memories' }).catch((error: unknown) => error);
    const took = Date.now() - started;
    expect(failed).toMatchObject({ code: 'BACKEND', reason: 'timeout', outcome: 'not-applied' });
    // Four reports, the last about 400 ms in: the call fails about 300 ms after it.
    const lastDeadline = Math.max(...seen.deadlines);
    expect(lastDeadline - started).toBeGreaterThanOrEqual(690);
    expect(Date.now()).toBeGreaterThanOrEqual(lastDeadline - 5);
    expect(took).toBeGreaterThanOrEqual(690);
    expect(took).toBeLessThan(700 + 250);
    expect(seen.signal?.aborted).toBe(true);
  });

  it('a change that waited past timeoutMs and then ran out says how long it was given', async () => {
    const inner = createInMemoryDriver();
    const driver = wrapDriver(inner, {
      edit: (_path, _edit, options) => {
        const timer = setInterval(() => options.progressed?.(), 50);
        setTimeout(() => clearInterval(timer), 1_000);
        return new Promise<never>(() => {});
      },
    });
    const store = createMemoryStore(driver, { timeoutMs: 200, queueTimeoutMs: 1_500 });
    await inner.write('a.md' as DriverPath, 'a', { op: 'seed' });
    // Progress until 1 s in, then none: the change fails about 1.2 s after it started.
    await expect(
      store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'b' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'timeout',
      outcome: 'unknown',
      message: expect.stringMatching(
        /^The memory store is unavailable: it did not answer within 1\.[12] seconds\. The change may or may not have been saved: view the path before you try again\.$/,
      ),
    });
  });

  it('queueTimeoutMs is at least timeoutMs: less is refused when the store is made; by default it grows with timeoutMs', () => {
    const driver = createInMemoryDriver();
    expect(() => createMemoryStore(driver, { timeoutMs: 10_000, queueTimeoutMs: 5_000 })).toThrow(
      new TypeError(
        'Invalid @memdir/core option queueTimeoutMs: 5000 is less than timeoutMs (10000): a command waiting behind other writers is given at least timeoutMs',
      ),
    );
    expect(() => createMemoryStore(driver, { queueTimeoutMs: 0 })).toThrow(
      'Invalid @memdir/core option queueTimeoutMs: expected a positive integer, got 0',
    );
    expect(() => createMemoryStore(driver, { timeoutMs: 120_000 })).not.toThrow();
    expect(() => createMemoryStore(driver, { timeoutMs: 5_000, queueTimeoutMs: 5_000 })).not.toThrow();
  });
});

describe('the deadline helpers of the kit', () => {
  it('deadlineOf and timeLeft use the call deadline, or 5 s for a driver called on its own', () => {
    const now = 1_000_000;
    expect(deadlineOf({ deadline: now + 700 }, now)).toBe(now + 700);
    expect(deadlineOf(undefined, now)).toBe(now + 5_000);
    expect(timeLeft({ deadline: now + 700 }, now)).toBe(700);
    expect(timeLeft({ deadline: now - 5 }, now)).toBe(0);
    expect(timeLeft({}, now)).toBe(5_000);
  });

  it('checkTime throws the timeout failure once the deadline passed or the signal aborted', () => {
    expect(() => checkTime({ deadline: Date.now() + 1_000 })).not.toThrow();
    for (const options of [
      { deadline: Date.now() - 1 },
      { signal: AbortSignal.abort() },
    ] as DriverCallOptions[]) {
      try {
        checkTime(options);
        throw new Error('expected checkTime to throw');
      } catch (error) {
        expect(error).toMatchObject({
          code: 'BACKEND',
          reason: 'timeout',
          outcome: 'not-applied',
          message: 'The memory store is unavailable: the command ran out of time. Try again.',
        });
      }
    }
  });

  it('sleep keeps the process alive: a command waiting out a backoff is finished, not dropped', async () => {
    // A process whose only work left is a command's wait (a retry's backoff, a lease wait) used to
    // exit there with the command half done (Node's exit code 13): the timer was unref'd.
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const waiting = sleep(200);
    expect(timers()).toBe(before + 1);
    await waiting;
  });

  it('sleep wakes early when its signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 30);
    await sleep(5_000, controller.signal);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
