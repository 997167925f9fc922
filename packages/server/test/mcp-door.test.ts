// The stateless MCP door with the MCP SDK's own client: any request may reach any process, as
// behind a round-robin balancer with no stickiness.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMemdirServer, mcpDoor, TokenTable } from '../src/index.js';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');
const tokens = new TokenTable([
  { name: 'alice', namespace: 'team-a', mode: 'read-write', sha256: sha('memdir_alice') },
]);

/** One "process": its own memdir server over a store shared with the others. */
function process(shared: string[]) {
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
