// `memdir serve` reaches the model only through core's integration layer: a store's raw error never
// reaches it, and a message over the MCP SDK's size limit is refused without stopping the server.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInMemoryStore, type MemoryStore } from '@memdir/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer, MAX_MCP_MESSAGE_BYTES } from '../src/serve.js';
import { BIN, cliEnv, tempFolder } from './helpers.js';

const BACKEND_TEXT =
  'Error: The memory store is unavailable: the storage backend failed unexpectedly. Try again.';
const SECRET = 'ECONNREFUSED postgres://admin:hunter2@10.0.0.5/db';

/** A hand-written store (not built on the engine) whose every command throws a raw error. */
function leakyStore(): MemoryStore {
  const fail = async (): Promise<string> => {
    throw new Error(SECRET);
  };
  return {
    view: fail,
    create: fail,
    str_replace: fail,
    insert: fail,
    delete: fail,
    rename: fail,
    execute: fail,
    close: async () => {},
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function inProcessClient(store: MemoryStore): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(store);
  await server.connect(serverSide);
  const client = new Client({ name: 'memdir-test', version: '0.0.0' });
  await client.connect(clientSide);
  cleanups.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

describe('memdir serve: one way to the model', () => {
  it("a custom store's raw error text reaches the model as the fixed BACKEND text", async () => {
    const client = await inProcessClient(leakyStore());
    const result = await client.callTool({
      name: 'memory',
      arguments: { command: 'view', path: '/memories' },
    });
    expect(result).toEqual({ content: [{ type: 'text', text: BACKEND_TEXT }], isError: true });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('the same holds for a third-party adapter loaded by `memdir serve --store leaky://...`', async () => {
    const folder = await tempFolder();
    cleanups.push(folder.remove);
    const adapter = join(folder.path, 'node_modules', 'memdir-store-leaky');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({ name: 'memdir-store-leaky', type: 'module', exports: { './cli': './cli.js' } }),
    );
    await writeFile(
      join(adapter, 'cli.js'),
      // Reads work (memdir checks that a store answers a view before it serves it, and a store
      // that answers nothing exits 2 instead), writes fail with a raw error naming a secret.
      `export function openStore() {
        const fail = async () => { throw new Error(${JSON.stringify(SECRET)}); };
        const execute = async (input) => (input.command === 'view' ? 'nothing here' : fail());
        return { view: execute, create: fail, str_replace: fail, insert: fail, delete: fail, rename: fail, execute, async close() {} };
      }`,
    );
    const server = rawServer(['--store', 'leaky://db'], folder.path);
    cleanups.push(server.stop);
    await server.initialize();
    const reply = await server.request('tools/call', {
      name: 'memory',
      arguments: { command: 'create', path: '/memories/a.md', file_text: 'x' },
    });
    expect(reply.result).toEqual({ content: [{ type: 'text', text: BACKEND_TEXT }], isError: true });
    expect(server.stdout()).not.toContain('hunter2');
  });

  it('an unknown tool name is an isError result through the same rendering', async () => {
    const client = await inProcessClient(createInMemoryStore());
    expect(await client.callTool({ name: 'remember', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Error: Unknown tool remember: this server has only "memory"' }],
      isError: true,
    });
  });
});

/** `memdir serve` in a child process, spoken to in raw JSON-RPC lines. */
function rawServer(args: string[], cwd?: string) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd,
    env: cliEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let nextId = 1;

  function reply(
    id: number,
  ): Promise<{ id: number; result?: unknown; error?: { code: number; message: string } }> {
    return new Promise((resolve, reject) => {
      const look = () => {
        for (const line of out.split('\n')) {
          if (line.trim() === '') continue;
          const message = JSON.parse(line) as { id?: number };
          if (message.id === id) return resolve(message as never);
        }
        if (child.exitCode !== null) return reject(new Error(`server exited: ${err}`));
        waiters.push(look);
      };
      look();
    });
  }

  function send(text: string): Promise<void> {
    return new Promise((resolve, reject) =>
      child.stdin.write(text, (error) => (error ? reject(error) : resolve())),
    );
  }

  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    send,
    async request(method: string, params: unknown) {
      const id = nextId++;
      await send(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return reply(id);
    },
    reply,
    nextId: () => nextId++,
    async initialize() {
      await this.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      await send(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    },
    async stop() {
      child.stdin.end();
      if (
        (await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('late'), 5000))])) ===
        'late'
      ) {
        child.kill('SIGKILL');
      }
    },
  };
}

describe('memdir serve: messages over the size limit', () => {
  it('a tools/call larger than the limit gets a clear isError result and the server keeps serving', async () => {
    const server = rawServer(['--store', 'memory:']);
    cleanups.push(server.stop);
    await server.initialize();
    // The MCP SDK's client puts the id last: {"method":...,"params":{...},"jsonrpc":"2.0","id":N}.
    const id = server.nextId();
    const huge = 'x'.repeat(MAX_MCP_MESSAGE_BYTES + 1024);
    const line = JSON.stringify({
      method: 'tools/call',
      params: { name: 'memory', arguments: { command: 'create', path: '/memories/big.md', file_text: huge } },
      jsonrpc: '2.0',
      id,
    });
    await server.send(`${line}\n`);
    const refused = await server.reply(id);
    expect(refused.result).toEqual({
      content: [
        {
          type: 'text',
          text: `Error: The memory tool call was not run: its request is ${Buffer.byteLength(line)} bytes, more than the ${MAX_MCP_MESSAGE_BYTES} bytes this server reads in one message. Send large content in parts (create a file, then insert the rest).`,
        },
      ],
      isError: true,
    });
    // Nothing was written, and the next call is served.
    const view = await server.request('tools/call', {
      name: 'memory',
      arguments: { command: 'view', path: '/memories' },
    });
    expect(view.result).toEqual({
      content: [
        {
          type: 'text',
          text: "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
        },
      ],
    });
    expect(server.stderr()).toContain(
      `memdir: refused a ${Buffer.byteLength(line)}-byte message (tools/call)`,
    );
  });

  it('an oversized request that is not a tool call gets a JSON-RPC error; one without an id is only logged', async () => {
    const server = rawServer(['--store', 'memory:']);
    cleanups.push(server.stop);
    await server.initialize();
    const id = server.nextId();
    const padding = 'y'.repeat(MAX_MCP_MESSAGE_BYTES + 10);
    await server.send(
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { padding } })}\n`,
    );
    const refused = await server.reply(id);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toContain(`larger than the ${MAX_MCP_MESSAGE_BYTES} bytes`);
    await server.send(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { padding } })}\n`,
    );
    const list = await server.request('tools/list', {});
    expect((list.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toEqual([
      'memory',
    ]);
  });

  it('a result larger than the transport carries is replaced by an error saying so', async () => {
    const store = createInMemoryStore({ maxViewChars: 8 * 1024 * 1024, maxFileBytes: 8 * 1024 * 1024 });
    await store.create({
      command: 'create',
      path: '/memories/wide.md',
      file_text: 'z'.repeat(6 * 1024 * 1024),
    });
    const client = await inProcessClient(store);
    const result = await client.callTool({
      name: 'memory',
      arguments: { command: 'view', path: '/memories/wide.md' },
    });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
      /^Error: The memory command ran, but its result is \d+ bytes, more than the \d+ bytes this server sends in one message\./,
    );
  });
});
