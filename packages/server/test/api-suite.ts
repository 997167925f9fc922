// The memory stores API's behaviour, one suite run against a server on each store.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { SessionMemoryStores } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, refusal, startApiServer } from './api-server.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function apiSuite(label: string, storeUrl: () => string): void {
  describe(`the memory stores API on the ${label} store`, () => {
    let server: ApiServer;
    let admin: Anthropic;
    let reader: Anthropic;
    const made = new Set<string>();

    beforeAll(async () => {
      server = await startApiServer(storeUrl());
      admin = server.client(await server.token('admin', '--stores'));
      // Every store this suite makes, to delete at the end.
      const create = admin.beta.memoryStores.create.bind(admin.beta.memoryStores);
      admin.beta.memoryStores.create = ((params, options) =>
        create(params, options).then((store) => {
          made.add(store.id);
          return store;
        })) as typeof admin.beta.memoryStores.create;
      reader = server.client(await server.token('reader', '--stores', '--read-only'));
    }, 60_000);
    afterAll(async () => {
      // Leave nothing on the servers: every store made here is deleted (namespace and registry entry).
      if (admin !== undefined) {
        for await (const store of admin.beta.memoryStores.list({ include_archived: true, limit: 100 })) {
          if (made.has(store.id)) await admin.beta.memoryStores.delete(store.id);
        }
      }
      await server?.stop();
    }, 60_000);

    it('creates, retrieves, updates, lists, archives and deletes stores', async () => {
      const created = await admin.beta.memoryStores.create({ name: 'notes', metadata: { team: 'a' } });
      expect(created).toEqual({
        id: expect.stringMatching(/^memstore_[0-9a-z]{26}$/),
        type: 'memory_store',
        name: 'notes',
        description: '',
        metadata: { team: 'a' },
        archived_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: created.created_at,
      });
      // memdir's extension on retrieve: what the store's namespace holds.
      expect(await admin.beta.memoryStores.retrieve(created.id)).toEqual({
        ...created,
        memdir_usage: { memories: 0, bytes: 0, versions: 0 },
      });
      const updated = await admin.beta.memoryStores.update(created.id, {
        description: 'team notes',
        metadata: { team: null, owner: 'b' },
      });
      expect(updated).toEqual({
        ...created,
        description: 'team notes',
        metadata: { owner: 'b' },
        updated_at: expect.stringMatching(ISO),
      });
      const same = await admin.beta.memoryStores.update(created.id, { name: 'notes' });
      expect(same).toEqual(updated);

      const list = await admin.beta.memoryStores.list();
      expect(list.data.map((store) => store.id)).toContain(created.id);

      const archived = await admin.beta.memoryStores.archive(created.id);
      expect(archived).toEqual({
        ...updated,
        archived_at: expect.stringMatching(ISO),
        updated_at: archived.archived_at,
      });
      expect(await admin.beta.memoryStores.archive(created.id)).toEqual(archived);
      const ids = async (params: Anthropic.Beta.MemoryStores.MemoryStoreListParams) => {
        const found: string[] = [];
        for await (const store of admin.beta.memoryStores.list(params)) found.push(store.id);
        return found;
      };
      expect(await ids({})).not.toContain(created.id);
      expect(await ids({ include_archived: true })).toContain(created.id);
      const refused = await refusal(admin.beta.memoryStores.update(created.id, { name: 'x' }));
      expect(refused.status).toBe(400);
      expect((refused.error as { error: { type: string } }).error.type).toBe('invalid_request_error');

      expect(await admin.beta.memoryStores.delete(created.id)).toEqual({
        id: created.id,
        type: 'memory_store_deleted',
      });
      const gone = await refusal(admin.beta.memoryStores.retrieve(created.id));
      expect(gone.status).toBe(404);
      expect(gone.error).toEqual({
        type: 'error',
        error: { type: 'not_found_error', message: `No memory store has the id "${created.id}".` },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(gone.headers?.get('x-should-retry')).toBe('false');
      expect(gone.requestID).toBe((gone.error as { request_id: string }).request_id);
    });

    it('creates, retrieves, updates, lists and deletes memories', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'memories' });
      const memories = admin.beta.memoryStores.memories;
      const created = await memories.create(store.id, { path: '/notes/a.md', content: 'hello' });
      expect(created).toEqual({
        id: expect.stringMatching(/^mem_/),
        type: 'memory',
        memory_store_id: store.id,
        path: '/notes/a.md',
        content: null,
        content_sha256: sha('hello'),
        content_size_bytes: 5,
        memory_version_id: expect.stringMatching(/^memver_/),
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect((await admin.beta.memoryStores.retrieve(store.id)) as unknown).toMatchObject({
        memdir_usage: { memories: 1, bytes: 5, versions: 1 },
      });
      expect(await memories.retrieve(created.id, { memory_store_id: store.id })).toEqual({
        ...created,
        content: 'hello',
      });
      const renamed = await memories.update(created.id, {
        memory_store_id: store.id,
        path: '/notes/b.md',
        content: 'héllo',
      });
      expect(renamed).toEqual({
        ...created,
        path: '/notes/b.md',
        content_sha256: sha('héllo'),
        content_size_bytes: 6,
        memory_version_id: expect.stringMatching(/^memver_/),
        updated_at: expect.stringMatching(ISO),
      });
      expect(renamed.memory_version_id).not.toBe(created.memory_version_id);
      // The no-op rule: the stored content and path again succeed, whatever the precondition, with no version.
      const again = await memories.update(created.id, {
        memory_store_id: store.id,
        content: 'héllo',
        precondition: { type: 'content_sha256', content_sha256: sha('other') },
      });
      expect(again).toEqual(renamed);
      const lost = await refusal(
        memories.update(created.id, {
          memory_store_id: store.id,
          content: 'new',
          precondition: { type: 'content_sha256', content_sha256: sha('other') },
        }),
      );
      expect(lost.status).toBe(409);
      expect((lost.error as { error: { type: string } }).error.type).toBe('memory_precondition_failed_error');
      expect(lost.headers?.get('x-should-retry')).toBe('false');

      const taken = await refusal(memories.create(store.id, { path: '/notes/b.md', content: 'x' }));
      expect(taken.status).toBe(409);
      expect((taken.error as { error: unknown }).error).toEqual({
        type: 'memory_path_conflict_error',
        message: 'The path /notes/b.md is in the way of /notes/b.md.',
        conflicting_memory_id: created.id,
        conflicting_path: '/notes/b.md',
      });
      const above = await refusal(memories.create(store.id, { path: '/notes/b.md/c.md', content: 'x' }));
      expect((above.error as { error: { conflicting_memory_id: string } }).error.conflicting_memory_id).toBe(
        created.id,
      );
      const below = await refusal(memories.create(store.id, { path: '/notes', content: 'x' }));
      expect((below.error as { error: { conflicting_path: string } }).error.conflicting_path).toBe(
        '/notes/b.md',
      );

      const stale = await refusal(
        memories.delete(created.id, { memory_store_id: store.id, expected_content_sha256: sha('x') }),
      );
      expect(stale.status).toBe(409);
      expect(
        await memories.delete(created.id, {
          memory_store_id: store.id,
          expected_content_sha256: sha('héllo'),
        }),
      ).toEqual({
        id: created.id,
        type: 'memory_deleted',
      });
      expect((await refusal(memories.retrieve(created.id, { memory_store_id: store.id }))).status).toBe(404);

      const versions = [];
      for await (const version of admin.beta.memoryStores.memoryVersions.list(store.id, {
        memory_id: created.id,
      })) {
        versions.push(version);
      }
      expect(
        versions.map((version) => [
          version.operation,
          (version as { memdir_operation?: string }).memdir_operation,
        ]),
      ).toEqual([
        ['deleted', 'deleted'],
        ['modified', 'renamed'],
        ['created', 'created'],
      ]);
      expect(versions[2]).toEqual({
        id: created.memory_version_id,
        type: 'memory_version',
        memory_store_id: store.id,
        memory_id: created.id,
        operation: 'created',
        memdir_operation: 'created',
        path: '/notes/a.md',
        content: null,
        content_sha256: sha('hello'),
        content_size_bytes: 5,
        created_at: expect.stringMatching(ISO),
        created_by: { type: 'api_actor', api_key_id: 'admin' },
        redacted_at: null,
      });
      const full = await admin.beta.memoryStores.memoryVersions.retrieve(created.memory_version_id, {
        memory_store_id: store.id,
      });
      expect(full).toEqual({ ...versions[2], content: 'hello' });
      const redacted = await admin.beta.memoryStores.memoryVersions.redact(created.memory_version_id, {
        memory_store_id: store.id,
      });
      expect(redacted).toEqual({
        ...versions[2],
        path: null,
        content_sha256: null,
        content_size_bytes: null,
        redacted_at: expect.stringMatching(ISO),
        redacted_by: { type: 'api_actor', api_key_id: 'admin' },
      });
    });

    it('lets exactly one of four concurrent updates under one precondition win, with one version', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'race' });
      const memories = admin.beta.memoryStores.memories;
      const memory = await memories.create(store.id, { path: '/race.md', content: 'start' });
      let current = memory;
      for (let round = 0; round < 3; round++) {
        const results = await Promise.allSettled(
          [0, 1, 2, 3].map((writer) =>
            memories.update(memory.id, {
              memory_store_id: store.id,
              content: `round ${round} writer ${writer}`,
              precondition: { type: 'content_sha256', content_sha256: current.content_sha256 },
            }),
          ),
        );
        const won = results.filter((result) => result.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') {
            expect((result.reason as InstanceType<typeof Anthropic.APIError>).status).toBe(409);
          }
        }
        current = (won[0] as PromiseFulfilledResult<typeof memory>).value;
      }
      const versions = await admin.beta.memoryStores.memoryVersions.list(store.id, { memory_id: memory.id });
      expect(versions.data.map((version) => version.operation)).toEqual([
        'modified',
        'modified',
        'modified',
        'created',
      ]);
      expect(versions.data[0]!.id).toBe(current.memory_version_id);
    });

    it('lists stores newest first a page at a time, and restores a version (memdir_restore)', async () => {
      const three = [];
      for (const name of ['first', 'second', 'third'])
        three.push(await admin.beta.memoryStores.create({ name }));
      for (const limit of [1, 2]) {
        const seen: string[] = [];
        for await (const store of admin.beta.memoryStores.list({ limit })) {
          seen.push(store.name);
          if (seen.length === 3) break;
        }
        expect(seen).toEqual(['third', 'second', 'first']);
      }
      const since = await admin.beta.memoryStores.list({
        'created_at[gte]': three[1]!.created_at,
        limit: 100,
      });
      expect(since.data.slice(0, 2).map((store) => store.name)).toEqual(['third', 'second']);
      const until = await admin.beta.memoryStores.list({
        'created_at[lte]': three[0]!.created_at,
        limit: 100,
      });
      expect(until.data.map((store) => store.name)).not.toContain('second');
      expect(until.data.map((store) => store.name)).toContain('first');
      const store = three[0]!;
      const memories = admin.beta.memoryStores.memories;
      const memory = await memories.create(store.id, { path: '/r.md', content: 'old' });
      const changed = await memories.update(memory.id, { memory_store_id: store.id, content: 'new' });
      const path = `/v1/memory_stores/${store.id}/memory_versions/${memory.memory_version_id}/memdir_restore`;
      const stale = await refusal(
        admin.post(path, {
          body: { precondition: { type: 'content_sha256', content_sha256: sha('other') } },
        }),
      );
      expect(stale.status).toBe(409);
      const restored = (await admin.post(path, {
        body: { precondition: { type: 'content_sha256', content_sha256: changed.content_sha256 } },
      })) as Record<string, unknown>;
      expect(restored).toMatchObject({
        type: 'memory_version',
        memory_id: memory.id,
        operation: 'modified',
        memdir_operation: 'restored',
        path: '/r.md',
        content_sha256: sha('old'),
      });
      expect((await memories.retrieve(memory.id, { memory_store_id: store.id })).content).toBe('old');
    });

    it('pages through memories while others are written: every memory that stays put exactly once', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'moving' });
      const memories = admin.beta.memoryStores.memories;
      const stable = Array.from({ length: 12 }, (_, i) => `/s/${String(i).padStart(2, '0')}.md`);
      for (const path of stable) await memories.create(store.id, { path, content: path });
      let writing = true;
      const writer = (async () => {
        for (let round = 0; writing; round++) {
          const made = await memories.create(store.id, {
            path: `/s/${String(round % 12).padStart(2, '0')}x${round}.md`,
            content: '',
          });
          await memories.delete(made.id, { memory_store_id: store.id });
        }
      })();
      const seen: string[] = [];
      try {
        for await (const item of memories.list(store.id, { path_prefix: '/s/', limit: 2 })) {
          if (stable.includes(item.path)) seen.push(item.path);
        }
      } finally {
        writing = false;
        await writer;
      }
      expect(seen).toEqual(stable);
    });

    it('lists memories a page at a time, by prefix and depth', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'pages' });
      const paths = ['/a.md', '/notes/x.md', '/notes/y.md', '/notes/deep/z.md', '/notes-old/a.md', '/z/1.md'];
      for (const path of paths)
        await admin.beta.memoryStores.memories.create(store.id, { path, content: path });
      const all = async (params: Anthropic.Beta.MemoryStores.MemoryListParams) => {
        const found: string[] = [];
        for await (const item of admin.beta.memoryStores.memories.list(store.id, params)) {
          found.push(item.type === 'memory_prefix' ? `prefix ${item.path}` : item.path);
        }
        return found;
      };
      const sorted = [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      for (const limit of [1, 2, 100]) expect(await all({ limit })).toEqual(sorted);
      expect(await all({ path_prefix: '/notes/' })).toEqual([
        '/notes/deep/z.md',
        '/notes/x.md',
        '/notes/y.md',
      ]);
      expect(await all({ path_prefix: '/notes/', depth: 1, limit: 1 })).toEqual([
        'prefix /notes/deep/',
        '/notes/x.md',
        '/notes/y.md',
      ]);
      expect(await all({ depth: 1 })).toEqual([
        '/a.md',
        'prefix /notes-old/',
        'prefix /notes/',
        'prefix /z/',
      ]);
      const page = await admin.beta.memoryStores.memories.list(store.id, { limit: 2, view: 'full' });
      expect(page.data.map((item) => (item as { content: string }).content)).toEqual([
        '/a.md',
        '/notes-old/a.md',
      ]);
      const other = await refusal(
        admin.beta.memoryStores.memories.list(store.id, { path_prefix: '/z/', page: page.next_page! }),
      );
      expect(other.status).toBe(400);
    });

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

    it('refuses hostile input with a clear 4xx and writes nothing', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'hostile' });
      const token = await server.token(`hostile-${label}`, '--namespace', store.id);
      const raw = async (method: string, path: string, body?: string | Uint8Array) => {
        const response = await fetch(`${server.origin}/v1/memory_stores/${store.id}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.headers.get('request-id')).toMatch(/^req_/);
        return {
          status: response.status,
          retry: response.headers.get('x-should-retry'),
          body: JSON.parse(text),
        };
      };
      const refused = (status: number, message: string) => ({
        status,
        retry: 'false',
        body: {
          type: 'error',
          error: expect.objectContaining({
            type: status === 413 ? 'request_too_large' : 'invalid_request_error',
            message,
          }),
          request_id: expect.stringMatching(/^req_/),
        },
      });
      expect(
        await raw('POST', '/memories', JSON.stringify({ path: '/a.md', content: 'x', extra: 1 })),
      ).toEqual(refused(400, 'Unknown field "extra".'));
      expect(await raw('POST', '/memories', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).toEqual(
        refused(400, 'The request body is not valid UTF-8.'),
      );
      expect(await raw('POST', '/memories', '{"path":')).toEqual(
        refused(400, 'The request body is not valid JSON.'),
      );
      expect(await raw('POST', '/memories', JSON.stringify({ path: '/a.md', content: null }))).toEqual(
        refused(400, 'content must be a string ("" for an empty memory).'),
      );
      expect(
        await raw('POST', '/memories', JSON.stringify({ path: '/a.md', content: 'x'.repeat(1024 * 1024) })),
      ).toEqual(refused(413, 'The request body is larger than 1048576 bytes.'));
      for (const [path, message] of [
        ['a.md', 'path must start with "/" and must not end with "/".'],
        ['/a/', 'path must start with "/" and must not end with "/".'],
        ['/a//b.md', 'path "/a//b.md" has an empty, "." or ".." segment.'],
        ['/a/../b.md', 'path "/a/../b.md" has an empty, "." or ".." segment.'],
        ['/a\u0007.md', 'path holds a control or format character.'],
        ['/a\u200b.md', 'path holds a control or format character.'],
        ['/e\u0301.md', 'path is not in Unicode NFC.'],
        [`/${'a/'.repeat(20)}b.md`, 'path has more than 20 segments.'],
      ] as const) {
        const answer = await raw('POST', '/memories', JSON.stringify({ path, content: 'x' }));
        expect(answer, path).toEqual(refused(400, message));
        expect(answer.body.error.details).toEqual({ error_code: 'INVALID_PATH' });
      }
      // memdir's own path rules (SPEC section 2), after the API's.
      const percent = await raw('POST', '/memories', JSON.stringify({ path: '/a%2e.md', content: 'x' }));
      expect(percent.status).toBe(400);
      expect(percent.body.error.details).toEqual({ error_code: 'INVALID_PATH' });
      expect((await raw('GET', '/memories/mem_nope')).status).toBe(404);
      expect((await raw('GET', '/memories/..%2f..%2fetc')).status).toBe(404);
      expect((await raw('GET', '/memory_versions/memver_x')).status).toBe(404);
      expect((await raw('GET', '/memories?page=bm90IGEgY3Vyc29y')).status).toBe(400);
      expect((await raw('GET', '/memories?path_prefix=notes')).status).toBe(400);
      expect((await raw('GET', '/memories?limit=0')).status).toBe(400);
      expect((await raw('GET', '/memories?view=everything')).status).toBe(400);
      expect((await raw('GET', '/memories?depth=-1')).status).toBe(400);
      expect((await raw('GET', '/memory_versions?operation=renamed')).status).toBe(400);
      expect((await raw('GET', '/memory_versions?created_at%5Bgte%5D=yesterday')).status).toBe(400);
      expect((await raw('POST', '/memories/mem_x', JSON.stringify({}))).body.error.message).toBe(
        'Give content, path, or both.',
      );
      expect((await raw('GET', '/nothing-here')).body.error.type).toBe('not_found_error');
      const listed = await admin.beta.memoryStores.memories.list(store.id);
      expect(listed.data).toEqual([]);
      const versions = await admin.beta.memoryStores.memoryVersions.list(store.id);
      expect(versions.data).toEqual([]);
      // No error body names a host path or a stack.
      expect(server.stderr()).not.toContain('    at ');
    });

    it('checks store fields and metadata limits, and filters versions', async () => {
      for (const [params, message] of [
        [{ name: '' }, 'name must be a string of 1 to 255 characters.'],
        [{ name: 'a\nb' }, 'name must not hold control characters.'],
        [
          { name: 'x', description: 'd'.repeat(1025) },
          'description must be a string of at most 1,024 characters.',
        ],
        [{ name: 'x', metadata: { ['k'.repeat(65)]: 'v' } }, 'metadata keys must be 1 to 64 characters.'],
        [
          { name: 'x', metadata: { k: 'v'.repeat(513) } },
          'metadata.k must be a string of at most 512 characters.',
        ],
        [
          { name: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
          'metadata may hold at most 16 pairs.',
        ],
      ] as const) {
        const error = await refusal(admin.beta.memoryStores.create(params as never));
        expect(error.status).toBe(400);
        expect((error.error as { error: { message: string } }).error.message).toBe(message);
      }
      const store = await admin.beta.memoryStores.create({
        name: 'filters',
        metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])),
      });
      const over = await refusal(admin.beta.memoryStores.update(store.id, { metadata: { extra: 'v' } }));
      expect((over.error as { error: { message: string } }).error.message).toBe(
        'metadata may hold at most 16 pairs.',
      );
      const swapped = await admin.beta.memoryStores.update(store.id, { metadata: { k0: null, extra: 'v' } });
      expect(Object.keys(swapped.metadata)).toHaveLength(16);
      expect(swapped.metadata['extra']).toBe('v');

      const memories = admin.beta.memoryStores.memories;
      const a = await memories.create(store.id, { path: '/a.md', content: 'one' });
      // Times are ms: the versions after `start` are those made at least a ms later.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const start = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await memories.update(a.id, { memory_store_id: store.id, content: 'two' });
      const b = await memories.create(store.id, { path: '/b.md', content: '' });
      expect(b.content_sha256).toBe(sha(''));
      await memories.delete(b.id, { memory_store_id: store.id });
      const list = async (params: Anthropic.Beta.MemoryStores.MemoryVersionListParams) => {
        const found: string[] = [];
        for await (const version of admin.beta.memoryStores.memoryVersions.list(store.id, params)) {
          found.push(`${version.operation} ${version.memory_id === a.id ? 'a' : 'b'}`);
        }
        return found;
      };
      expect(await list({})).toEqual(['deleted b', 'created b', 'modified a', 'created a']);
      expect(await list({ limit: 1 })).toEqual(['deleted b', 'created b', 'modified a', 'created a']);
      expect(await list({ operation: 'created' })).toEqual(['created b', 'created a']);
      expect(await list({ memory_id: b.id })).toEqual(['deleted b', 'created b']);
      expect(await list({ 'created_at[gte]': start })).toEqual(['deleted b', 'created b', 'modified a']);
      expect(await list({ api_key_id: 'admin', operation: 'modified' })).toEqual(['modified a']);
      expect(await list({ session_id: 'admin' })).toEqual([]);
      const full = await admin.beta.memoryStores.memoryVersions.list(store.id, {
        view: 'full',
        memory_id: a.id,
      });
      expect(full.data.map((version) => version.content)).toEqual(['two', 'one']);
    });

    it("syncs a folder with Anthropic's SessionMemoryStores, unchanged", async () => {
      const store = await admin.beta.memoryStores.create({ name: 'synced' });
      const memories = admin.beta.memoryStores.memories;
      const a = await memories.create(store.id, { path: '/a.md', content: 'first' });
      await memories.create(store.id, { path: '/notes/b.md', content: 'second' });
      const workdir = await mkdtemp(join(tmpdir(), 'memdir-api-sync-'));
      const root = join(workdir, 'mnt');
      const warnings: string[] = [];
      const logger = {
        error: (message: string) => warnings.push(message),
        warn: (message: string) => warnings.push(message),
        info: () => {},
        debug: () => {},
      };
      const client = new Anthropic({
        baseURL: server.origin,
        apiKey: await server.token(`sync-${label}`, '--namespace', store.id),
        maxRetries: 0,
        logger,
        logLevel: 'warn',
      });
      const sync = new SessionMemoryStores(client, { workdir });
      // One sync now: `syncAll`, the SDK's own tests' deterministic driver (`syncIfDue` waits 5 s at least).
      const syncNow = () => (sync as unknown as { syncAll(final: boolean): Promise<void> }).syncAll(false);
      try {
        await sync.download({
          resources: [
            {
              type: 'memory_store',
              memory_store_id: store.id,
              mount_path: root,
              name: 'synced',
              access: 'read_write',
            },
          ],
        } as never);
        expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('first');
        expect(await readFile(join(root, 'notes/b.md'), 'utf8')).toBe('second');
        // A local edit and a new local file go up.
        await writeFile(join(root, 'a.md'), 'edited here');
        await writeFile(join(root, 'c.md'), 'new here');
        await syncNow();
        expect((await memories.retrieve(a.id, { memory_store_id: store.id })).content).toBe('edited here');
        const listed = await memories.list(store.id, { view: 'full' });
        expect(listed.data.map((item) => [item.path, (item as { content: string }).content])).toEqual([
          ['/a.md', 'edited here'],
          ['/c.md', 'new here'],
          ['/notes/b.md', 'second'],
        ]);
        // A remote write comes down.
        await memories.update(a.id, { memory_store_id: store.id, content: 'edited there' });
        await syncNow();
        expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('edited there');
        // A remote delete removes the file; a local delete reaches the server at finish().
        const c = listed.data.find((item) => item.path === '/c.md') as { id: string };
        await memories.delete(c.id, { memory_store_id: store.id });
        await syncNow();
        await expect(readFile(join(root, 'c.md'), 'utf8')).rejects.toThrow(/ENOENT/);
        await rm(join(root, 'notes/b.md'));
        await sync.finish();
        const left = await memories.list(store.id);
        expect(left.data.map((item) => item.path)).toEqual(['/a.md']);
        expect(warnings).toEqual([]);
      } finally {
        await sync.dispose();
        await rm(workdir, { recursive: true, force: true });
      }
    });

    it('keeps tokens to their rights', async () => {
      const store = await admin.beta.memoryStores.create({ name: 'rights' });
      const other = await admin.beta.memoryStores.create({ name: 'other' });
      const ownToken = await server.token(`own-${label}`, '--namespace', store.id);
      const own = server.client(ownToken);
      expect((await own.beta.memoryStores.retrieve(store.id)).id).toBe(store.id);
      expect((await refusal(own.beta.memoryStores.retrieve(other.id))).status).toBe(404);
      expect((await own.beta.memoryStores.list()).data.map((s) => s.id)).toEqual([store.id]);
      const create = await refusal(own.beta.memoryStores.create({ name: 'x' }));
      expect(create.status).toBe(403);
      expect((create.error as { error: { type: string } }).error.type).toBe('permission_error');
      const write = await refusal(
        reader.beta.memoryStores.memories.create(store.id, { path: '/a.md', content: '' }),
      );
      expect(write.status).toBe(403);
      // Older SDKs send X-Api-Key.
      const byKey = await fetch(`${server.origin}/v1/memory_stores/${store.id}`, {
        headers: { 'x-api-key': ownToken },
      });
      expect(byKey.status).toBe(200);
      const nobody = await refusal(server.client('wrong').beta.memoryStores.list());
      expect(nobody.status).toBe(401);
      expect((nobody.error as { error: { type: string } }).error.type).toBe('authentication_error');
    });
  });
}
