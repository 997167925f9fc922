// The suite adapts to what a driver declares, read from the driver itself: here an in-memory
// driver that says what the S3 store will (atomicRename: false, a maxPathBytes below 1024 that
// shrinks under a namespace, as a key prefix grows), records operation ids (replaySafe: true) and
// has an `update` fast path, so the driver group's replay and update checks run. Its `check` hook
// verifies an invariant of its own after each test: every driver the suite opened was closed.

import { createInMemoryDriver, type MemoryDriver } from '@memdir/core';
import { isRefusal, wrapDriver } from '@memdir/core/driver';
import { describe, expect, it } from 'vitest';
import { describeMemoryStore } from '../src/index.js';

/** The limit of the driver without a namespace; each namespace costs its name and a slash. */
const MAX_PATH_BYTES = 330;

interface Backend {
  driver: MemoryDriver;
  /** Outcomes of the change calls that changed something, by operation id. */
  outcomes: Map<string, unknown>;
  /** Drivers handed out and not closed yet. */
  open: number;
}

/**
 * Over `inner`: declares the capabilities above, answers a change call whose operation id it has
 * seen with the first outcome, and edits in one step with `update` (read, then compare-and-swap).
 */
function declaring(inner: MemoryDriver, backend: Backend, maxPathBytes: number): MemoryDriver {
  async function once<T>(op: string, run: () => Promise<T>): Promise<T> {
    if (backend.outcomes.has(op)) return backend.outcomes.get(op) as T;
    const outcome = await run();
    backend.outcomes.set(op, outcome);
    return outcome;
  }
  return {
    capabilities: { atomicRename: false, maxPathBytes, replaySafe: true },
    namespace: (name) => declaring(inner.namespace(name), backend, maxPathBytes - name.length - 1),
    read: (path, options) => inner.read(path, options),
    stat: (path, options) => inner.stat!(path, options),
    describe: (path, options) => inner.describe!(path, options),
    write: (path, content, options) => once(options.op, () => inner.write(path, content, options)),
    update: (path, edit, options) =>
      once(options.op, async () => {
        for (;;) {
          const node = await inner.read(path);
          if (node === null || node.kind === 'directory') return node?.kind ?? null;
          try {
            await inner.write(path, edit(node.content), { ...options, expect: { version: node.version } });
            return 'file' as const;
          } catch (error) {
            if (!isRefusal(error, 'CONFLICT')) throw error;
          }
        }
      }),
    list: (dir, options) => inner.list(dir, options),
    remove: (path, options) => once(options.op, () => inner.remove(path, options)),
    move: (from, to, options) => once(options.op, () => inner.move(from, to, options)),
    close: () => inner.close(),
  };
}

const backends = new Map<string, Backend>();
/** What the suite called, in order: `check NAME` and `destroy NAME`. */
const calls: string[] = [];

describeMemoryStore({
  name: 'in-memory, declaring S3-like capabilities',
  propertyRuns: 10,
  createDriver(name) {
    let backend = backends.get(name);
    if (!backend) {
      backend = { driver: createInMemoryDriver(), outcomes: new Map(), open: 0 };
      backends.set(name, backend);
    }
    backend.open++;
    const driver = declaring(backend.driver, backend, MAX_PATH_BYTES);
    const owner = backend;
    let closed = false;
    return wrapDriver(driver, {
      async close() {
        if (!closed) owner.open--;
        closed = true;
      },
    });
  },
  check(name) {
    calls.push(`check ${name}`);
    const backend = backends.get(name);
    if (backend && backend.open !== 0) {
      throw new Error(`${backend.open} driver(s) of backend ${name} still open after the test`);
    }
  },
  destroy(name) {
    calls.push(`destroy ${name}`);
    backends.delete(name);
  },
});

describe('the check hook', () => {
  it('ran after every test, once per backend the test used, and before that backend was destroyed', () => {
    const tested = calls.filter((call) => !call.endsWith('_probe'));
    const checked = tested.filter((call) => call.startsWith('check '));
    expect(checked.length).toBeGreaterThan(500);
    for (const [index, call] of tested.entries()) {
      if (!call.startsWith('destroy ')) continue;
      const name = call.slice('destroy '.length);
      expect(tested.slice(0, index), `${name} was destroyed before it was checked`).toContain(
        `check ${name}`,
      );
    }
    // The probe backends the suite opens to read capabilities are destroyed too, and not checked.
    expect(calls.filter((call) => call.endsWith('_probe'))).toEqual([
      expect.stringMatching(/^destroy /),
      expect.stringMatching(/^destroy /),
    ]);
  });
});
