// The limits of a memory store (API.md, section 3): `memdir serve --http --store-max-memories N
// --store-max-bytes N --store-max-memory-bytes N` are the store namespace's quota and file limit, met
// by the API's writes and the memory tool's alike, and refused with nothing written.
import type Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, refusal, startApiServer } from './api-server.js';

describe('the limits of a memory store', () => {
  let server: ApiServer;
  let admin: Anthropic;

  beforeAll(async () => {
    server = await startApiServer('memory:', [
      '--store-max-memories',
      '2',
      '--store-max-bytes',
      '15',
      '--store-max-memory-bytes',
      '10',
    ]);
    admin = server.client(await server.token('admin', '--stores'));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses a memory over the per-memory limit, one memory too many and a byte too many, writing nothing', async () => {
    const store = await admin.beta.memoryStores.create({ name: 'limits' });
    const memories = admin.beta.memoryStores.memories;

    const large = await refusal(memories.create(store.id, { path: '/large.md', content: 'x'.repeat(11) }));
    expect(large.status).toBe(400);
    expect(large.error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: "The content for /large.md is larger than this store's file limit.",
        details: { error_code: 'TOO_LARGE' },
      },
    });

    await memories.create(store.id, { path: '/a.md', content: 'x'.repeat(10) });
    const bytes = await refusal(memories.create(store.id, { path: '/b.md', content: 'x'.repeat(6) }));
    expect(bytes.status).toBe(400);
    expect(bytes.error).toMatchObject({
      error: {
        message:
          'The memory directory is full: saving /b.md would use 16 of 15 bytes. Delete or shorten files in the store first.',
        details: { error_code: 'QUOTA_EXCEEDED' },
      },
    });

    await memories.create(store.id, { path: '/b.md', content: 'x'.repeat(5) });
    const files = await refusal(memories.create(store.id, { path: '/c.md', content: '' }));
    expect(files.status).toBe(400);
    expect(files.error).toMatchObject({
      error: {
        message: 'The memory directory is full: it holds 2 of 2 files. Delete files in the store first.',
        details: { error_code: 'QUOTA_EXCEEDED' },
      },
    });

    const listed = await memories.list(store.id);
    expect(
      listed.data.map((memory) => [
        memory.path,
        (memory as { content_size_bytes: number }).content_size_bytes,
      ]),
    ).toEqual([
      ['/a.md', 10],
      ['/b.md', 5],
    ]);
  });

  it('holds the memory tool in the store to the same limits; other namespaces have none', async () => {
    const store = await admin.beta.memoryStores.create({ name: 'tool limits' });
    const mcpFor = async (token: string) => {
      const mcp = new Client({ name: 'limits-test', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return mcp;
    };
    const call = async (mcp: Client, args: Record<string, unknown>) => {
      const result = (await mcp.callTool({ name: 'memory', arguments: args })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      return { text: result.content[0]!.text, isError: result.isError === true };
    };

    const agent = await mcpFor(await server.token('agent', '--namespace', store.id));
    const other = await mcpFor(await server.token('other', '--namespace', 'plain-namespace'));
    try {
      const large = await call(agent, {
        command: 'create',
        path: '/memories/large.md',
        file_text: 'x'.repeat(11),
      });
      expect(large).toEqual({
        text: 'Error: File /memories/large.md would be 11 bytes, over the limit of 10 bytes. Nothing was written.',
        isError: true,
      });
      expect(await call(agent, { command: 'create', path: '/memories/a.md', file_text: 'ok' })).toEqual({
        text: 'File created successfully at: /memories/a.md',
        isError: false,
      });
      expect(
        (await admin.beta.memoryStores.memories.list(store.id)).data.map((memory) => memory.path),
      ).toEqual(['/a.md']);

      // A namespace that is no memory store keeps the server's own limits.
      expect(
        await call(other, { command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(1000) }),
      ).toEqual({
        text: 'File created successfully at: /memories/big.md',
        isError: false,
      });
    } finally {
      await agent.close();
      await other.close();
    }
  });
});
