// The engine over driver contract v2: the gaps measured in wave 1, each with a test that failed
// then (issue 13) and passes now. Driver calls are counted by a recording wrapper.
import { describe, expect, it } from 'vitest';
import { refusePathConflict, wrapDriver } from '../src/driver/index.js';
import {
  createInMemoryDriver,
  createMemoryStore,
  isMemoryToolError,
  type MemoryDriver,
  type MemoryStore,
} from '../src/index.js';

interface Call {
  method: string;
  path: string;
  op?: string | undefined;
  limit?: number | undefined;
}

/** Forwards to `driver` and records every call (method, path, op id, describe's limit). */
function recording(driver: MemoryDriver, calls: Call[] = []): { driver: MemoryDriver; calls: Call[] } {
  const wrapped: MemoryDriver = {
    get capabilities() {
      return driver.capabilities;
    },
    namespace: (name) => recording(driver.namespace(name), calls).driver,
    read(path, options) {
      calls.push({ method: 'read', path });
      return driver.read(path, options);
    },
    write(path, content, options) {
      calls.push({ method: 'write', path, op: options.op });
      return driver.write(path, content, options);
    },
    list(dir, options) {
      calls.push({ method: 'list', path: dir });
      return driver.list(dir, options);
    },
    remove(path, options) {
      calls.push({ method: 'remove', path, op: options.op });
      return driver.remove(path, options);
    },
    move(from, to, options) {
      calls.push({ method: 'move', path: `${from} -> ${to}`, op: options.op });
      return driver.move(from, to, options);
    },
    close: () => driver.close(),
  };
  // The optional fast paths only where the driver has them, so the engine's fallback shows.
  const { stat, describe } = driver;
  if (stat) {
    wrapped.stat = (path, options) => {
      calls.push({ method: 'stat', path });
      return stat.call(driver, path, options);
    };
  }
  if (describe) {
    wrapped.describe = (path, options) => {
      calls.push({ method: 'describe', path, limit: options.limit });
      return describe.call(driver, path, options);
    };
  }
  return { driver: wrapped, calls };
}

/**
 * The same driver without its optional fast paths (`describe`, `stat`, `update`, `edit`): what the
 * engine falls back on. A proxy, since drivers are classes whose methods a spread would not copy.
 */
function withoutFastPaths(driver: MemoryDriver): MemoryDriver {
  const hidden = new Set<PropertyKey>(['describe', 'stat', 'update', 'edit']);
  return new Proxy(driver, {
    get(target, property) {
      if (hidden.has(property)) return undefined;
      if (property === 'namespace') return (name: string) => withoutFastPaths(target.namespace(name));
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    has(target, property) {
      return !hidden.has(property) && Reflect.has(target, property);
    },
  });
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isMemoryToolError(error)) return { code: error.code, message: error.message };
    throw new Error(`not a MemoryToolError: ${String(error)}`);
  }
  throw new Error('expected the command to fail');
}

async function seeded(store: MemoryStore): Promise<void> {
  await store.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta' });
  await store.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b' });
  await store.create({ command: 'create', path: '/memories/top.md', file_text: 'top' });
}

describe('driver calls per command (contract v2)', () => {
  it('with describe: a view of a file, a directory and a missing path is one call each', async () => {
    const { driver, calls } = recording(createInMemoryDriver());
    const store = createMemoryStore(driver);
    await seeded(store);
    for (const path of ['/memories/notes/a.md', '/memories/notes', '/memories', '/memories/missing']) {
      calls.length = 0;
      await store.view({ command: 'view', path }).catch(() => {});
      expect(calls.map((call) => call.method)).toEqual(['describe']);
    }
  });

  it('create, delete and rename are one call; str_replace and insert two (read, then compare-and-swap)', async () => {
    const { driver, calls } = recording(createInMemoryDriver());
    const store = createMemoryStore(driver);
    await seeded(store);
    const cases: Array<[() => Promise<string>, string[]]> = [
      [() => store.create({ command: 'create', path: '/memories/new.md', file_text: 'x' }), ['write']],
      [
        () => store.create({ command: 'create', path: '/memories/notes', file_text: 'x' }).catch(String),
        ['write'],
      ],
      [
        () => store.create({ command: 'create', path: '/memories/top.md/x', file_text: 'x' }).catch(String),
        ['write'],
      ],
      [
        () =>
          store.str_replace({
            command: 'str_replace',
            path: '/memories/notes/a.md',
            old_str: 'beta',
            new_str: 'b',
          }),
        ['read', 'write'],
      ],
      [
        () =>
          store.insert({ command: 'insert', path: '/memories/notes/a.md', insert_line: 0, insert_text: 'x' }),
        ['read', 'write'],
      ],
      [
        () =>
          store.rename({ command: 'rename', old_path: '/memories/new.md', new_path: '/memories/moved.md' }),
        ['move'],
      ],
      [
        () =>
          store
            .rename({ command: 'rename', old_path: '/memories/gone', new_path: '/memories/x' })
            .catch(String),
        ['move'],
      ],
      [() => store.delete({ command: 'delete', path: '/memories/moved.md' }), ['remove']],
      [() => store.delete({ command: 'delete', path: '/memories/moved.md' }).catch(String), ['remove']],
    ];
    for (const [run, expected] of cases) {
      calls.length = 0;
      await run();
      expect(calls.map((call) => call.method)).toEqual(expected);
    }
  });

  it('without describe: a directory view is read then list, a file or a missing path one read', async () => {
    const { driver, calls } = recording(withoutFastPaths(createInMemoryDriver()));
    const store = createMemoryStore(driver);
    await seeded(store);
    const expected: Array<[string, string[]]> = [
      ['/memories/notes/a.md', ['read']],
      ['/memories/missing', ['read']],
      ['/memories/notes', ['read', 'list']],
    ];
    for (const [path, methods] of expected) {
      calls.length = 0;
      await store.view({ command: 'view', path }).catch(() => {});
      expect(calls.map((call) => call.method)).toEqual(methods);
    }
    const fast = createMemoryStore(createInMemoryDriver());
    await seeded(fast);
    for (const path of ['/memories', '/memories/notes', '/memories/notes/a.md']) {
      expect(await store.view({ command: 'view', path })).toBe(await fast.view({ command: 'view', path }));
    }
  });
});

describe('listings are cut on the driver side', () => {
  it('describe is asked for no more entries than maxViewChars can show, and the notice counts them all', async () => {
    const { driver, calls } = recording(createInMemoryDriver());
    const store = createMemoryStore(driver, { maxViewChars: 200 });
    for (let index = 0; index < 300; index++) {
      await store.create({
        command: 'create',
        path: `/memories/d/f${String(index).padStart(3, '0')}`,
        file_text: '',
      });
    }
    calls.length = 0;
    const listing = await store.view({ command: 'view', path: '/memories/d' });
    // The shortest entry line under /memories/d is "0B\t/memories/d/x": 16 characters and a newline.
    expect(calls).toEqual([{ method: 'describe', path: 'd', limit: Math.floor(200 / 17) + 1 }]);
    expect(listing.split('\n').at(-1)).toBe(
      '[Listing truncated: 9 of 300 entries shown. View a subdirectory to see the rest.]',
    );
  });

  it('a driver that sends back only `limit` entries, out of order, gives the same listing as one that sends all', async () => {
    const full = createInMemoryDriver();
    const partial: MemoryDriver = {
      ...full,
      capabilities: full.capabilities,
      namespace: () => partial,
      async describe(path, options) {
        const node = await full.describe!(path, { ...options, limit: Number.MAX_SAFE_INTEGER });
        if (node?.kind !== 'directory') return node;
        return { ...node, entries: node.entries.slice(0, options.limit).reverse() };
      },
    };
    const names = ['b', 'a', 'Z', '\ue000', '\u{1f600}', 'c/x', 'c/y', 'c/.h', 'node_modules/q'];
    const reference = createMemoryStore(full, { maxViewChars: 60 });
    for (const name of names) {
      await reference.create({ command: 'create', path: `/memories/${name}`, file_text: 'x' });
    }
    const cut = createMemoryStore(partial, { maxViewChars: 60 });
    const all = createMemoryStore(full, { maxViewChars: 60 });
    expect(await cut.view({ command: 'view', path: '/memories' })).toBe(
      await all.view({ command: 'view', path: '/memories' }),
    );
  });
});

describe('refusals carry their path: the engine never probes ancestors', () => {
  it('a PATH_CONFLICT naming the ancestor gives the message without another call', async () => {
    const { driver, calls } = recording(createInMemoryDriver());
    const store = createMemoryStore(driver);
    await store.create({ command: 'create', path: '/memories/a', file_text: 'file' });
    calls.length = 0;
    expect(
      await failure(store.create({ command: 'create', path: '/memories/a/b/c/d', file_text: 'x' })),
    ).toEqual({
      code: 'PATH_CONFLICT',
      message: 'Cannot create /memories/a/b/c/d: /memories/a is a file',
    });
    expect(calls.map((call) => call.method)).toEqual(['write']);
  });

  it('a refusal without its path is a driver bug: BACKEND, and no probing', async () => {
    const { driver: base } = recording(createInMemoryDriver());
    const calls: string[] = [];
    const driver: MemoryDriver = wrapDriver(base, {
      capabilities: base.capabilities,
      namespace: () => driver,
      async stat(path) {
        calls.push(`stat ${path}`);
        return null;
      },
      async write() {
        calls.push('write');
        const error = refusePathConflict('x');
        Object.defineProperty(error, 'path', { value: undefined });
        throw error;
      },
    });
    const store = createMemoryStore(driver);
    expect(
      await failure(store.create({ command: 'create', path: '/memories/a/b/c', file_text: 'x' })),
    ).toEqual({
      code: 'BACKEND',
      message: 'The memory store is unavailable: the storage backend failed unexpectedly. Try again.',
    });
    expect(calls).toEqual(['write']);
  });
});

describe('capabilities are read from the driver', () => {
  it('maxPathBytes: a longer path is INVALID_PATH with the driver limit in the message, before any call', async () => {
    const { driver: inner, calls } = recording(createInMemoryDriver());
    const driver: MemoryDriver = wrapDriver(inner, {
      capabilities: { atomicRename: false, maxPathBytes: 40 },
      namespace: () => driver,
    });
    const store = createMemoryStore(driver);
    expect(store.capabilities).toEqual({ atomicRename: false, maxPathBytes: 40 });
    const path = `/memories/${'n'.repeat(31)}`;
    expect(await failure(store.create({ command: 'create', path, file_text: 'x' }))).toEqual({
      code: 'INVALID_PATH',
      message: `Path ${path} is 41 bytes long; a path may have at most 40 bytes`,
    });
    expect(calls).toEqual([]);
    await store.create({ command: 'create', path: `/memories/${'n'.repeat(30)}`, file_text: 'x' });
  });

  it('maxFileBytes: a store option above what the backend holds is refused when the store is made', () => {
    const inner = createInMemoryDriver();
    const driver: MemoryDriver = wrapDriver(inner, {
      capabilities: { atomicRename: true, maxFileBytes: 1000 },
      namespace: () => driver,
    });
    expect(() => createMemoryStore(driver, { maxFileBytes: 1001 })).toThrow(
      'Invalid @memdir/core option maxFileBytes: 1001 is more than this backend holds in one file (1000 bytes)',
    );
    expect(() => createMemoryStore(driver, { maxFileBytes: 1000 })).not.toThrow();
  });
});

describe('operation ids', () => {
  it('every change call carries one id per command, the same across its compare-and-swap retries', async () => {
    const inner = createInMemoryDriver();
    let conflicts = 2;
    const { driver, calls } = recording(
      wrapDriver(inner, {
        capabilities: inner.capabilities,
        namespace: () => driver,
        async write(path, content, options) {
          // Lose the first two compare-and-swaps of an edit, as a busy file would.
          if (options.expect && 'version' in options.expect && conflicts-- > 0) {
            await inner.write(
              path,
              await inner.read(path).then((n) => (n?.kind === 'file' ? n.content : '')),
              {
                op: 'other',
              },
            );
          }
          return inner.write(path, content, options);
        },
      }),
    );
    const store = createMemoryStore(driver);
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'start' });
    await store.insert({ command: 'insert', path: '/memories/log.md', insert_line: 1, insert_text: 'one' });
    await store.delete({ command: 'delete', path: '/memories/log.md' });
    const changes = calls.filter((call) => call.op !== undefined);
    expect(changes.map((call) => call.method)).toEqual(['write', 'write', 'write', 'write', 'remove']);
    const [create, ...rest] = changes;
    const insertOps = new Set(rest.slice(0, 3).map((call) => call.op));
    expect(insertOps.size).toBe(1);
    expect(new Set([create!.op, [...insertOps][0], rest[3]!.op]).size).toBe(3);
    for (const call of changes)
      expect(call.op).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('the engine deadline (timeoutMs)', () => {
  function silent(): { driver: MemoryDriver; signals: AbortSignal[] } {
    const inner = createInMemoryDriver();
    const signals: AbortSignal[] = [];
    const hang = (signal: AbortSignal | undefined) => {
      if (signal) signals.push(signal);
      return new Promise<never>(() => {});
    };
    const driver: MemoryDriver = wrapDriver(inner, {
      capabilities: inner.capabilities,
      namespace: () => driver,
      describe: (_path, options) => hang(options.signal),
      write: (_path, _content, options) => hang(options.signal),
      remove: (_path, options) => hang(options.signal),
    });
    return { driver, signals };
  }

  it('a read that never answers fails with BACKEND once the deadline passes, and the driver is told', async () => {
    const { driver, signals } = silent();
    const store = createMemoryStore(driver, { timeoutMs: 150 });
    const started = Date.now();
    expect(await failure(store.view({ command: 'view', path: '/memories' }))).toEqual({
      code: 'BACKEND',
      message: 'The memory store is unavailable: it did not answer within 0.15 seconds. Try again.',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
  });

  it('a change that never answers says it may or may not have been saved', async () => {
    const { driver } = silent();
    const store = createMemoryStore(driver, { timeoutMs: 1000 });
    const message =
      'The memory store is unavailable: it did not answer within 1 second. The change may or may not have been saved: view the path before you try again.';
    expect(await failure(store.create({ command: 'create', path: '/memories/a', file_text: 'x' }))).toEqual({
      code: 'BACKEND',
      message,
    });
    expect(await failure(store.delete({ command: 'delete', path: '/memories/a' }))).toEqual({
      code: 'BACKEND',
      message,
    });
  });

  it('the default deadline is 5 seconds', async () => {
    const { driver } = silent();
    const store = createMemoryStore(driver);
    const started = Date.now();
    const error = await failure(store.view({ command: 'view', path: '/memories' }));
    expect(error.message).toBe(
      'The memory store is unavailable: it did not answer within 5 seconds. Try again.',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
  }, 15_000);
});

describe('hostile sizes', () => {
  it('a path of 140 MiB of slashes is refused at once, without echoing it', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    const path = `/memories${'/'.repeat(140 * 1024 * 1024)}`;
    const error = await failure(store.view({ command: 'view', path }));
    expect(error.code).toBe('INVALID_PATH');
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toContain(
      `is ${path.length} characters long; a path may have at most 4096 characters`,
    );
  });

  it('str_replace of `a` in a 1 MiB file of `a` answers with the first 100 lines and the count', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a'.repeat(1024 * 1024) });
    const error = await failure(
      store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'b' }),
    );
    expect(error).toEqual({
      code: 'MULTIPLE_MATCHES',
      message: `No replacement was performed. Multiple occurrences of old_str \`a\` in lines: ${Array(100).fill(1).join(', ')}, ... (1048576 occurrences). Please ensure it is unique`,
    });
  });

  it('occurrences of a long self-overlapping old_str are counted in linear time', async () => {
    // With repeated indexOf this is 2^19 searches of 2^19 characters each: hours, not milliseconds.
    const store = createMemoryStore(createInMemoryDriver());
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a'.repeat(2 ** 20) });
    const error = await failure(
      store.str_replace({
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: 'a'.repeat(2 ** 19),
        new_str: '',
      }),
    );
    expect(error.code).toBe('MULTIPLE_MATCHES');
    expect(error.message.endsWith(`, ... (${2 ** 19 + 1} occurrences). Please ensure it is unique`)).toBe(
      true,
    );
  });

  it('an unknown command with a 10 MB name is quoted in at most 100 characters', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    const error = await failure(store.execute({ command: 'x'.repeat(10_000_000) }));
    expect(error).toEqual({
      code: 'INVALID_INPUT',
      message: `Unknown memory command \`${'x'.repeat(100)}\`... (10000000 characters). Expected one of: view, create, str_replace, insert, delete, rename.`,
    });
  });

  it('a view_range nested 5,000 deep is INVALID_INPUT, not a RangeError', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    let range: unknown = [1, 2];
    for (let depth = 0; depth < 5000; depth++) range = [range];
    const error = await failure(store.execute({ command: 'view', path: '/memories', view_range: range }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe(
      'Invalid `view_range` parameter: [[...]]. It should be a list of two integers [start, end].',
    );
  });

  it('a lone surrogate in text is INVALID_INPUT and in a path INVALID_PATH; nothing is written', async () => {
    const driver = createInMemoryDriver();
    const store = createMemoryStore(driver);
    for (const input of [
      { command: 'create', path: '/memories/a', file_text: 'x\ud83d' },
      { command: 'insert', path: '/memories/a', insert_line: 0, insert_text: '\ude00' },
      { command: 'str_replace', path: '/memories/a', old_str: '\ud83d', new_str: 'x' },
      { command: 'str_replace', path: '/memories/a', old_str: 'x', new_str: 'y\udfff' },
    ]) {
      expect((await failure(store.execute(input))).code).toBe('INVALID_INPUT');
    }
    expect(
      (await failure(store.execute({ command: 'create', path: '/memories/\ud83d', file_text: 'x' }))).code,
    ).toBe('INVALID_PATH');
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
    await store.create({ command: 'create', path: '/memories/\ufffd', file_text: '\u{1f600}' });
    expect(await store.view({ command: 'view', path: '/memories/\ufffd' })).toBe(
      "Here's the content of /memories/\ufffd with line numbers:\n     1\t\u{1f600}",
    );
  });

  it('an input whose fields cannot be read is INVALID_INPUT, never a raw error', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('getter exploded');
        },
      },
    );
    expect(await failure(store.execute(hostile))).toEqual({
      code: 'INVALID_INPUT',
      message: 'Invalid memory tool input: it could not be read (a field could not be accessed).',
    });
  });
});
