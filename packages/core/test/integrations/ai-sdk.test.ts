// memoryExecute() with the real Vercel AI SDK (ai 5 + @ai-sdk/anthropic 2, ai 6 + @ai-sdk/anthropic 3),
// generateText without streaming, against a scripted Messages API on loopback.
import { generateText as generateText5, stepCountIs as stepCountIs5 } from 'ai5';
import { createAnthropic as createAnthropic2 } from 'ai5-anthropic';
import { generateText as generateText6, stepCountIs as stepCountIs6 } from 'ai6';
import { createAnthropic as createAnthropic3 } from 'ai6-anthropic';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createInMemoryStore, type MemoryExecute, type MemoryStore, memoryExecute } from '../../src/index.js';
import {
  BACKEND_TEXT,
  expectedFiles,
  expectedResults,
  filesOf,
  finalTurn,
  leakyStore,
  slowCreateStore,
  turn,
} from './scenario.js';
import {
  memoryCall,
  type ScriptedMessagesServer,
  startScriptedMessagesServer,
  toolResultsOf,
} from './scripted-messages-server.js';

let server: ScriptedMessagesServer;

beforeAll(async () => {
  server = await startScriptedMessagesServer();
});

afterAll(async () => {
  await server.close();
  expect(server.listening).toBe(false);
});

beforeEach(() => {
  server.requests.length = 0;
});

const prompt = 'Remember that I like green tea.';

/** Each AI SDK major, wired the way its documentation shows, running until the model stops calling tools. */
const versions = [
  {
    name: 'ai 5 with @ai-sdk/anthropic 2',
    async run(execute: MemoryExecute) {
      const anthropic = createAnthropic2({ baseURL: `${server.url}/v1`, apiKey: 'sk-ant-test' });
      return generateText5({
        model: anthropic('claude-sonnet-4-6'),
        maxOutputTokens: 1024,
        maxRetries: 0,
        prompt,
        stopWhen: stepCountIs5(10),
        tools: { memory: anthropic.tools.memory_20250818({ execute }) },
      });
    },
  },
  {
    name: 'ai 6 with @ai-sdk/anthropic 3',
    async run(execute: MemoryExecute) {
      const anthropic = createAnthropic3({ baseURL: `${server.url}/v1`, apiKey: 'sk-ant-test' });
      return generateText6({
        model: anthropic('claude-sonnet-4-6'),
        maxOutputTokens: 1024,
        maxRetries: 0,
        prompt,
        stopWhen: stepCountIs6(10),
        tools: { memory: anthropic.tools.memory_20250818({ execute }) },
      });
    },
  },
];

describe.each(versions)('memoryExecute with $name', ({ run }) => {
  test('a turn with several memory calls: exact tool_result blocks, in order, and the files in the store', async () => {
    const { store, driver } = slowCreateStore();
    server.script(turn, finalTurn);

    const result = await run(memoryExecute(store));

    expect(result.text).toBe('Saved to memory.');
    expect(server.requests).toHaveLength(2);
    expect(server.pending).toBe(0);
    expect(toolResultsOf(server.requests[1]!)).toEqual(expectedResults);
    expect(await filesOf(driver)).toEqual(expectedFiles);
  });

  test('the requests are plain (non-streaming) Messages requests declaring the memory tool', async () => {
    server.script(turn, finalTurn);

    await run(memoryExecute(createInMemoryStore()));

    expect(server.requests.map((request) => request.body.stream ?? false)).toEqual([false, false]);
    expect(server.requests[0]!.body.tools).toEqual([{ name: 'memory', type: 'memory_20250818' }]);
  });

  test('the failure reaches the application as a tool-error whose cause is the MemoryToolError', async () => {
    server.script([memoryCall('toolu_01', { command: 'delete', path: '/memories' })], finalTurn);

    const result = await run(memoryExecute(createInMemoryStore()));

    const errors = result.steps[0]!.content.filter((part) => part.type === 'tool-error');
    expect(errors).toHaveLength(1);
    const error = errors[0]!.error as Error;
    expect(error.message).toBe('Error: Cannot delete the /memories directory itself');
    expect(String(error)).toBe('Error: Cannot delete the /memories directory itself');
    expect(error.cause).toMatchObject({ name: 'MemoryToolError', code: 'ROOT_PROTECTED' });
    expect(toolResultsOf(server.requests[1]!)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01',
        content: 'Error: Cannot delete the /memories directory itself',
        is_error: true,
      },
    ]);
  });

  test('a custom store that throws a raw error: the model gets a fixed BACKEND text, no host path or stack', async () => {
    server.script([memoryCall('toolu_01', { command: 'view', path: '/memories' })], finalTurn);

    await run(memoryExecute(leakyStore() as MemoryStore));

    expect(toolResultsOf(server.requests[1]!)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01', content: BACKEND_TEXT, is_error: true },
    ]);
    expect(server.requests[1]!.raw).not.toContain('/home/alice');
    expect(server.requests[1]!.raw).not.toContain('EACCES');
  });

  test('limitation: an input that fails the AI SDK schema never reaches the store; the SDK writes that error', async () => {
    const store = createInMemoryStore();
    // @ai-sdk/anthropic's schema requires new_str, which the memory tool (and memdir) treat as optional.
    server.script(
      [
        memoryCall('toolu_01', { command: 'create', path: '/memories/a.md', file_text: 'tea' }),
        memoryCall('toolu_02', { command: 'str_replace', path: '/memories/a.md', old_str: 'tea' }),
      ],
      finalTurn,
    );

    await run(memoryExecute(store));

    // ai 5 lists the rejected call's result first, ai 6 keeps the model's order: look them up by id.
    const results = toolResultsOf(server.requests[1]!);
    const created = results.find((block) => block['tool_use_id'] === 'toolu_01');
    const rejected = results.find((block) => block['tool_use_id'] === 'toolu_02');
    expect(results).toHaveLength(2);
    expect(created).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01',
      content: 'File created successfully at: /memories/a.md',
    });
    expect(rejected).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_02', is_error: true });
    expect(rejected!['content']).toMatch(/^Invalid input for tool memory/);
    expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\ttea",
    );
  });
});
