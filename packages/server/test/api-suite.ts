// The memory stores API on each store: the conformance kit (`@memdir/conformance/api`, Anthropic's
// SDK against a real `memdir serve --http`), and what only memdir has: the memory tool on the same
// store (MCP), and a server log free of stacks after the kit's hostile input.
import { createHash } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import { describeMemoryStoresApi } from '@memdir/conformance/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, refusal, startApiServer } from './api-server.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function apiSuite(label: string, storeUrl: () => string): void {
  let server: ApiServer | undefined;
  describeMemoryStoresApi({
    name: `memdir serve --http on the ${label} store`,
    memdir: true,
    async connect() {
      server = await startApiServer(storeUrl());
      return { baseUrl: server.origin, token: await server.token('admin', '--stores'), apiKeyId: 'admin' };
    },
    createToken: ({ name, store, readOnly }) =>
      server!.token(
        `${name}-${label}`,
        ...(store === undefined ? ['--stores'] : ['--namespace', store]),
        ...(readOnly === true ? ['--read-only'] : []),
      ),
    disconnect: async () => {
      // No error body or log line of the whole run holds a stack.
      const log = server?.stderr() ?? '';
      await server?.stop();
      expect(log).not.toContain('    at ');
    },
  });

  describe(`the memory stores API on the ${label} store, beside memdir's memory tool`, () => {
    let server: ApiServer;
    let admin: Anthropic;

    beforeAll(async () => {
      server = await startApiServer(storeUrl());
      admin = server.client(await server.token('admin', '--stores'));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    }, 60_000);

    it('is one store behind two doors: the memory tool and the API see the same files and history', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'two doors' });
      const token = await server.token(`agent-${label}`, '--namespace', store.id);
      const mcp = new Client({ name: 'api-test', version: '1.0.0' });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const tool = async (args: Record<string, unknown>) => {
        const result = (await mcp.callTool({ name: 'memory', arguments: args })) as {
          content: { text: string }[];
          isError?: boolean;
        };
        return { text: result.content[0]!.text, isError: result.isError === true };
      };
      try {
        expect(
          await tool({ command: 'create', path: '/memories/agent.md', file_text: 'from the agent' }),
        ).toEqual({
          text: 'File created successfully at: /memories/agent.md',
          isError: false,
        });
        const listed = await admin.beta.memoryStores.memories.list(store.id);
        expect(listed.data).toEqual([
          expect.objectContaining({
            path: '/agent.md',
            content_sha256: sha('from the agent'),
            content_size_bytes: 14,
          }),
        ]);
        const memoryId = (listed.data[0] as { id: string }).id;
        const versions = await admin.beta.memoryStores.memoryVersions.list(store.id, { memory_id: memoryId });
        expect(versions.data.map((version) => [version.operation, version.created_by])).toEqual([
          ['created', { type: 'api_actor', api_key_id: `agent-${label}` }],
        ]);
        await admin.beta.memoryStores.memories.create(store.id, { path: '/api.md', content: 'from the API' });
        expect((await tool({ command: 'view', path: '/memories/api.md' })).text).toContain('from the API');
        const sessionClient = server.client(token, { defaultHeaders: { 'memdir-session-id': 'sess-1' } });
        const updated = await sessionClient.beta.memoryStores.memories.update(memoryId, {
          memory_store_id: store.id,
          content: 'changed',
        });
        const newest = await admin.beta.memoryStores.memoryVersions.retrieve(updated.memory_version_id, {
          memory_store_id: store.id,
        });
        expect(newest.created_by).toEqual({ type: 'session_actor', session_id: 'sess-1' });

        await admin.beta.memoryStores.archive(store.id);
        const refused = await tool({ command: 'create', path: '/memories/late.md', file_text: 'x' });
        expect(refused.isError).toBe(true);
        expect(refused.text).toContain('this memory store is archived');
        const archivedWrite = await refusal(
          admin.beta.memoryStores.memories.create(store.id, { path: '/late.md', content: 'x' }),
        );
        expect(archivedWrite.status).toBe(400);
        // Reads, deletes and redactions stay allowed on an archived store.
        expect(
          await admin.beta.memoryStores.memories.delete(memoryId, { memory_store_id: store.id }),
        ).toEqual({
          id: memoryId,
          type: 'memory_deleted',
        });
        const after = await admin.beta.memoryStores.memoryVersions.list(store.id, { memory_id: memoryId });
        expect(after.data.map((version) => version.operation)).toEqual(['deleted', 'modified', 'created']);
        // Deleting the store erases its namespace: the memory tool finds nothing there any more.
        expect((await tool({ command: 'view', path: '/memories/api.md' })).text).toContain('from the API');
        await admin.beta.memoryStores.delete(store.id);
        expect(await tool({ command: 'view', path: '/memories/api.md' })).toEqual({
          text: 'Error: The path /memories/api.md does not exist. Please provide a valid path.',
          isError: true,
        });
        expect((await refusal(admin.beta.memoryStores.memoryVersions.list(store.id))).status).toBe(404);
      } finally {
        await mcp.close();
      }
    });
  });
}
