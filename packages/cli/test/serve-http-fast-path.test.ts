// `serve --http`'s fast path (a single tools/call answered past the MCP SDK's per-request server and
// transport) writes the bytes the SDK's path writes: the same requests, sent to a server with the
// fast path and to one without (each over its own in-memory store, given the same calls), get the
// same status, content type and body, and the MCP SDK's client works through both.
import { createHash } from 'node:crypto';
import { type Actor, createInMemoryStore, type MemoryStore } from '@memdir/core';
import { createMemdirServer, type MemdirServer, mcpDoor, TokenTable } from '@memdir/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { callMemoryTool, createMcpServer } from '../src/serve.js';

const SECRET = 'memdir_fast_path_test';
const tokens = new TokenTable([
  {
    name: 'alice',
    namespace: 'team',
    mode: 'read-write',
    sha256: createHash('sha256').update(SECRET).digest('hex'),
  },
]);
const ACCEPT = 'application/json, text/event-stream';

/** A server over its own store, as `serve --http` mounts the MCP door, with or without the fast path. */
function server(fastPath: boolean): { memdir: MemdirServer; fastCalls: () => number } {
  const store: MemoryStore = createInMemoryStore();
  let fastCalls = 0;
  const memdir = createMemdirServer({ tokens: () => tokens, ready: async () => true, ratePerSecond: 1e6 });
  memdir.door(
    '/mcp',
    mcpDoor({
      server: (grant) => createMcpServer(store, { actor: { type: 'user', id: grant.name } }),
      ...(fastPath && {
        toolCaller: (grant) => {
          const actor: Actor = { type: 'user', id: grant.name };
          return (call) => {
            fastCalls++;
            return callMemoryTool(store, call, actor);
          };
        },
      }),
    }),
  );
  return { memdir, fastCalls: () => fastCalls };
}

interface Sent {
  body: string;
  headers?: Record<string, string | undefined>;
}

async function send(memdir: MemdirServer, sent: Sent) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${SECRET}`,
    accept: ACCEPT,
    'content-type': 'application/json',
  };
  for (const [name, value] of Object.entries(sent.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const response = await memdir.fetch(
    new Request('http://memdir.test/mcp', { method: 'POST', headers, body: sent.body }),
  );
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    sessionId: response.headers.get('mcp-session-id'),
    body: await response.text(),
  };
}

const call = (args: unknown, id: unknown = 1, name: unknown = 'memory') =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** Valid calls of each command and the memory tool's errors, in order (each changes the stores alike). */
const COMMANDS: Sent[] = [
  { body: call({ command: 'create', path: '/memories/notes.md', file_text: 'one\ntwo\nthree' }) },
  { body: call({ command: 'create', path: '/memories/notes.md', file_text: 'again' }) },
  { body: call({ command: 'view', path: '/memories' }, 'view-1') },
  { body: call({ command: 'view', path: '/memories/notes.md', view_range: [2, -1] }, 7) },
  { body: call({ command: 'str_replace', path: '/memories/notes.md', old_str: 'two', new_str: '2' }) },
  { body: call({ command: 'str_replace', path: '/memories/notes.md', old_str: 'absent', new_str: 'x' }) },
  {
    body: call({
      command: 'insert',
      path: '/memories/notes.md',
      insert_line: 1,
      insert_text: 'one and a half',
    }),
  },
  { body: call({ command: 'insert', path: '/memories/notes.md', insert_line: 99, insert_text: 'late' }) },
  { body: call({ command: 'rename', old_path: '/memories/notes.md', new_path: '/memories/kept/notes.md' }) },
  { body: call({ command: 'view', path: '/memories/kept/notes.md' }, 0) },
  { body: call({ command: 'view', path: '/memories/missing.md' }) },
  { body: call({ command: 'view', path: '/etc/passwd' }) },
  { body: call({ command: 'delete', path: '/memories/kept' }) },
  { body: call({ command: 'delete', path: '/memories/kept' }) },
];

/** Bad params, unknown tools and methods, wrong JSON-RPC shapes, header variants. */
const ODD: Sent[] = [
  { body: call({ command: 'launch', path: '/memories' }) },
  { body: call({ path: '/memories' }) },
  { body: call('view /memories') },
  { body: call([1, 2]) },
  { body: call(null) },
  { body: call(undefined) },
  { body: call({ command: 'view', path: '/memories' }, 1, 'shell') },
  { body: call({ command: 'view', path: '/memories' }, 1, 42) },
  { body: call({ command: 'create', path: '/memories/a.md', file_text: 7 }) },
  { body: call({ command: 'view', path: '/memories', extra: true }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call' }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: [] }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } }) },
  {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'memory',
        arguments: { command: 'view', path: '/memories' },
        _meta: { progressToken: 3 },
      },
    }),
  },
  {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'memory', arguments: { command: 'view', path: '/memories' }, task: { ttl: 1000 } },
    }),
  },
  { body: call({ command: 'view', path: '/memories' }, 1.5) },
  { body: call({ command: 'view', path: '/memories' }, null) },
  { body: call({ command: 'view', path: '/memories' }, { nested: 1 }) },
  { body: call({ command: 'view', path: '/memories' }, 2 ** 53) },
  { body: call({ command: 'view', path: '/memories' }, -3) },
  { body: call({ command: 'view', path: '/memories' }, '\u0007bell\u202e') },
  { body: JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'tools/call', params: { name: 'memory' } }) },
  { body: JSON.stringify({ id: 1, method: 'tools/call', params: { name: 'memory' } }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'memory' }, x: 1 }) },
  { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory"},"__proto__":{}}' },
  { body: JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'memory' } }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }) },
  { body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }) },
  {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  },
  { body: `[${call({ command: 'view', path: '/memories' }, 1)},${call({ command: 'view', path: '/' }, 2)}]` },
  { body: `[${call({ command: 'view', path: '/memories' }, 1)}]` },
  { body: '[]' },
  { body: '"tools/call"' },
  { body: 'null' },
  { body: '{"jsonrpc":"2.0",' },
  { body: call({ command: 'view', path: '/memories' }), headers: { accept: undefined } },
  { body: call({ command: 'view', path: '/memories' }), headers: { accept: 'application/json' } },
  { body: call({ command: 'view', path: '/memories' }), headers: { accept: 'text/event-stream' } },
  { body: call({ command: 'view', path: '/memories' }), headers: { accept: '*/*' } },
  {
    body: call({ command: 'view', path: '/memories' }),
    headers: { accept: 'text/event-stream;q=0.5, application/json' },
  },
  { body: call({ command: 'view', path: '/memories' }), headers: { 'content-type': undefined } },
  { body: call({ command: 'view', path: '/memories' }), headers: { 'content-type': 'text/plain' } },
  {
    body: call({ command: 'view', path: '/memories' }),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  },
  { body: call({ command: 'view', path: '/memories' }), headers: { 'content-type': 'application/jsonx' } },
  { body: call({ command: 'view', path: '/memories' }), headers: { 'mcp-protocol-version': '2025-06-18' } },
  { body: call({ command: 'view', path: '/memories' }), headers: { 'mcp-protocol-version': '1999-01-01' } },
  { body: call({ command: 'view', path: '/memories' }), headers: { 'mcp-protocol-version': '' } },
];

describe('serve --http: the fast path answers as the MCP SDK does', () => {
  it('valid calls of each command and the tool errors: the same status, content type and body', async () => {
    const fast = server(true);
    const sdk = server(false);
    for (const sent of COMMANDS) {
      const [viaFast, viaSdk] = [await send(fast.memdir, sent), await send(sdk.memdir, sent)];
      expect({ sent, ...viaFast }).toEqual({ sent, ...viaSdk });
      expect(viaFast.status).toBe(200);
      expect(viaFast.contentType).toBe('application/json');
    }
    expect(fast.fastCalls()).toBe(COMMANDS.length);
    expect(sdk.fastCalls()).toBe(0);
  });

  it('bad params, unknown tools, other methods, wrong JSON-RPC shapes and header variants: the same answers', async () => {
    const fast = server(true);
    const sdk = server(false);
    const statuses = new Set<number>();
    for (const sent of ODD) {
      const [viaFast, viaSdk] = [await send(fast.memdir, sent), await send(sdk.memdir, sent)];
      expect({ sent, ...viaFast }).toEqual({ sent, ...viaSdk });
      statuses.add(viaFast.status);
    }
    // The list covers refusals of each kind, not only answered calls.
    expect([...statuses].sort()).toEqual([200, 202, 400, 406, 415]);
    // The fast path took the 13 plain calls (bad arguments and an unknown tool are tool errors; ids
    // -3 and a string; an Accept listing both types; a supported protocol version) and left the rest
    // to the SDK.
    expect(fast.fastCalls()).toBe(13);
  });

  it("the MCP SDK's client gets the same results through both", async () => {
    const results: unknown[][] = [];
    for (const fastPath of [true, false]) {
      const { memdir, fastCalls } = server(fastPath);
      const client = new Client({ name: 'memdir-test', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://memdir.test/mcp'), {
          fetch: (url, init) => memdir.fetch(new Request(url, init)),
          requestInit: { headers: { authorization: `Bearer ${SECRET}` } },
        }),
      );
      const seen: unknown[] = [await client.listTools()];
      for (const sent of COMMANDS) {
        const params = (
          JSON.parse(sent.body) as { params: { name: string; arguments: Record<string, unknown> } }
        ).params;
        seen.push(await client.callTool(params));
      }
      await client.close();
      expect(fastCalls()).toBe(fastPath ? COMMANDS.length : 0);
      results.push(seen);
    }
    expect(results[0]).toEqual(results[1]);
  });
});
