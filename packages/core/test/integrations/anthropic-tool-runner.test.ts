// memoryTool() with the real @anthropic-ai/sdk tool runner, against a scripted Messages API on loopback.
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createInMemoryStore, type MemoryStore, memoryTool } from '../../src/index.js';
import {
  BACKEND_TEXT,
  expectedFiles,
  expectedResults,
  filesOf,
  finalTurn,
  leakyStore,
  NOTES,
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

function client(): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-test', maxRetries: 0 });
}

/** Runs the tool runner (non-streaming) until the model stops calling tools. */
async function runAgent(tools: Parameters<Anthropic['beta']['messages']['toolRunner']>[0]['tools']) {
  return client().beta.messages.toolRunner({
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Remember that I like green tea.' }],
    tools,
  });
}

describe('memoryTool with the Anthropic SDK tool runner', () => {
  test('a turn with several memory calls: exact tool_result blocks, in order, and the files in the store', async () => {
    const { store, driver } = slowCreateStore();
    server.script(turn, finalTurn);

    const final = await runAgent([memoryTool(store)]);

    expect(final.content).toEqual(finalTurn);
    expect(server.requests).toHaveLength(2);
    expect(server.pending).toBe(0);
    const results = toolResultsOf(server.requests[1]!);
    expect(results).toEqual(expectedResults);
    expect(await filesOf(driver)).toEqual(expectedFiles);
  });

  test('control: the SDK runner starts the calls of a turn at once, so without the queue the edit overtakes the create', async () => {
    const { store, driver } = slowCreateStore();
    server.script(turn, finalTurn);

    await runAgent([betaMemoryTool(store)]);

    const results = toolResultsOf(server.requests[1]!);
    expect(results[1]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_02',
      content: `Error: The path ${NOTES} does not exist. Please provide a valid path.`,
      is_error: true,
    });
    expect(await filesOf(driver)).toEqual([{ path: 'notes.md', content: '# Notes\n- likes tea\n' }]);
  });

  test('the requests are plain (non-streaming) Messages requests with the tool definition and extra properties', async () => {
    server.script(turn, finalTurn);

    await runAgent([memoryTool(createInMemoryStore(), { cache_control: { type: 'ephemeral', ttl: '1h' } })]);

    expect(server.requests.map((request) => request.body.stream)).toEqual([false, false]);
    expect(server.requests[0]!.body.tools).toEqual([
      { cache_control: { type: 'ephemeral', ttl: '1h' }, type: 'memory_20250818', name: 'memory' },
    ]);
  });

  test('several turns: each turn sees the files of the turns before', async () => {
    const store = createInMemoryStore();
    server.script(
      [memoryCall('toolu_a', { command: 'create', path: '/memories/a.md', file_text: 'one' })],
      [
        memoryCall('toolu_b', {
          command: 'insert',
          path: '/memories/a.md',
          insert_line: 1,
          insert_text: 'two\n',
        }),
      ],
      [memoryCall('toolu_c', { command: 'view', path: '/memories/a.md' })],
      finalTurn,
    );

    await runAgent([memoryTool(store)]);

    expect(server.requests.slice(1).map(toolResultsOf)).toEqual([
      [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_a',
          content: 'File created successfully at: /memories/a.md',
        },
      ],
      [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'The file /memories/a.md has been edited.' }],
      [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_c',
          content: "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\ttwo",
        },
      ],
    ]);
  });

  test('invalid input from the model is an error result, and nothing is written', async () => {
    const store = createInMemoryStore();
    server.script(
      [
        memoryCall('toolu_x', { command: 'create', path: '/memories/a.md' }),
        memoryCall('toolu_y', { command: 'explode', path: '/memories/a.md' }),
        memoryCall('toolu_z', { command: 'view', path: '/etc/passwd' }),
      ],
      finalTurn,
    );

    await runAgent([memoryTool(store)]);

    expect(toolResultsOf(server.requests[1]!)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_x',
        content: 'Error: Invalid input for the `create` command: `file_text` must be a string, got nothing.',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_y',
        content:
          'Error: Unknown memory command `explode`. Expected one of: view, create, str_replace, insert, delete, rename.',
        is_error: true,
      },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_z',
        content: 'Error: Path must start with /memories, got: /etc/passwd',
        is_error: true,
      },
    ]);
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  });

  test('a custom store that throws a raw error: the model gets a fixed BACKEND text, no host path or stack', async () => {
    server.script([memoryCall('toolu_01', { command: 'view', path: '/memories' })], finalTurn);

    await runAgent([memoryTool(leakyStore() as MemoryStore)]);

    expect(toolResultsOf(server.requests[1]!)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_01', content: BACKEND_TEXT, is_error: true },
    ]);
    expect(server.requests[1]!.raw).not.toContain('/home/alice');
    expect(server.requests[1]!.raw).not.toContain('EACCES');
    expect(server.requests[1]!.raw).not.toMatch(/\bat .*\(/);
  });
});
