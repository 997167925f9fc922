// The kit's `versions` group: one version per change, newest first, listed by `memory_id` after the
// memory is deleted, every filter, `view=full`, retrieve, redaction; and, on memdir, restore of a
// version as a new one (`memdir_restore`).
import type Anthropic from '@anthropic-ai/sdk';
import { expect, it } from 'vitest';
import { type ApiKit, ISO, refusal, sha } from './target.js';

export function versionTests(kit: ApiKit): void {
  it('versions: one per change, listed by memory after its deletion, retrieved and redacted', async () => {
    const store = await kit.createStore('versions');
    const { memories, memoryVersions } = kit.admin().beta.memoryStores;
    const created = await memories.create(store.id, { path: '/notes/a.md', content: 'hello' });
    await memories.update(created.id, { memory_store_id: store.id, path: '/notes/b.md', content: 'héllo' });
    await memories.delete(created.id, { memory_store_id: store.id });
    const versions = [];
    for await (const version of memoryVersions.list(store.id, { memory_id: created.id }))
      versions.push(version);
    expect(versions.map((version) => version.operation)).toEqual(['deleted', 'modified', 'created']);
    if (kit.target.memdir) {
      expect(versions.map((version) => (version as { memdir_operation?: string }).memdir_operation)).toEqual([
        'deleted',
        'renamed',
        'created',
      ]);
    }
    const first = {
      id: created.memory_version_id,
      type: 'memory_version',
      memory_store_id: store.id,
      memory_id: created.id,
      operation: 'created',
      ...kit.memdirFields({ memdir_operation: 'created' }),
      path: '/notes/a.md',
      content: null,
      content_sha256: sha('hello'),
      content_size_bytes: 5,
      created_at: expect.stringMatching(ISO),
      created_by: { type: 'api_actor', api_key_id: kit.apiKeyId() },
      redacted_at: null,
    };
    expect(kit.wire(versions[2])).toEqual(first);
    const full = await memoryVersions.retrieve(created.memory_version_id, { memory_store_id: store.id });
    expect(kit.wire(full)).toEqual({ ...first, content: 'hello' });
    const redacted = await memoryVersions.redact(created.memory_version_id, { memory_store_id: store.id });
    expect(kit.wire(redacted)).toEqual({
      ...first,
      path: null,
      content_sha256: null,
      content_size_bytes: null,
      redacted_at: expect.stringMatching(ISO),
      redacted_by: { type: 'api_actor', api_key_id: kit.apiKeyId() },
    });
    const after = await memoryVersions.retrieve(created.memory_version_id, { memory_store_id: store.id });
    expect(after).toMatchObject({
      content: null,
      content_sha256: null,
      path: null,
      redacted_at: redacted.redacted_at,
    });
    // Who redacted is kept beyond the redact's answer: in a retrieve and a listing afterwards, and a
    // second redaction by another token changes neither when nor who.
    expect(kit.wire(after)).toEqual(kit.wire(redacted));
    if (kit.target.createToken !== undefined) {
      const token = await kit.target.createToken({ name: `redactor-${store.id}`, store: store.id });
      const again = await kit
        .client(token)
        .beta.memoryStores.memoryVersions.redact(created.memory_version_id, {
          memory_store_id: store.id,
        });
      expect(kit.wire(again)).toEqual(kit.wire(redacted));
    }
    const listed = [];
    for await (const version of memoryVersions.list(store.id, { memory_id: created.id }))
      listed.push(kit.wire(version));
    expect(listed[2]).toEqual(kit.wire(redacted));
    expect(listed.slice(0, 2).map((version) => 'redacted_by' in (version as object))).toEqual([false, false]);
  });

  it('versions: filtered by operation, memory, actor and time, a page at a time, with full content on request', async () => {
    const store = await kit.createStore('filters');
    const { memories, memoryVersions } = kit.admin().beta.memoryStores;
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
      for await (const version of memoryVersions.list(store.id, params)) {
        found.push(`${version.operation} ${version.memory_id === a.id ? 'a' : 'b'}`);
      }
      return found;
    };
    expect(await list({})).toEqual(['deleted b', 'created b', 'modified a', 'created a']);
    expect(await list({ limit: 1 })).toEqual(['deleted b', 'created b', 'modified a', 'created a']);
    expect(await list({ operation: 'created' })).toEqual(['created b', 'created a']);
    expect(await list({ memory_id: b.id })).toEqual(['deleted b', 'created b']);
    expect(await list({ 'created_at[gte]': start })).toEqual(['deleted b', 'created b', 'modified a']);
    const newest = await memoryVersions.list(store.id, { limit: 1 });
    const apiKeyId = (newest.data[0]!.created_by as { api_key_id: string }).api_key_id;
    expect(await list({ api_key_id: apiKeyId, operation: 'modified' })).toEqual(['modified a']);
    expect(await list({ session_id: apiKeyId })).toEqual([]);
    const full = await memoryVersions.list(store.id, { view: 'full', memory_id: a.id });
    expect(full.data.map((version) => version.content)).toEqual(['two', 'one']);
  });

  if (kit.target.memdir) {
    it('versions: memdir_restore makes an old version the newest, under a precondition', async () => {
      const store = await kit.createStore('restore');
      const admin = kit.admin();
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
      expect((await memories.retrieve(memory.id, { memory_store_id: store.id })).content).toBe('new');
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
  }
}
