// Tool `arguments` that are not an object reach the engine on both transports of `memdir serve`:
// the model reads the INVALID_INPUT text as a tool error, not a JSON-RPC error with a zod dump
// (SPEC section 7). And stdio calls carry the client's name and the request id to the store.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, httpClient, startHttpServer } from './http-server.js';
import { installRecordingAdapter } from './recording-adapter.js';

const NOT_AN_OBJECT = 'Error: Invalid memory tool input: expected an object with a `command` field, got';
const CASES: Array<[unknown, string]> = [
  ['view', `${NOT_AN_OBJECT} the string "view".`],
  [42, `${NOT_AN_OBJECT} the number 42.`],
  [true, `${NOT_AN_OBJECT} a boolean.`],
  [[{ command: 'view', path: '/memories' }], `${NOT_AN_OBJECT} an array.`],
];

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stdioClient(
  args: string[],
  cwd?: string,
  env: Record<string, string> = {},
  name = 'stdio-test-client',
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args],
    env: cliEnv(env) as Record<string, string>,
    ...(cwd === undefined ? {} : { cwd }),
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

/** A raw `tools/call` whose arguments are sent as given (the SDK's callTool would refuse them). */
function rawCall(client: Client, args: unknown) {
  return client.request(
    { method: 'tools/call', params: { name: 'memory', arguments: args as Record<string, unknown> } },
    CallToolResultSchema,
  );
}

async function expectInvalidInputResults(client: Client): Promise<void> {
  for (const [args, text] of CASES) {
    expect(await rawCall(client, args), JSON.stringify(args)).toEqual({
      content: [{ type: 'text', text }],
      isError: true,
    });
  }
  const withNull = await rawCall(client, null);
  expect(withNull.isError).toBe(true);
  expect((withNull.content as Array<{ text: string }>)[0]!.text).toMatch(/^Error: /);
  // A tools/call without a tool name is a protocol error still, and the server serves on.
  await expect(
    client.request({ method: 'tools/call', params: { arguments: {} } as never }, CallToolResultSchema),
  ).rejects.toThrow(/tools\/call needs params\.name/);
  expect(
    await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/none.md' } }),
  ).toEqual({
    content: [
      {
        type: 'text',
        text: 'Error: The path /memories/none.md does not exist. Please provide a valid path.',
      },
    ],
    isError: true,
  });
}

describe('tools/call with arguments that are not an object', () => {
  it('over stdio: the INVALID_INPUT text as a tool error', async () => {
    await expectInvalidInputResults(await stdioClient(['--store', 'memory:']));
  });

  describe('over HTTP', () => {
    let target: HttpServerProcess;
    let token: string;
    beforeAll(async () => {
      const folder = await tempFolder();
      cleanups.push(folder.remove);
      const tokens = join(folder.path, 'tokens.json');
      token = await addToken(tokens, 'alice', 'alice');
      target = await startHttpServer(['--store', 'memory:', '--tokens', tokens]);
      cleanups.push(target.stop);
    });

    it('the INVALID_INPUT text as a tool error', async () => {
      const client = await httpClient(target, token);
      cleanups.push(() => client.close());
      await expectInvalidInputResults(client);
      await target.waitFor(/token=alice method=tools\/call command=invalid outcome=INVALID_INPUT status=200/);
    });
  });
});

describe('memdir serve over stdio: attribution', () => {
  it("every call carries the MCP client's name as a session actor and the request id as toolUseId", async () => {
    const folder = await tempFolder();
    cleanups.push(folder.remove);
    await installRecordingAdapter(folder.path);
    const record = join(folder.path, 'calls.jsonl');
    const client = await stdioClient(['--store', 'recording://x'], folder.path, {
      MEMDIR_TEST_RECORD: record,
    });
    await client.callTool({
      name: 'memory',
      arguments: { command: 'create', path: '/memories/a.md', file_text: 'x' },
    });
    await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/a.md' } });
    const calls = (await readFile(record, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { command: string; options: unknown });
    // The first line is the CLI's check that the store answers, before it serves.
    expect(calls.slice(1)).toEqual([
      {
        namespace: null,
        command: 'create',
        options: { actor: { type: 'session', id: 'stdio-test-client' }, toolUseId: '1' },
      },
      {
        namespace: null,
        command: 'view',
        options: { actor: { type: 'session', id: 'stdio-test-client' }, toolUseId: '2' },
      },
    ]);
  });

  it('a client name with control characters is kept escaped (core refuses them raw), and the call works', async () => {
    const folder = await tempFolder();
    cleanups.push(folder.remove);
    await installRecordingAdapter(folder.path);
    const record = join(folder.path, 'calls.jsonl');
    const client = await stdioClient(
      ['--store', 'recording://x'],
      folder.path,
      { MEMDIR_TEST_RECORD: record },
      'evil\u001b]0;title\u0007\u202e',
    );
    const result = await client.callTool({
      name: 'memory',
      arguments: { command: 'create', path: '/memories/a.md', file_text: 'x' },
    });
    expect(result.isError).toBeFalsy();
    const calls = (await readFile(record, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { options: { actor: { id: string } } });
    expect(calls[1]?.options.actor).toEqual({ type: 'session', id: 'evil\\u001b]0;title\\u0007\\u202e' });
  });
});
