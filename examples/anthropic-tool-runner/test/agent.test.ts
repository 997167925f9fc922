// Runs the example offline: the real SDK tool runner against the scripted Messages API of @memdir/core's
// tests, writing to a real folder through @memdir/fs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  memoryCall,
  type ScriptedMessagesServer,
  startScriptedMessagesServer,
  toolResultsOf,
} from '../../../packages/core/test/integrations/scripted-messages-server.js';
import { runAgent } from '../src/agent.js';

let server: ScriptedMessagesServer;
let root: string;

beforeAll(async () => {
  server = await startScriptedMessagesServer();
  root = await mkdtemp(join(tmpdir(), 'memdir-example-'));
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

test('without ANTHROPIC_API_KEY it says what it needs, and sends nothing', async () => {
  const lines: string[] = [];
  await runAgent({ env: {}, root, prompt: 'hi', log: (line) => lines.push(line) });
  expect(lines[0]).toBe('This example talks to Claude, so it needs an Anthropic API key.');
  expect(server.requests).toHaveLength(0);
});

test('with a key, Claude reads and writes the memory folder through the tool runner', async () => {
  server.script(
    [
      { type: 'text', text: 'Let me check my memory.' },
      memoryCall('toolu_01', { command: 'view', path: '/memories/trips.md' }),
    ],
    [
      memoryCall('toolu_02', {
        command: 'create',
        path: '/memories/trips.md',
        file_text: '- Lisbon in May\n',
      }),
      memoryCall('toolu_03', {
        command: 'str_replace',
        path: '/memories/trips.md',
        old_str: 'May',
        new_str: 'May, quiet areas',
      }),
    ],
    [{ type: 'text', text: 'Noted for next time.' }],
  );
  const lines: string[] = [];

  await runAgent({
    env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url },
    root,
    prompt: 'Plan Lisbon.',
    log: (line) => lines.push(line),
  });

  expect(await readFile(join(root, 'memories', 'trips.md'), 'utf8')).toBe('- Lisbon in May, quiet areas\n');
  expect(toolResultsOf(server.requests[1]!)).toEqual([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_01',
      content: 'Error: The path /memories/trips.md does not exist. Please provide a valid path.',
      is_error: true,
    },
  ]);
  expect(toolResultsOf(server.requests[2]!)).toEqual([
    {
      type: 'tool_result',
      tool_use_id: 'toolu_02',
      content: 'File created successfully at: /memories/trips.md',
    },
    {
      type: 'tool_result',
      tool_use_id: 'toolu_03',
      content:
        'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
        '     1\t- Lisbon in May, quiet areas\n     2\t',
    },
  ]);
  expect(server.requests[0]!.body['betas'] ?? server.requests[0]!.headers['anthropic-beta']).toContain(
    'context-management-2025-06-27',
  );
  expect(lines).toContain('claude: Noted for next time.');
  expect(lines).toContain('  -> File created successfully at: /memories/trips.md');
  expect(lines).toContain(
    '  -> error Error: The path /memories/trips.md does not exist. Please provide a valid path.',
  );
});
