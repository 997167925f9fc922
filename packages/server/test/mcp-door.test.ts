// The stateless MCP door with the MCP SDK's own client: any request may reach any process, as
// behind a round-robin balancer with no stickiness.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMemdirServer, mcpDoor, SessionLabels, TokenTable } from '../src/index.js';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');
const tokens = new TokenTable([
  { name: 'alice', namespace: 'team-a', mode: 'read-write', sha256: sha('memdir_alice') },
  { name: 'bob', namespace: 'team-b', mode: 'read-write', sha256: sha('memdir_bob') },
]);

/** One "process": its own memdir server over a store shared with the others. */
function process(shared: string[], sessions?: SessionLabels) {
  const server = createMemdirServer({
    tokens: () => tokens,
    ready: async () => true,
    ratePerSecond: 1000,
    burst: 1000,
  });
  server.door(
    '/mcp',
    mcpDoor({
      server: (grant) => {
        const mcp = new Server({ name: 'test', version: '0' }, { capabilities: { tools: {} } });
        mcp.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: 'append', inputSchema: { type: 'object' } }],
        }));
        mcp.setRequestHandler(CallToolRequestSchema, (request) => {
          shared.push(`${grant.namespace}:${String(request.params.arguments?.line)}`);
          return { content: [{ type: 'text', text: `${shared.length}` }] };
        });
        return mcp;
      },
      sessions,
    }),
  );
  return server;
}

describe('mcpDoor', () => {
  it('the SDK client works through two processes taking requests in turn', async () => {
    const shared: string[] = [];
    const processes = [process(shared), process(shared)];
    const served = [0, 0];
    let turn = 0;
    const fetch = async (url: string | URL, init?: RequestInit) => {
      const index = turn++ % processes.length;
      served[index]!++;
      return processes[index]!.fetch(new Request(url, init));
    };
    const transport = new StreamableHTTPClientTransport(new URL('http://memdir.test/mcp'), {
      fetch,
      requestInit: { headers: { authorization: 'Bearer memdir_alice' } },
    });
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
    for (let index = 0; index < 10; index++) {
      const result = await client.callTool({ name: 'append', arguments: { line: index } });
      expect(result.isError).toBeFalsy();
    }
    await client.close();
    expect(shared).toEqual(Array.from({ length: 10 }, (_, index) => `team-a:${index}`));
    expect(served[0]).toBeGreaterThan(3);
    expect(served[1]).toBeGreaterThan(3);
  });

  it('a session label made by one process is accepted by another, refused with another token, and ended by DELETE where it is sent', async () => {
    const shared: string[] = [];
    const labels = [new SessionLabels(), new SessionLabels()];
    const processes = [process(shared, labels[0]), process(shared, labels[1])];
    let turn = 0;
    const fetch = async (url: string | URL, init?: RequestInit) =>
      processes[turn++ % processes.length]!.fetch(new Request(url, init));
    const transport = new StreamableHTTPClientTransport(new URL('http://memdir.test/mcp'), {
      fetch,
      requestInit: { headers: { authorization: 'Bearer memdir_alice' } },
    });
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
    const label = transport.sessionId!;
    expect(label).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (let index = 0; index < 4; index++) {
      expect((await client.callTool({ name: 'append', arguments: { line: index } })).isError).toBeFalsy();
    }
    const list = (token: string, target: number) =>
      processes[target]!.fetch(
        new Request('http://memdir.test/mcp', {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': label,
          },
        }),
      );
    expect([(await list('memdir_bob', 0)).status, (await list('memdir_bob', 1)).status]).toEqual([404, 404]);
    expect([(await list('memdir_alice', 0)).status, (await list('memdir_alice', 1)).status]).toEqual([
      200, 200,
    ]);
    const ended = await processes[0]!.fetch(
      new Request('http://memdir.test/mcp', {
        method: 'DELETE',
        headers: { authorization: 'Bearer memdir_alice', 'mcp-session-id': label },
      }),
    );
    expect(ended.status).toBe(200);
    expect((await list('memdir_alice', 0)).status).toBe(404);
    expect(shared).toEqual(['team-a:0', 'team-a:1', 'team-a:2', 'team-a:3']);
    for (const each of labels) each.closeAll('test over');
  });

  it('a batch over 100 messages is refused before any element runs', async () => {
    const shared: string[] = [];
    const server = process(shared);
    const call = { jsonrpc: '2.0', method: 'tools/call', params: { name: 'append', arguments: { line: 1 } } };
    const batch = Array.from({ length: 101 }, (_, id) => ({ ...call, id }));
    const response = await server.fetch(
      new Request('http://memdir.test/mcp', {
        method: 'POST',
        body: JSON.stringify(batch),
        headers: {
          authorization: 'Bearer memdir_alice',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      }),
    );
    expect(response.status).toBe(400);
    expect(shared).toEqual([]);
  });

  it('GET is 405: no server-sent stream', async () => {
    const server = process([]);
    const response = await server.fetch(
      new Request('http://memdir.test/mcp', { headers: { authorization: 'Bearer memdir_alice' } }),
    );
    expect(response.status).toBe(405);
  });
});
