// Core v3 in the engine: edits go to a driver with `edit` as data (one call), the call options
// (actor, toolUseId) reach the driver as the history record, and read-only stores refuse changes.
import { describe, expect, it } from 'vitest';
import { wrapDriver } from '../src/driver/index.js';
import {
  createInMemoryDriver,
  createMemoryStore,
  type DriverChangeOptions,
  type DriverEdit,
  type MemoryDriver,
  mcpCallTool,
  readOnlyStore,
} from '../src/index.js';

function recordingEdits(inner: MemoryDriver): { driver: MemoryDriver; calls: string[]; edits: DriverEdit[] } {
  const calls: string[] = [];
  const edits: DriverEdit[] = [];
  const driver = wrapDriver(inner, {
    read: (path, options) => {
      calls.push('read');
      return inner.read(path, options);
    },
    write: (path, content, options) => {
      calls.push('write');
      return inner.write(path, content, options);
    },
    edit: (path, edit, options) => {
      calls.push('edit');
      edits.push(edit);
      return inner.edit!(path, edit, options);
    },
  });
  return { driver, calls, edits };
}

describe('edits as data (driver.edit)', () => {
  it('str_replace and insert are one edit call each, with the edit as data', async () => {
    const { driver, calls, edits } = recordingEdits(createInMemoryDriver());
    const store = createMemoryStore(driver);
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'one\ntwo' });
    calls.length = 0;
    expect(
      await store.str_replace({
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: 'two',
        new_str: '2',
      }),
    ).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tone\n     2\t2',
    );
    expect(
      await store.insert({
        command: 'insert',
        path: '/memories/a.md',
        insert_line: 2,
        insert_text: 'three\n',
      }),
    ).toBe('The file /memories/a.md has been edited.');
    expect(calls).toEqual(['edit', 'edit']);
    expect(edits).toEqual([
      { kind: 'str_replace', oldStr: 'two', newStr: '2' },
      { kind: 'insert', line: 2, text: 'three' },
    ]);
  });

  it("each outcome of the driver's edit becomes the model's text", async () => {
    const inner = createInMemoryDriver();
    let answer: unknown;
    const driver = wrapDriver(inner, { edit: async () => answer as never });
    const store = createMemoryStore(driver, { maxFileBytes: 50 });
    const replace = () =>
      store.str_replace({ command: 'str_replace', path: '/memories/n.md', old_str: 'ab', new_str: 'x' });
    const cases: Array<[unknown, string, string]> = [
      [
        { outcome: 'missing', kind: null },
        'NOT_FOUND',
        'The path /memories/n.md does not exist. Please provide a valid path.',
      ],
      [{ outcome: 'missing', kind: 'directory' }, 'NOT_A_FILE', 'The path /memories/n.md is not a file.'],
      [
        { outcome: 'no-match' },
        'NO_MATCH',
        'No replacement was performed, old_str `ab` did not appear verbatim in /memories/n.md.',
      ],
      [
        { outcome: 'multiple', count: 3, lines: [1, 1, 4] },
        'MULTIPLE_MATCHES',
        'No replacement was performed. Multiple occurrences of old_str `ab` in lines: 1, 1, 4. Please ensure it is unique',
      ],
      [
        { outcome: 'too-large', bytes: 51 },
        'TOO_LARGE',
        'File /memories/n.md would be 51 bytes, over the limit of 50 bytes. Nothing was written.',
      ],
      [
        { outcome: 'quota', breach: { kind: 'bytes', total: 101, max: 100 } },
        'QUOTA_EXCEEDED',
        'The memory directory is full: saving /memories/n.md would use 101 of 100 bytes. Delete or shorten files in /memories first.',
      ],
    ];
    for (const [outcome, code, message] of cases) {
      answer = outcome;
      await expect(replace(), JSON.stringify(outcome)).rejects.toMatchObject({ code, message });
    }
    answer = { outcome: 'invalid-line', lines: 3 };
    await expect(
      store.insert({ command: 'insert', path: '/memories/n.md', insert_line: 9, insert_text: 'x' }),
    ).rejects.toMatchObject({
      code: 'INVALID_LINE',
      message:
        'Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 3]',
    });
  });
});

describe('call options reach the driver as the history record', () => {
  function historyDriver(records: Array<DriverChangeOptions['record']>): MemoryDriver {
    const inner = createInMemoryDriver();
    return wrapDriver(inner, {
      capabilities: { ...inner.capabilities, history: true },
      write: (path, content, options) => {
        records.push(options.record);
        return inner.write(path, content, options);
      },
      listVersions: async () => ({ versions: [], next: null }),
      readVersion: async () => null,
      restoreVersion: async () => {
        throw new Error('unused');
      },
      redactVersion: async () => null,
      treeAt: async () => [],
    });
  }

  it('the store actor, a call actor over it, the tool_use id and the retention defaults', async () => {
    const records: Array<DriverChangeOptions['record']> = [];
    const store = createMemoryStore(historyDriver(records), { actor: { type: 'service', id: 'app' } });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await store.execute(
      { command: 'create', path: '/memories/b.md', file_text: 'b' },
      { actor: { type: 'user', id: 'u-1' }, toolUseId: 'toolu_01' },
    );
    expect(records).toEqual([
      {
        actor: { type: 'service', id: 'app' },
        command: 'create',
        toolUseId: null,
        keepVersions: 20,
        keepDays: 30,
      },
      {
        actor: { type: 'user', id: 'u-1' },
        command: 'create',
        toolUseId: 'toolu_01',
        keepVersions: 20,
        keepDays: 30,
      },
    ]);
  });

  it('history: false records nothing; without the capability a history option is a TypeError', async () => {
    const records: Array<DriverChangeOptions['record']> = [];
    const store = createMemoryStore(historyDriver(records), { history: false });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    expect(records).toEqual([undefined]);
    // A driver that declares no history (the in-memory driver has it).
    const plain = wrapDriver(createInMemoryDriver(), { capabilities: { atomicRename: true } });
    expect(() => createMemoryStore(plain, { history: { keepVersions: 3 } })).toThrow(
      "Invalid @memdir/core option history: this store's driver keeps no history (capabilities.history is not set)",
    );
  });

  it('an ill-formed actor from the application is a TypeError, not a model-facing error', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    await expect(
      store.view({ command: 'view', path: '/memories' }, { actor: { type: 'robot', id: 'x' } as never }),
    ).rejects.toThrow(TypeError);
    expect(() => createMemoryStore(createInMemoryDriver(), { actor: { type: 'user', id: '' } })).toThrow(
      /^Invalid @memdir\/core option actor: /,
    );
  });

  it('the integrations pass the tool call id through (MCP)', async () => {
    const records: Array<DriverChangeOptions['record']> = [];
    const store = createMemoryStore(historyDriver(records));
    await mcpCallTool(
      store,
      'memory',
      { command: 'create', path: '/memories/m.md', file_text: 'm' },
      { actor: { type: 'user', id: 'alice' }, toolUseId: '7' },
    );
    expect(records[0]).toMatchObject({ actor: { type: 'user', id: 'alice' }, toolUseId: '7' });
  });
});

describe('readOnlyStore', () => {
  it('views go through; every change command is READ_ONLY and changes nothing; bad input is still INVALID_INPUT', async () => {
    const store = createMemoryStore(createInMemoryDriver());
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    const readonly = readOnlyStore(store, 'this token may only read');
    expect(await readonly.view({ command: 'view', path: '/memories/a.md' })).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\ta",
    );
    const changes = [
      { command: 'create', path: '/memories/b.md', file_text: 'b' },
      { command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'b' },
      { command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'b' },
      { command: 'delete', path: '/memories/a.md' },
      { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/c.md' },
    ] as const;
    for (const change of changes) {
      await expect(readonly.execute(change)).rejects.toMatchObject({
        code: 'READ_ONLY',
        message: `The memory directory is read-only (this token may only read): the ${change.command} command was not run.`,
      });
    }
    await expect(
      readonly.create({ command: 'create', path: '/memories/b.md', file_text: 'b' }),
    ).rejects.toMatchObject({
      code: 'READ_ONLY',
    });
    await expect(readonly.execute({ command: 'create', path: 42 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n1B\t/memories\n1B\t/memories/a.md",
    );
  });
});
