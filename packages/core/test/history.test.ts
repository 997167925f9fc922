// The store's history API beyond what the conformance group checks on every store: the in-memory
// clock and retention by age, the operator's errors and their texts, the engine's gate (deadline,
// closed store), and asOf rendering like any view.
import { describe, expect, it } from 'vitest';
import { wrapDriver } from '../src/driver/index.js';
import {
  createInMemoryDriver,
  createInMemoryStore,
  createMemoryStore,
  type MemdirStore,
  type MemoryDriver,
  MemoryToolError,
} from '../src/index.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 11, 1);

/** An in-memory driver on a clock the test moves. */
function clocked(): { driver: MemoryDriver; clock: { now: number } } {
  const clock = { now: START };
  return { driver: createInMemoryDriver({ now: () => clock.now }), clock };
}

function create(store: MemdirStore, path: string, file_text: string) {
  return store.create({ command: 'create', path, file_text });
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryToolError);
    const { code, message } = error as MemoryToolError;
    return { code, message };
  }
  throw new Error('expected a rejection');
}

describe('history on the in-memory driver', () => {
  it("versions carry the driver's clock, and a change prunes its file's versions older than keepDays beyond keepVersions", async () => {
    const { driver, clock } = clocked();
    const store = createMemoryStore(driver, { history: { keepVersions: 2, keepDays: 10 } });
    for (let index = 0; index < 5; index++) await create(store, '/memories/f.md', `v${index}`);
    const before = await store.history();
    expect(before.versions).toHaveLength(5);
    expect(before.versions[0]!.createdAt).toBe('2026-12-01T00:00:00.000Z');
    clock.now += 11 * DAY;
    await create(store, '/memories/f.md', 'v5');
    // The five old ones but the newest two: at most PRUNE_PER_CHANGE (4) per change, here 4.
    expect((await store.history()).versions.map((version) => version.createdAt)).toEqual([
      '2026-12-12T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
    ]);
  });

  it('a history page is newest first and its cursor continues below it', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    for (let index = 0; index < 5; index++) await create(store, `/memories/${index}.md`, 'x');
    const first = await store.history({ limit: 3 });
    expect(first.versions.map((version) => version.path)).toEqual([
      '/memories/4.md',
      '/memories/3.md',
      '/memories/2.md',
    ]);
    const second = await store.history({ limit: 3, cursor: first.next! });
    expect(second).toEqual({
      versions: [
        expect.objectContaining({ path: '/memories/1.md' }),
        expect.objectContaining({ path: '/memories/0.md' }),
      ],
      next: null,
    });
  });

  it('a restore records its actor and tool_use id, or the store actor', async () => {
    const store = createMemoryStore(createInMemoryDriver(), { actor: { type: 'service', id: 'app' } });
    await create(store, '/memories/a.md', 'a');
    const [created] = (await store.history()).versions;
    expect(
      await store.restore(created!.id, { actor: { type: 'user', id: 'ops' }, toolUseId: 'ticket-9' }),
    ).toMatchObject({
      actor: { type: 'user', id: 'ops' },
      toolUseId: 'ticket-9',
      command: 'restore',
    });
    expect((await store.restore(created!.id)).actor).toEqual({ type: 'service', id: 'app' });
  });

  it('a namespaced store sees only its own versions', async () => {
    const driver = createInMemoryDriver();
    const a = createMemoryStore(driver, { namespace: 'a' });
    const b = createMemoryStore(driver, { namespace: 'b' });
    await create(a, '/memories/x.md', 'a');
    expect((await b.history()).versions).toEqual([]);
    const [version] = (await a.history()).versions;
    await expect(b.version(version!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('asOf', () => {
  it('renders like any view: truncation, view_range, hidden names; its close leaves the store open', async () => {
    const store = createMemoryStore(createInMemoryDriver(), { maxViewChars: 40 });
    await create(
      store,
      '/memories/long.md',
      Array.from({ length: 20 }, (_, index) => `line ${index}`).join('\n'),
    );
    await create(store, '/memories/.hidden/h.md', 'h');
    const [last] = (await store.history()).versions;
    const past = await store.asOf(last!.id);
    expect(await past.view({ command: 'view', path: '/memories/long.md', view_range: [2, 3] })).toBe(
      "Here's the content of /memories/long.md with line numbers:\n     2\tline 1\n     3\tline 2",
    );
    const truncated = await past.view({ command: 'view', path: '/memories/long.md' });
    expect(truncated).toBe(
      "Here's the content of /memories/long.md with line numbers:\n     1\tline 0\n     2\tline 1\n[Output truncated: showing lines 1-2 of 20. Use view_range to see the rest.]",
    );
    expect(truncated).toBe(await store.view({ command: 'view', path: '/memories/long.md' }));
    expect(await past.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n149B\t/memories\n149B\t/memories/long.md",
    );
    expect(await past.view({ command: 'view', path: '/memories/.hidden/h.md' })).toBe(
      "Here's the content of /memories/.hidden/h.md with line numbers:\n     1\th",
    );
    await past.close();
    expect(await store.view({ command: 'view', path: '/memories/.hidden/h.md' })).toContain('1\th');
  });

  it('gives the records of then: the ids, hashes, sizes, versions and times the files had', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    const a = await store.records.create('/memories/notes/a.md', 'one');
    const b = await store.records.create('/memories/b.md', 'bee');
    const renamed = await store.records.update(a.id, { path: '/memories/c.md', content: 'two!' });
    await store.records.remove(b.id);
    await store.records.create('/memories/b.md', 'new');
    const past = await store.asOf(b.versionId!);
    const page = await past.records.list({ limit: 1 });
    expect(page.items).toEqual([
      {
        kind: 'file',
        id: b.id,
        path: '/memories/b.md',
        sha256: b.sha256,
        size: 3,
        createdAt: b.createdAt,
        changedAt: b.changedAt,
        versionId: b.versionId,
      },
    ]);
    const rest = await past.records.list({ cursor: page.next!, limit: 10 });
    expect(rest).toEqual({
      items: [expect.objectContaining({ id: a.id, path: '/memories/notes/a.md', size: 3 })],
      next: null,
    });
    expect(await past.records.list({ depth: 1 })).toMatchObject({
      items: [
        { kind: 'file', id: b.id },
        { kind: 'folder', path: '/memories/notes' },
      ],
    });
    expect(await past.records.locate(a.id, { content: true })).toMatchObject({
      content: 'one',
      versionId: a.versionId,
    });
    expect(await past.records.get('/memories/c.md')).toBeNull();
    const now = await store.asOf(Date.now());
    expect(
      (await now.records.list()).items.map((item) => item.kind === 'file' && [item.path, item.id]),
    ).toEqual([
      ['/memories/b.md', expect.not.stringMatching(b.id)],
      ['/memories/c.md', a.id],
    ]);
    expect(await now.records.get('/memories/c.md', { content: true })).toMatchObject({
      content: 'two!',
      versionId: renamed.record.versionId,
      createdAt: a.createdAt,
    });
  });

  it('a time in the future shows the present; a bad point is INVALID_INPUT', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    await create(store, '/memories/a.md', 'a');
    const future = await store.asOf(Date.now() + DAY);
    expect(await future.view({ command: 'view', path: '/memories/a.md' })).toContain('1\ta');
    expect(await rejection(store.asOf('yesterday'))).toEqual({
      code: 'INVALID_INPUT',
      message: 'asOf must be a Date, ms since the epoch or an ISO 8601 time, got "yesterday"',
    });
  });
});

describe("the operator's errors", () => {
  it('UNSUPPORTED without the capability or with history: false, saying which', async () => {
    const plain = createMemoryStore(
      wrapDriver(createInMemoryDriver(), { capabilities: { atomicRename: true } }),
    );
    expect(await rejection(plain.history())).toEqual({
      code: 'UNSUPPORTED',
      message: "No history: this store's driver keeps no history (capabilities.history is not set).",
    });
    const off = createMemoryStore(createInMemoryDriver(), { history: false });
    for (const call of [
      off.history(),
      off.version('memver_0000000000000001'),
      off.asOf(0),
      off.redact('memver_1'),
    ]) {
      expect(await rejection(call)).toEqual({
        code: 'UNSUPPORTED',
        message: 'No history: history is off for this store (history: false).',
      });
    }
  });

  it('bad arguments are INVALID_INPUT with the rule, and change nothing', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    await create(store, '/memories/a.md', 'a');
    const cases: Array<[Promise<unknown>, string]> = [
      [store.history({ limit: 1001 }), 'limit must be an integer from 1 to 1000, got 1001'],
      [
        store.history({ since: 'soon' }),
        'since must be a Date, ms since the epoch or an ISO 8601 time, got "soon"',
      ],
      [
        store.history({ operations: ['edited' as never] }),
        'operations must be a list of created, modified, renamed, deleted, restored, got "[\\"edited\\"]"',
      ],
      [store.history({ fileId: '' }), 'fileId must be a string of 1 to 256 characters, got ""'],
      [store.version('abc'), 'the version id must be a version id (memver_...), got "abc"'],
      [
        store.restore('memver_0000000000000001', { expectSha256: 'ABC' }),
        'expectSha256 must be a SHA-256 in 64 lowercase hex digits, or null, got "ABC"',
      ],
    ];
    for (const [call, message] of cases)
      expect(await rejection(call)).toEqual({ code: 'INVALID_INPUT', message });
    expect((await store.history()).versions).toHaveLength(1);
  });

  it('refused restores say why in plain words', async () => {
    const driver = createInMemoryDriver();
    const store = createMemoryStore(driver, { quota: { maxBytes: 105 } });
    await create(store, '/memories/big.md', 'b'.repeat(100));
    await create(store, '/memories/big.md', 'small');
    await create(store, '/memories/d/x.md', 'x');
    await store.delete({ command: 'delete', path: '/memories/d/x.md' });
    const [deletion, , small, big] = (await store.history()).versions;
    const bigId = big!.id;
    expect(await rejection(store.restore(deletion!.id))).toEqual({
      code: 'NOT_FOUND',
      message: `Version ${deletion!.id} has no content to restore: it records a deletion.`,
    });
    expect(await rejection(store.restore('memver_0000000000099999'))).toEqual({
      code: 'NOT_FOUND',
      message: 'Version memver_0000000000099999 does not exist in this store (or was pruned).',
    });
    expect(await rejection(store.restore(bigId, { expectSha256: '0'.repeat(64) }))).toEqual({
      code: 'CONFLICT',
      message: `Cannot restore ${bigId} to /memories/big.md: the content there does not have the SHA-256 ${'0'.repeat(64)}. Nothing was restored.`,
    });
    expect(await rejection(store.restore(bigId, { expectSha256: null }))).toEqual({
      code: 'CONFLICT',
      message: `Cannot restore ${bigId} to /memories/big.md: a file is there, and expectSha256 was null. Nothing was restored.`,
    });
    expect(await rejection(store.restore(bigId, { path: '/memories/big.md/in' }))).toEqual({
      code: 'PATH_CONFLICT',
      message: `Cannot restore ${bigId} to /memories/big.md/in: /memories/big.md is a file. Nothing was restored.`,
    });
    await create(store, '/memories/d/y.md', 'y');
    expect(await rejection(store.restore(small!.id, { path: '/memories/d' }))).toEqual({
      code: 'PATH_CONFLICT',
      message: `Cannot restore ${small!.id} to /memories/d: it is a directory. Nothing was restored.`,
    });
    expect(await rejection(store.restore(small!.id, { path: '/memories' }))).toEqual({
      code: 'PATH_CONFLICT',
      message: 'Cannot restore to /memories: it is a directory.',
    });
    const tight = createMemoryStore(driver, { maxFileBytes: 50 });
    expect(await rejection(tight.restore(bigId, { path: '/memories/copy.md' }))).toEqual({
      code: 'TOO_LARGE',
      message: `Cannot restore ${bigId} to /memories/copy.md: its content is over this store's limit of 50 bytes per file. Nothing was restored.`,
    });
    expect(await rejection(store.restore(bigId, { path: '/memories/copy.md' }))).toEqual({
      code: 'QUOTA_EXCEEDED',
      message:
        'The memory directory is full: saving /memories/copy.md would use 106 of 105 bytes. Delete or shorten files in /memories first.',
    });
  });

  it('each call runs under the store deadline, and not once the store is closed', async () => {
    const inner = createInMemoryDriver();
    const stalled = wrapDriver(inner, { listVersions: () => new Promise(() => {}) });
    const store = createMemoryStore(stalled, { timeoutMs: 100 });
    const started = Date.now();
    expect(await rejection(store.history())).toEqual({
      code: 'BACKEND',
      message: 'The memory store is unavailable: it did not answer within 0.1 seconds. Try again.',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    await store.close();
    expect(await rejection(store.version('memver_0000000000000001'))).toEqual({
      code: 'BACKEND',
      message: 'The memory store is closed.',
    });
  });
});

describe('actors and tool use ids (issue 34: what an operator later reads in a terminal or a page)', () => {
  it('a control character (C0, C1, DEL, bidirectional) in an actor id or a tool use id is refused, and nothing is written', async () => {
    const store = createInMemoryStore();
    const hostile = ['\u001b]0;pwned\u0007', 'a\u009bb', 'a\u007fb', 'left\u202eright', 'x\ny'];
    for (const id of hostile) {
      await expect(
        store.create(
          { command: 'create', path: '/memories/a.md', file_text: 'x' },
          { actor: { type: 'session', id } },
        ),
      ).rejects.toThrow(/without control characters/);
      await expect(
        store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' }, { toolUseId: id }),
      ).rejects.toThrow(/without control characters/);
      expect(() => createInMemoryStore({ actor: { type: 'user', id } })).toThrow(
        /without control characters/,
      );
    }
    expect((await store.history()).versions).toEqual([]);
    await store.create(
      { command: 'create', path: '/memories/a.md', file_text: 'x' },
      { toolUseId: 'toolu_01 é ✓' },
    );
    expect((await store.history()).versions[0]?.toolUseId).toBe('toolu_01 é ✓');
  });
});
