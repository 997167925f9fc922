// The pieces every integration shares: the per-store queue and the mapping of results and errors to what
// the model reads (SPEC section 7).
import { describe, expect, test } from 'vitest';
import {
  createInMemoryStore,
  executeMemoryToolCall,
  type MemoryStore,
  MemoryToolError,
  memoryExecute,
  memoryTool,
  runInOrder,
  toMemoryToolError,
} from '../../src/index.js';
import { BACKEND_TEXT, filesOf, leakyStore, slowCreateStore } from './scenario.js';

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The error `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as Error;
}

describe('runInOrder', () => {
  test('tasks for one store run one at a time, first queued first run, even when the first is slowest', async () => {
    const store = createInMemoryStore();
    const events: string[] = [];
    const task = (name: string, ms: number) => async () => {
      events.push(`start ${name}`);
      await delay(ms);
      events.push(`end ${name}`);
      return name;
    };

    const results = await Promise.all([
      runInOrder(store, task('a', 30)),
      runInOrder(store, task('b', 1)),
      runInOrder(store, task('c', 10)),
    ]);

    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  test('a failing task rejects its own caller and does not hold up the next one', async () => {
    const store = createInMemoryStore();
    const failing = runInOrder(store, async () => {
      throw new Error('boom');
    });
    const next = runInOrder(store, async () => 'ran');

    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  test('a task that throws synchronously is a rejection, not an exception', async () => {
    const store = createInMemoryStore();
    const result = runInOrder(store, () => {
      throw new Error('sync');
    });
    await expect(result).rejects.toThrow('sync');
  });

  test('different stores have independent queues', async () => {
    const slow = createInMemoryStore();
    const fast = createInMemoryStore();
    let slowDone = false;
    const blocked = runInOrder(slow, async () => {
      await delay(50);
      slowDone = true;
    });

    await runInOrder(fast, async () => {
      expect(slowDone).toBe(false);
    });
    await blocked;
  });

  test('the Anthropic tool and the AI SDK execute over one store share its queue', async () => {
    const { store, driver } = slowCreateStore();
    const tool = memoryTool(store);
    const execute = memoryExecute(store);

    const results = await Promise.all([
      tool.run({ command: 'create', path: '/memories/a.md', file_text: 'tea' }),
      execute({ command: 'str_replace', path: '/memories/a.md', old_str: 'tea', new_str: 'green tea' }),
      executeMemoryToolCall(store, {
        command: 'insert',
        path: '/memories/a.md',
        insert_line: 1,
        insert_text: 'x',
      }),
    ]);

    expect(results[2]).toEqual({ content: 'The file /memories/a.md has been edited.', isError: false });
    expect(await filesOf(driver)).toEqual([{ path: 'a.md', content: 'green tea\nx' }]);
  });
});

describe('executeMemoryToolCall', () => {
  test('a success is the result text, not an error', async () => {
    const store = createInMemoryStore();
    expect(
      await executeMemoryToolCall(store, { command: 'create', path: '/memories/a.md', file_text: 'x' }),
    ).toEqual({ content: 'File created successfully at: /memories/a.md', isError: false });
  });

  test('a MemoryToolError is "Error: " + message, with the error itself', async () => {
    const result = await executeMemoryToolCall(createInMemoryStore(), {
      command: 'delete',
      path: '/memories/x',
    });
    expect(result.content).toBe('Error: The path /memories/x does not exist');
    expect(result.isError).toBe(true);
    expect(result.error).toBeInstanceOf(MemoryToolError);
    expect((result.error as MemoryToolError).code).toBe('NOT_FOUND');
  });

  test('any other error from a custom store becomes a fixed BACKEND text; the original stays on cause', async () => {
    const result = await executeMemoryToolCall(leakyStore(), { command: 'view', path: '/memories' });
    expect(result.content).toBe(BACKEND_TEXT);
    expect(result.error).toMatchObject({ code: 'BACKEND' });
    expect((result.error!.cause as Error).message).toContain('/home/alice');
  });

  test('a thrown non-Error value also becomes the BACKEND text', async () => {
    const store = {
      ...leakyStore(),
      execute: () => Promise.reject('disk /var/lib/x is full'),
    } as MemoryStore;
    expect(await executeMemoryToolCall(store, { command: 'view', path: '/memories' })).toMatchObject({
      content: BACKEND_TEXT,
      isError: true,
    });
  });

  test('a store result that is not a string is reported as BACKEND, not sent to the model', async () => {
    const store = { ...leakyStore(), execute: async () => ({ ok: true }) } as unknown as MemoryStore;
    expect(await executeMemoryToolCall(store, { command: 'view', path: '/memories' })).toMatchObject({
      content: BACKEND_TEXT,
      isError: true,
    });
  });

  test('a call whose signal is aborted before its turn is not run, and says so', async () => {
    const { store, driver } = slowCreateStore();
    const controller = new AbortController();
    const first = executeMemoryToolCall(store, { command: 'create', path: '/memories/a.md', file_text: 'a' });
    const second = executeMemoryToolCall(
      store,
      { command: 'create', path: '/memories/b.md', file_text: 'b' },
      { signal: controller.signal },
    );
    controller.abort();

    expect(await first).toEqual({ content: 'File created successfully at: /memories/a.md', isError: false });
    const skipped = await second;
    expect(skipped.content).toBe('Error: The memory command was not run: the agent run was aborted.');
    expect(skipped.isError).toBe(true);
    expect(skipped.error?.name).toBe('AbortError');
    expect(await filesOf(driver)).toEqual([{ path: 'a.md', content: 'a' }]);
  });

  test('toMemoryToolError keeps a MemoryToolError as is', () => {
    const error = new MemoryToolError('NOT_FOUND', 'gone');
    expect(toMemoryToolError(error)).toBe(error);
  });
});

describe('memoryTool', () => {
  test('is the runnable tool shape: type, name, identity parse; extra properties cannot override them', () => {
    const tool = memoryTool(createInMemoryStore(), {
      cache_control: { type: 'ephemeral' },
      ...({ type: 'bash_20250124', name: 'bash', run: null, parse: null } as object),
    });
    expect(tool.type).toBe('memory_20250818');
    expect(tool.name).toBe('memory');
    expect(tool.cache_control).toEqual({ type: 'ephemeral' });
    expect(typeof tool.run).toBe('function');
    const input = { command: 'view', path: '/memories' };
    expect(tool.parse(input)).toBe(input);
  });

  test('run resolves to the text, and rejects with the MemoryToolError whose message the runner prefixes', async () => {
    const tool = memoryTool(createInMemoryStore());
    await expect(tool.run({ command: 'create', path: '/memories/a', file_text: '' })).resolves.toBe(
      'File created successfully at: /memories/a',
    );
    const failure = tool.run({ command: 'view', path: '/memories/b' });
    await expect(failure).rejects.toBeInstanceOf(MemoryToolError);
    await expect(failure).rejects.toThrow(
      /^The path \/memories\/b does not exist\. Please provide a valid path\.$/,
    );
  });
});

describe('memoryExecute', () => {
  test('a failure throws an error whose message and toString() are both "Error: " + message', async () => {
    const execute = memoryExecute(createInMemoryStore());
    const error = await rejection(
      execute({ command: 'rename', old_path: '/memories', new_path: '/memories/x' }),
    );
    // ai 5 and 6 send error.message to the model, ai 7 sends error.toString().
    expect(error.message).toBe('Error: Cannot rename the /memories directory itself');
    expect(error.toString()).toBe('Error: Cannot rename the /memories directory itself');
    expect(error.cause).toMatchObject({ code: 'ROOT_PROTECTED' });
  });

  test('an aborted signal skips the call', async () => {
    const store = createInMemoryStore();
    const execute = memoryExecute(store);
    const error = await rejection(
      execute(
        { command: 'create', path: '/memories/a', file_text: 'x' },
        { abortSignal: AbortSignal.abort() },
      ),
    );
    expect(error.message).toBe('Error: The memory command was not run: the agent run was aborted.');
    await expect(store.view({ command: 'view', path: '/memories/a' })).rejects.toThrow('does not exist');
  });
});
