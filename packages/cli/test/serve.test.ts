import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** An MCP client connected to `memdir serve` in a child process, over stdio. */
async function connect(args: string[], cwd?: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args],
    env: cliEnv() as Record<string, string>,
    ...(cwd === undefined ? {} : { cwd }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'memdir-test', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

describe('memdir serve (MCP over stdio)', () => {
  it('lists one tool, memory, with the six-command input schema', async () => {
    const { client } = await connect(['--store', 'memory:']);
    expect(client.getServerVersion()?.name).toBe('memdir');
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool!.name).toBe('memory');
    expect(tool!.description).toContain('/memories');
    expect(tool!.inputSchema.type).toBe('object');
    expect(tool!.inputSchema.required).toEqual(['command']);
    expect((tool!.inputSchema.properties as Record<string, { enum?: string[] }>).command!.enum).toEqual([
      'view',
      'create',
      'str_replace',
      'insert',
      'delete',
      'rename',
    ]);
    expect(Object.keys(tool!.inputSchema.properties ?? {}).sort()).toEqual(
      [
        'command',
        'path',
        'view_range',
        'file_text',
        'old_str',
        'new_str',
        'insert_line',
        'insert_text',
        'old_path',
        'new_path',
      ].sort(),
    );
  });

  it('runs create then view and returns the exact result texts', async () => {
    const { client } = await connect(['--store', 'memory:']);
    expect(
      await client.callTool({
        name: 'memory',
        arguments: { command: 'create', path: '/memories/notes.md', file_text: 'Likes tea\nHates rain' },
      }),
    ).toEqual({ content: [{ type: 'text', text: 'File created successfully at: /memories/notes.md' }] });
    expect(
      await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/notes.md' } }),
    ).toEqual({
      content: [
        {
          type: 'text',
          text: "Here's the content of /memories/notes.md with line numbers:\n     1\tLikes tea\n     2\tHates rain",
        },
      ],
    });
  });

  it('a failing command is an isError result with "Error: " + message', async () => {
    const { client } = await connect(['--store', 'memory:']);
    expect(
      await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/missing.md' } }),
    ).toEqual({
      content: [
        {
          type: 'text',
          text: 'Error: The path /memories/missing.md does not exist. Please provide a valid path.',
        },
      ],
      isError: true,
    });
    expect(
      await client.callTool({ name: 'memory', arguments: { command: 'delete', path: '/memories' } }),
    ).toEqual({
      content: [{ type: 'text', text: 'Error: Cannot delete the /memories directory itself' }],
      isError: true,
    });
    const invalid = await client.callTool({ name: 'memory', arguments: { command: 'teleport' } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as Array<{ text: string }>)[0]!.text).toMatch(/^Error: /);
  });

  it('calls sent together run in the order they were sent', async () => {
    const { client } = await connect(['--store', 'memory:']);
    const results = await Promise.all([
      client.callTool({
        name: 'memory',
        arguments: { command: 'create', path: '/memories/a.md', file_text: 'one' },
      }),
      client.callTool({
        name: 'memory',
        arguments: { command: 'str_replace', path: '/memories/a.md', old_str: 'one', new_str: 'two' },
      }),
      client.callTool({
        name: 'memory',
        arguments: { command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'three' },
      }),
      client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/a.md' } }),
    ]);
    expect(results.map((result) => result.isError ?? false)).toEqual([false, false, false, false]);
    expect(results[3]).toEqual({
      content: [
        {
          type: 'text',
          text: "Here's the content of /memories/a.md with line numbers:\n     1\ttwo\n     2\tthree",
        },
      ],
    });
  });

  it('serves the file: store and logs only to stderr', async () => {
    const folder = await tempFolder();
    try {
      const { client, stderr } = await connect(
        ['--store', 'file:./data', '--namespace', 'agent'],
        folder.path,
      );
      await client.callTool({
        name: 'memory',
        arguments: { command: 'create', path: '/memories/kept.md', file_text: 'durable' },
      });
      await client.close();
      const files = await readFile(join(folder.path, 'data'), 'utf8').catch(
        (error: NodeJS.ErrnoException) => error.code,
      );
      expect(files).toBe('EISDIR');
      expect(stderr()).toContain('memdir: serving file:./data over MCP on stdio');
      // The namespace is a separate space of the same folder: reopen it and read the file back.
      const again = await connect(['--store', 'file:./data', '--namespace', 'agent'], folder.path);
      expect(
        await again.client.callTool({
          name: 'memory',
          arguments: { command: 'view', path: '/memories/kept.md' },
        }),
      ).toEqual({
        content: [
          {
            type: 'text',
            text: "Here's the content of /memories/kept.md with line numbers:\n     1\tdurable",
          },
        ],
      });
    } finally {
      await folder.remove();
    }
  });

  it('stdout carries only protocol messages, and calls sent before stdin closes are answered', async () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'memory', arguments: { command: 'create', path: '/memories/a.md', file_text: 'x' } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'memory',
          arguments: { command: 'rename', old_path: '/memories/b', new_path: '/memories/c' },
        },
      },
    ];
    const result = await runCli(['serve', '--store', 'memory:'], {
      input: messages.map((message) => `${JSON.stringify(message)}\n`).join(''),
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const replies = lines.map((line) => JSON.parse(line) as { id: number; result: unknown });
    expect(replies.map((reply) => reply.id)).toEqual([1, 2, 3]);
    expect(replies[1]!.result).toEqual({
      content: [{ type: 'text', text: 'File created successfully at: /memories/a.md' }],
    });
    expect(replies[2]!.result).toEqual({
      content: [{ type: 'text', text: 'Error: The path /memories/b does not exist' }],
      isError: true,
    });
    expect(result.stderr).toBe('memdir: serving memory: over MCP on stdio (tool "memory")\n');
  });

  it('an unknown tool name is an isError result', async () => {
    const { client } = await connect(['--store', 'memory:']);
    expect(await client.callTool({ name: 'remember', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Error: Unknown tool remember: this server has only "memory"' }],
      isError: true,
    });
  });
});

describe('the configurations in examples/mcp', () => {
  it.each(['claude_desktop_config.json', '.mcp.json'])('%s starts a working memdir server', async (file) => {
    const config = JSON.parse(
      await readFile(new URL(`../../../examples/mcp/${file}`, import.meta.url), 'utf8'),
    ) as { mcpServers: { memdir: { command: string; args: string[] } } };
    const { command, args } = config.mcpServers.memdir;
    expect(command).toBe('npx');
    // npx -y memdir serve ... : run the built CLI with what follows "memdir", in a scratch folder
    // (the absolute example folder is replaced by one of ours).
    const memdirArgs = args.slice(args.indexOf('memdir') + 1);
    expect(memdirArgs[0]).toBe('serve');
    const folder = await tempFolder();
    try {
      const store = memdirArgs.indexOf('--store') + 1;
      expect(memdirArgs[store]).toMatch(/^file:/);
      if (memdirArgs[store]!.startsWith('file:///')) memdirArgs[store] = `file://${folder.path}/memdir`;
      const { client } = await connect(memdirArgs.slice(1), folder.path);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['memory']);
      expect(
        await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories' } }),
      ).toEqual({
        content: [
          {
            type: 'text',
            text: "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
          },
        ],
      });
    } finally {
      await folder.remove();
    }
  });
});
