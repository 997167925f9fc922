// The kit's `memories` group: create, retrieve, update (content, rename keeping the id, the no-op
// rule, preconditions), path conflicts, delete under a precondition, and listing (byte order, every
// page size, `path_prefix` on whole segments, `depth` with `memory_prefix` items, cursors bound to
// their query, every memory that stays put exactly once while others are written).
import type Anthropic from '@anthropic-ai/sdk';
import { expect, it } from 'vitest';
import { type ApiKit, errorOf, ISO, refusal, sha } from './target.js';

export function memoryTests(kit: ApiKit): void {
  it('memories: create, retrieve, update with a rename and preconditions, conflicts, and delete', async () => {
    const store = await kit.createStore('memories');
    const memories = kit.admin().beta.memoryStores.memories;
    const created = await memories.create(store.id, { path: '/notes/a.md', content: 'hello' });
    expect(kit.wire(created)).toEqual({
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
    if (kit.target.memdir) {
      expect((await kit.admin().beta.memoryStores.retrieve(store.id)) as unknown).toMatchObject({
        memdir_usage: { memories: 1, bytes: 5, versions: 1 },
      });
    }
    expect(kit.wire(await memories.retrieve(created.id, { memory_store_id: store.id }))).toEqual({
      ...created,
      content: 'hello',
    });
    const renamed = await memories.update(created.id, {
      memory_store_id: store.id,
      path: '/notes/b.md',
      content: 'héllo',
    });
    expect(kit.wire(renamed)).toEqual({
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
    expect(kit.wire(again)).toEqual(kit.wire(renamed));
    const lost = await refusal(
      memories.update(created.id, {
        memory_store_id: store.id,
        content: 'new',
        precondition: { type: 'content_sha256', content_sha256: sha('other') },
      }),
    );
    expect(lost.status).toBe(409);
    expect(errorOf(lost).type).toBe('memory_precondition_failed_error');
    expect(lost.headers?.get('x-should-retry')).toBe('false');

    const taken = await refusal(memories.create(store.id, { path: '/notes/b.md', content: 'x' }));
    expect(taken.status).toBe(409);
    expect(taken.headers?.get('x-should-retry')).toBe('false');
    expect(errorOf(taken)).toEqual({
      type: 'memory_path_conflict_error',
      message: kit.message('The path /notes/b.md is in the way of /notes/b.md.'),
      conflicting_memory_id: created.id,
      conflicting_path: '/notes/b.md',
    });
    const above = await refusal(memories.create(store.id, { path: '/notes/b.md/c.md', content: 'x' }));
    expect(errorOf(above).conflicting_memory_id).toBe(created.id);
    const below = await refusal(memories.create(store.id, { path: '/notes', content: 'x' }));
    expect(errorOf(below).conflicting_path).toBe('/notes/b.md');

    const stale = await refusal(
      memories.delete(created.id, { memory_store_id: store.id, expected_content_sha256: sha('x') }),
    );
    expect(stale.status).toBe(409);
    expect((await memories.retrieve(created.id, { memory_store_id: store.id })).content).toBe('héllo');
    expect(
      await memories.delete(created.id, { memory_store_id: store.id, expected_content_sha256: sha('héllo') }),
    ).toEqual({ id: created.id, type: 'memory_deleted' });
    expect((await refusal(memories.retrieve(created.id, { memory_store_id: store.id }))).status).toBe(404);
  });

  it('memories: listed in byte order a page at a time, by whole-segment prefix and depth', async () => {
    const store = await kit.createStore('pages');
    const memories = kit.admin().beta.memoryStores.memories;
    const paths = ['/a.md', '/notes/x.md', '/notes/y.md', '/notes/deep/z.md', '/notes-old/a.md', '/z/1.md'];
    for (const path of paths) await memories.create(store.id, { path, content: path });
    const all = async (params: Anthropic.Beta.MemoryStores.MemoryListParams) => {
      const found: string[] = [];
      for await (const item of memories.list(store.id, params)) {
        found.push(item.type === 'memory_prefix' ? `prefix ${item.path}` : item.path);
      }
      return found;
    };
    const sorted = [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const limit of [1, 2, 100]) expect(await all({ limit })).toEqual(sorted);
    expect(await all({ path_prefix: '/notes/' })).toEqual(['/notes/deep/z.md', '/notes/x.md', '/notes/y.md']);
    expect(await all({ path_prefix: '/notes/', depth: 1, limit: 1 })).toEqual([
      'prefix /notes/deep/',
      '/notes/x.md',
      '/notes/y.md',
    ]);
    expect(await all({ depth: 1 })).toEqual(['/a.md', 'prefix /notes-old/', 'prefix /notes/', 'prefix /z/']);
    const page = await memories.list(store.id, { limit: 2, view: 'full' });
    expect(page.data.map((item) => (item as { content: string }).content)).toEqual([
      '/a.md',
      '/notes-old/a.md',
    ]);
    const other = await refusal(memories.list(store.id, { path_prefix: '/z/', page: page.next_page! }));
    expect(other.status).toBe(400);
  });

  it('memories: a listing paged while others are written shows every memory that stays put exactly once', async () => {
    const store = await kit.createStore('moving');
    const memories = kit.admin().beta.memoryStores.memories;
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
}
