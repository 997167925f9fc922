// The driver kit's pure helpers (core v3): what adapters used to write each on their own.
import { describe, expect, it } from 'vitest';
import {
  appendFileVersion,
  applyEdit,
  checkImportedVersions,
  driverLog,
  EditQueue,
  judgeQuota,
  MAX_VERSION_SEQUENCE,
  newFileId,
  nextVersionSequence,
  optionError,
  positiveInteger,
  prunable,
  Receipts,
  sequenceVersionId,
  sha256Hex,
  splitStoreOptions,
  versionPage,
  versionSequence,
} from '../src/driver/index.js';
import { type DriverPath, type DriverVersion, MemoryToolError } from '../src/index.js';

const DAY = 86_400_000;

describe('applyEdit: the reference semantics of str_replace and insert', () => {
  it('str_replace gives the snippet of lines k-2 to k+2 of the new content', () => {
    const content = 'l1\nl2\nl3\nl4\nl5\nl6';
    expect(applyEdit(content, { kind: 'str_replace', oldStr: 'l4', newStr: 'four' }, 100)).toEqual({
      outcome: { outcome: 'edited', firstLine: 2, lines: ['l2', 'l3', 'four', 'l5', 'l6'] },
      content: 'l1\nl2\nl3\nfour\nl5\nl6',
    });
  });

  it('counts overlapping occurrences and lists the first 100 lines', () => {
    expect(applyEdit('aaa', { kind: 'str_replace', oldStr: 'aa', newStr: 'b' }, 100).outcome).toEqual({
      outcome: 'multiple',
      count: 2,
      lines: [1, 1],
    });
    const many = Array.from({ length: 150 }, () => 'x').join('\n');
    const outcome = applyEdit(many, { kind: 'str_replace', oldStr: 'x', newStr: 'y' }, 1_000).outcome;
    expect(outcome).toMatchObject({ outcome: 'multiple', count: 150 });
    expect((outcome as unknown as { lines: number[] }).lines).toEqual(
      Array.from({ length: 100 }, (_, index) => index + 1),
    );
  });

  it('no-match, invalid-line and too-large, checked in the order of SPEC section 1', () => {
    expect(
      applyEdit('abc', { kind: 'str_replace', oldStr: 'z', newStr: 'x'.repeat(500) }, 10).outcome,
    ).toEqual({
      outcome: 'no-match',
    });
    expect(applyEdit('a\nb', { kind: 'insert', line: 3, text: 'x'.repeat(500) }, 10).outcome).toEqual({
      outcome: 'invalid-line',
      lines: 2,
    });
    expect(
      applyEdit('abc', { kind: 'str_replace', oldStr: 'b', newStr: '\u00e9\u00e9\u00e9\u00e9' }, 9).outcome,
    ).toEqual({
      outcome: 'too-large',
      bytes: 10,
    });
  });

  it('insert splices a line and adds no newline at the end', () => {
    expect(applyEdit('a\nb', { kind: 'insert', line: 0, text: 'top' }, 100)).toEqual({
      outcome: { outcome: 'edited', firstLine: 0, lines: [] },
      content: 'top\na\nb',
    });
    expect(applyEdit('', { kind: 'insert', line: 1, text: 'x' }, 100).content).toBe('\nx');
  });
});

describe('judgeQuota', () => {
  it('refuses a change that raises the total past maxBytes, with the total it would leave', () => {
    expect(judgeQuota({ maxBytes: 100 }, { bytes: 90, files: 3, addedBytes: 11, newFile: true })).toEqual({
      kind: 'bytes',
      total: 101,
      max: 100,
    });
    expect(judgeQuota({ maxBytes: 100 }, { bytes: 90, files: 3, addedBytes: 10, newFile: true })).toBeNull();
  });

  it('never refuses a change that does not raise the total, even past a lowered quota', () => {
    expect(judgeQuota({ maxBytes: 10 }, { bytes: 90, files: 3, addedBytes: 0, newFile: false })).toBeNull();
    expect(judgeQuota({ maxBytes: 10 }, { bytes: 90, files: 3, addedBytes: -5, newFile: false })).toBeNull();
    expect(judgeQuota({ maxFiles: 1 }, { bytes: 90, files: 3, addedBytes: 5, newFile: false })).toBeNull();
  });

  it('refuses a new file past maxFiles with the count held now; bytes win when both are passed', () => {
    expect(judgeQuota({ maxFiles: 3 }, { bytes: 0, files: 3, addedBytes: 1, newFile: true })).toEqual({
      kind: 'files',
      count: 3,
      max: 3,
    });
    expect(
      judgeQuota({ maxFiles: 3, maxBytes: 1 }, { bytes: 1, files: 3, addedBytes: 1, newFile: true }),
    ).toEqual({
      kind: 'bytes',
      total: 2,
      max: 1,
    });
  });
});

describe('history ids and retention', () => {
  it('sequence version ids sort in commit order as strings, and read back', () => {
    const ids = [1, 9, 10, 123_456_789].map(sequenceVersionId);
    expect(ids[0]).toBe('memver_0000000000000001');
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(versionSequence)).toEqual([1, 9, 10, 123_456_789]);
    expect(versionSequence('memver_x')).toBeNaN();
  });

  it('nextVersionSequence: the next exact sequence, or BACKEND (misconfigured) once a history is past 2^53 - 1', () => {
    expect(MAX_VERSION_SEQUENCE).toBe(9_007_199_254_740_991);
    expect(nextVersionSequence(0)).toBe(1);
    expect(nextVersionSequence(41)).toBe(42);
    expect(nextVersionSequence(MAX_VERSION_SEQUENCE - 1)).toBe(MAX_VERSION_SEQUENCE);
    expect(nextVersionSequence(MAX_VERSION_SEQUENCE - 3, 3)).toBe(MAX_VERSION_SEQUENCE - 2);
    const outOfIds = {
      code: 'BACKEND',
      reason: 'misconfigured',
      outcome: 'not-applied',
      message:
        "The memory store is unavailable: its history holds a version id past memver_9007199254740991, the highest that stays exact, so no change can be recorded; copy the files to a store with a new history. Trying again will not help until the store's configuration is fixed.",
    };
    // What an unchecked import could leave: the last exact id, ids past it, and the NaN of an id
    // that no longer reads back (memver_10000000000000000).
    for (const [newest, count] of [
      [MAX_VERSION_SEQUENCE, 1],
      [MAX_VERSION_SEQUENCE - 2, 3],
      [versionSequence('memver_9999999999999999'), 1],
      [versionSequence('memver_10000000000000000'), 1],
      [-1, 1],
    ] as const) {
      let thrown: unknown;
      try {
        nextVersionSequence(newest, count);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, `${newest} + ${count}`).toBeInstanceOf(MemoryToolError);
      expect(thrown, `${newest} + ${count}`).toMatchObject(outOfIds);
    }
  });

  // An imported version as checkImportedVersions reads it: a plain one, unless `fields` say otherwise.
  const imported = (id: string, fields: Record<string, unknown> = {}) =>
    ({ id, at: Date.UTC(2026, 0, 1), redactedAt: null, actor: null, toolUseId: null, ...fields }) as Pick<
      DriverVersion,
      'id' | 'at' | 'redactedAt' | 'actor' | 'toolUseId'
    >;
  const refusal = (versions: ReturnType<typeof imported>[]) => {
    try {
      checkImportedVersions(versions, Date.UTC(2026, 11, 6));
    } catch (error) {
      expect(error).toBeInstanceOf(MemoryToolError);
      expect((error as MemoryToolError).code).toBe('INVALID_INPUT');
      return (error as MemoryToolError).message;
    }
    throw new Error('not refused');
  };

  it('checkImportedVersions: ids of 1 and up, strictly ascending; the first to break the rule is named', () => {
    const ids = [1, 2, 10].map(sequenceVersionId);
    expect(checkImportedVersions(ids.map((id) => imported(id)))).toEqual([1, 2, 10]);
    expect(checkImportedVersions([])).toEqual([]);
    // No history makes version 0: every driver refuses it, as the first id or later.
    expect(refusal([imported('memver_0000000000000000')])).toBe(
      'importVersions: version ids must be ascending ids made by sequenceVersionId, got "memver_0000000000000000" after nothing',
    );
    expect(refusal([imported(ids[1]!), imported(ids[0]!)])).toBe(
      'importVersions: version ids must be ascending ids made by sequenceVersionId, got "memver_0000000000000001" after memver_0000000000000002',
    );
    expect(refusal([imported(ids[0]!), imported(ids[0]!)])).toContain(
      'got "memver_0000000000000001" after memver_0000000000000001',
    );
    expect(refusal([imported('memver_1')])).toContain('got "memver_1" after nothing');
  });

  it('checkImportedVersions: ids past memver_1000000000000000 are refused, so the ids made after them stay exact', () => {
    expect(checkImportedVersions([imported('memver_1000000000000000')])).toEqual([1e15]);
    expect(refusal([imported('memver_1000000000000001')])).toBe(
      'importVersions: version id memver_1000000000000001 is above memver_1000000000000000, the highest an import may carry (the ids made after it must stay exact)',
    );
    // The one that broke every later id on fs and rounded on PostgreSQL.
    expect(refusal([imported('memver_9999999999999999')])).toBe(
      'importVersions: version id memver_9999999999999999 is above memver_1000000000000000, the highest an import may carry (the ids made after it must stay exact)',
    );
    expect(refusal([imported(sequenceVersionId(1)), imported('memver_9007199254740993')])).toBe(
      'importVersions: version id memver_9007199254740993 is above memver_1000000000000000, the highest an import may carry (the ids made after it must stay exact)',
    );
  });

  it('checkImportedVersions: times from 2000 to a day past now, actors and tool use ids without control characters', () => {
    const id = sequenceVersionId(1);
    expect(refusal([imported(id, { at: 0 })])).toBe(
      'importVersions: version memver_0000000000000001 has time 0, outside 2000-01-01 to a day past now (milliseconds since the epoch)',
    );
    expect(refusal([imported(id, { at: 8.64e15 })])).toContain('has time 8640000000000000, outside');
    expect(refusal([imported(id, { at: Date.UTC(2026, 11, 8) })])).toContain('has time');
    expect(refusal([imported(id, { at: 1.5 })])).toContain('has time 1.5');
    expect(refusal([imported(id, { redactedAt: -1 })])).toContain('has redactedAt -1');
    expect(
      checkImportedVersions(
        [
          imported(id, {
            at: Date.UTC(2026, 11, 6, 12),
            redactedAt: Date.UTC(2026, 11, 6, 13),
            actor: { type: 'user', id: 'ana' },
            toolUseId: 'toolu_01',
          }),
        ],
        Date.UTC(2026, 11, 6),
      ),
    ).toEqual([1]);
    // An escape sequence that would retitle an operator's terminal, and a bidi override: refused,
    // and shown escaped in the message.
    const titled = refusal([imported(id, { actor: { type: 'user', id: '\u001b]0;pwned\u0007' } })]);
    expect(titled).toBe(
      'importVersions: version memver_0000000000000001 has an actor id "\\u001b]0;pwned\\u0007": expected 1 to 256 characters without control characters',
    );
    expect(refusal([imported(id, { toolUseId: 'a\u202eb' })])).toBe(
      'importVersions: version memver_0000000000000001 has toolUseId "a\\u202eb": expected 1 to 256 characters without control characters',
    );
    expect(refusal([imported(id, { toolUseId: 'x'.repeat(257) })])).toContain('has toolUseId');
    expect(refusal([imported(id, { actor: { type: 'admin', id: 'x' } })])).toContain(
      'has actor {"type":"admin","id":"x"}: expected null or { type: \'session\' | \'user\' | \'api\' | \'service\', id }',
    );
    expect(refusal([imported(id, { actor: { type: 'user', id: '' } })])).toContain('has an actor id ""');
  });

  it('file ids are mem_ and 22 random characters', () => {
    const a = newFileId();
    expect(a).toMatch(/^mem_[A-Za-z0-9_-]{22}$/);
    expect(newFileId()).not.toBe(a);
  });

  it('sha256Hex hashes the UTF-8 bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // U+00E9 is the two bytes C3 A9 in UTF-8.
    expect(sha256Hex('\u00e9')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('prunable keeps the newest keepVersions and those younger than keepDays, oldest removed first, at most limit', () => {
    const now = 100 * DAY;
    const versions = [0, 1, 2, 40, 41, 42, 43].map((age) => ({ at: now - age * DAY }));
    expect(prunable(versions, { keepVersions: 2, keepDays: 30 }, now, 10)).toEqual([6, 5, 4, 3]);
    expect(prunable(versions, { keepVersions: 2, keepDays: 30 }, now, 2)).toEqual([6, 5]);
    expect(prunable(versions, { keepVersions: 5, keepDays: 30 }, now, 10)).toEqual([6, 5]);
    // keepDays 0: only the newest keepVersions stay; the newest version is never removed.
    expect(prunable(versions, { keepVersions: 1, keepDays: 0 }, now, 10)).toEqual([6, 5, 4, 3, 2, 1]);
  });
});

describe('a history kept in JavaScript: appendFileVersion and versionPage', () => {
  const version = (sequence: number, path: string): DriverVersion & { content: string } => ({
    id: sequenceVersionId(sequence),
    fileId: 'mem_a',
    path: path as DriverPath,
    previousPath: null,
    operation: 'modified',
    size: 1,
    sha256: null,
    at: sequence,
    actor: null,
    command: 'create',
    operationId: `op-${sequence}`,
    toolUseId: null,
    restoredFrom: null,
    redactedAt: null,
    content: 'x',
  });
  const kept = [1, 2, 3, 4, 5].map((sequence) =>
    version(sequence, sequence % 2 === 0 ? 'even.md' : 'odd.md'),
  );
  const ids = kept.map((each) => each.id);
  const byId = new Map(kept.map((each) => [each.id, each]));
  const versionOf = (id: string) => byId.get(id)!;

  it('appendFileVersion keeps the ids of each file in the order they come', () => {
    const byFile = new Map<string, string[]>();
    appendFileVersion(byFile, 'mem_a', ids[0]!);
    appendFileVersion(byFile, 'mem_b', ids[1]!);
    appendFileVersion(byFile, 'mem_a', ids[2]!);
    expect([...byFile]).toEqual([
      ['mem_a', [ids[0], ids[2]]],
      ['mem_b', [ids[1]]],
    ]);
  });

  it('lists newest first from below the cursor, and ends with no cursor', () => {
    const first = versionPage(ids, versionOf, { limit: 2 });
    expect(first.versions.map((each) => each.id)).toEqual([ids[4], ids[3]]);
    expect(first.next).toBe(ids[3]);
    const second = versionPage(ids, versionOf, { limit: 10, cursor: first.next! });
    expect(second).toEqual({ versions: [kept[2], kept[1], kept[0]], next: null });
  });

  it('applies the filters, stops after scanLimit versions looked at, and shows each as asked', () => {
    const odd = versionPage(ids, versionOf, { limit: 10, path: 'odd.md' as DriverPath });
    expect(odd.versions.map((each) => each.id)).toEqual([ids[4], ids[2], ids[0]]);
    const short = versionPage(ids, versionOf, { limit: 10, path: 'odd.md' as DriverPath }, undefined, 2);
    expect(short).toEqual({ versions: [kept[4]], next: ids[3] });
    const shown = versionPage(ids, versionOf, { limit: 1 }, ({ content: _content, ...rest }) => rest);
    expect(shown.versions[0]).not.toHaveProperty('content');
  });
});

describe('Receipts', () => {
  it('remembers outcomes by operation id, forgetting the oldest past its limit', () => {
    const receipts = new Receipts<string>(2);
    receipts.record('a', 'A');
    receipts.record('b', 'B');
    expect(receipts.get('a')).toBe('A');
    receipts.record('c', 'C');
    expect(receipts.has('a')).toBe(false);
    expect(receipts.get('b')).toBe('B');
    expect(receipts.get('c')).toBe('C');
  });
});

describe('options', () => {
  it('positiveInteger and optionError speak in one style', () => {
    expect(positiveInteger('redis', 'maxSubtreeEntries', undefined, 7)).toBe(7);
    expect(positiveInteger('redis', 'maxSubtreeEntries', 3, 7)).toBe(3);
    expect(() => positiveInteger('redis', 'maxSubtreeEntries', 0, 7)).toThrow(
      new TypeError('Invalid @memdir/redis option maxSubtreeEntries: expected a positive integer, got 0'),
    );
    expect(optionError('s3', 'prefix', 'no ".." segment').message).toBe(
      'Invalid @memdir/s3 option prefix: no ".." segment',
    );
  });

  it('splitStoreOptions gives the engine its options and the driver the rest, logger to both', () => {
    const logger = { warn() {} };
    const { store, driver } = splitStoreOptions({
      url: 'redis://x',
      keyPrefix: 'p:',
      namespace: 'n',
      timeoutMs: 1_000,
      quota: { maxBytes: 5 },
      logger,
    });
    expect(store).toEqual({ namespace: 'n', timeoutMs: 1_000, quota: { maxBytes: 5 }, logger });
    expect(driver).toEqual({ url: 'redis://x', keyPrefix: 'p:', logger });
  });
});

describe('EditQueue: group commit of the edits of one file', () => {
  it('edits that arrive while a write is in flight go together in the next batch, each with its own outcome', async () => {
    let content = 'start';
    const batches: string[][] = [];
    const queue = new EditQueue(async (_key, batch) => {
      batch.refill();
      batches.push(batch.ops);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const applied = batch.apply(content);
      content = applied.content;
      batch.settle();
    });
    const options = (op: string) => ({ op, deadline: Date.now() + 5_000 });
    const results = await Promise.allSettled([
      queue.submit('f', (c) => `${c}+1`, options('op1')),
      queue.submit('f', (c) => `${c}+2`, options('op2')),
      queue.submit(
        'f',
        () => {
          throw new MemoryToolError('NO_MATCH', 'no');
        },
        options('op3'),
      ),
      queue.submit('f', (c) => `${c}+4`, options('op4')),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'NO_MATCH' });
    expect(content).toBe('start+1+2+4');
    expect(batches).toEqual([['op1'], ['op2', 'op3', 'op4']]);
  });

  it('an edit whose deadline passed before its batch ran is answered with the timeout and not applied', async () => {
    let content = 'x';
    const queue = new EditQueue(async (_key, batch) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      batch.refill();
      content = batch.apply(content).content;
      batch.settle();
    });
    const late = queue.submit('f', (c) => `${c}!`, { op: 'late', deadline: Date.now() + 10 });
    await expect(late).rejects.toMatchObject({ code: 'BACKEND', reason: 'timeout' });
    expect(content).toBe('x');
  });

  it('a replayed edit whose op the file carries succeeds without applying again; missing files answer every member', async () => {
    const applied: string[][] = [];
    const queue = new EditQueue(async (key, batch) => {
      if (key === 'gone') return batch.missing(null);
      batch.resolveReplayed(['seen']);
      applied.push(batch.ops);
      batch.apply('c');
      batch.settle();
    });
    const deadline = Date.now() + 5_000;
    await expect(queue.submit('f', (c) => c, { op: 'seen', deadline })).resolves.toBe('file');
    await expect(queue.submit('f', (c) => c, { op: 'new', deadline })).resolves.toBe('file');
    await expect(queue.submit('gone', (c) => c, { op: 'x', deadline })).resolves.toBeNull();
    expect(applied).toEqual([[], ['new']]);
  });

  it('the edits waiting for a file hear of progress: from the batch (another writer committed) and when a batch ahead of them commits', async () => {
    const heard: string[] = [];
    let release: () => void = () => {};
    const queue = new EditQueue(async (_key, batch) => {
      if (batch.ops.includes('first')) {
        // Another writer's group committed while this one waited for its turn.
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        batch.progressed();
      }
      batch.apply('c');
      batch.settle();
    });
    const options = (op: string) => ({
      op,
      deadline: Date.now() + 5_000,
      progressed: () => heard.push(op),
    });
    const first = queue.submit('f', (c) => c, options('first'));
    const second = queue.submit('f', (c) => c, options('second'));
    const third = queue.submit('f', (c) => c, options('third'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    await Promise.all([first, second, third]);
    // From the batch: its member and both queued behind it; then, its commit done, both again.
    expect(heard).toEqual(['first', 'second', 'third', 'second', 'third']);
  });

  it('a commit that throws fails its batch; one that leaves members unsettled is an unexpected failure', async () => {
    const failing = new EditQueue(async () => {
      throw new MemoryToolError('BACKEND', 'down', { reason: 'unavailable' });
    });
    await expect(
      failing.submit('f', (c) => c, { op: 'a', deadline: Date.now() + 1_000 }),
    ).rejects.toMatchObject({
      message: 'down',
    });
    const forgetful = new EditQueue(async () => {});
    await expect(
      forgetful.submit('f', (c) => c, { op: 'a', deadline: Date.now() + 1_000 }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'unexpected',
    });
  });
});

describe('driverLog: what a driver tells operators', () => {
  it('is exported by the kit and writes through the logger, prefixed with the package, with its fields', () => {
    const lines: Array<[string, Record<string, unknown> | undefined]> = [];
    const log = driverLog('fs', { info: (message, fields) => lines.push([message, fields]) });
    log.info('lock acquired', { waitedMs: 12 });
    log.debug('skipped: the logger has no debug');
    expect(lines).toEqual([['fs: lock acquired', { package: '@memdir/fs', waitedMs: 12 }]]);
  });
});
