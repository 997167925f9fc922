// The kit's `memories` group: create, retrieve, update (content, rename keeping the id, the no-op
// rule, preconditions), path conflicts, delete under a precondition, and listing (byte order, every
// page size, `path_prefix` on whole segments, `depth` with `memory_prefix` items, cursors bound to
// their query, every memory that stays put exactly once while others are written); on memdir, a
// listing as of a time or a version (`memdir_as_of`).
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

  if (kit.target.memdir) {
    it('memories: memdir_as_of lists the store as it was at a time or a version, with the ids memories had then', async () => {
      const store = await kit.createStore('as-of');
      const memories = kit.admin().beta.memoryStores.memories;
      const a = await memories.create(store.id, { path: '/notes/a.md', content: 'one' });
      const b = await memories.create(store.id, { path: '/b.md', content: 'bee' });
      const c = await memories.create(store.id, { path: '/notes/deep/c.md', content: 'sea' });
      // Times are ms: `then` lies between the creations and the changes below.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const then = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const moved = await memories.update(a.id, { memory_store_id: store.id, path: '/z.md', content: 'two' });
      await memories.delete(b.id, { memory_store_id: store.id });
      const again = await memories.create(store.id, { path: '/b.md', content: 'new' });
      expect(again.id).not.toBe(b.id);
      type AsOfQuery = Anthropic.Beta.MemoryStores.MemoryListParams & { memdir_as_of?: string };
      const all = async (query: AsOfQuery) => {
        const found: unknown[] = [];
        for await (const item of memories.list(
          store.id,
          query as Anthropic.Beta.MemoryStores.MemoryListParams,
        ))
          found.push(kit.wire(item));
        return found;
      };
      // The memories then: the ids, versions and hashes they had, whatever became of them since; their
      // times are their history's (updated_at: the time of that version; created_at: of the first).
      const { memoryVersions } = kit.admin().beta.memoryStores;
      const timeOf = async (version: string) =>
        (await memoryVersions.retrieve(version, { memory_store_id: store.id })).created_at;
      const asThen = async (memory: { memory_version_id: string }, first: string) => ({
        ...(kit.wire(memory) as object),
        created_at: await timeOf(first),
        updated_at: await timeOf(memory.memory_version_id),
      });
      const [bThen, aThen, cThen, aMoved] = [
        await asThen(b, b.memory_version_id),
        await asThen(a, a.memory_version_id),
        await asThen(c, c.memory_version_id),
        await asThen(moved, a.memory_version_id),
      ];
      const atThen = [bThen, aThen, cThen];
      for (const limit of [1, 2, 100]) expect(await all({ memdir_as_of: then, limit })).toEqual(atThen);
      expect(await all({ memdir_as_of: c.memory_version_id })).toEqual(atThen);
      expect(await all({ memdir_as_of: a.memory_version_id })).toEqual([aThen]);
      expect(await all({ memdir_as_of: moved.memory_version_id })).toEqual([bThen, cThen, aMoved]);
      expect(await all({ memdir_as_of: then, path_prefix: '/notes/', depth: 1 })).toEqual([
        aThen,
        { type: 'memory_prefix', path: '/notes/deep/' },
      ]);
      const full = await all({ memdir_as_of: then, view: 'full' });
      expect(full.map((item) => (item as { content: string }).content)).toEqual(['bee', 'one', 'sea']);
      // Today's listing is unchanged by it, and a cursor is bound to its point.
      expect((await all({})).map((item) => (item as { id: string }).id)).toEqual([again.id, c.id, a.id]);
      const first = await memories.list(store.id, { limit: 1, memdir_as_of: then } as AsOfQuery);
      expect(kit.wire(first.data)).toEqual([bThen]);
      const rebound = await refusal(memories.list(store.id, { limit: 1, page: first.next_page! }));
      expect(rebound.status).toBe(400);
      const refused = async (value: string) => {
        const error = await refusal(memories.list(store.id, { memdir_as_of: value } as AsOfQuery));
        return { status: error.status, ...errorOf(error) };
      };
      const malformed = {
        status: 400,
        type: 'invalid_request_error',
        message:
          'memdir_as_of must be an RFC 3339 time (such as 2026-01-31T12:00:00Z) or a version id (memver_...).',
      };
      expect(await refused('yesterday')).toEqual(malformed);
      expect(await refused('2026-13-45T99:00:00Z')).toEqual(malformed);
      expect(await refused(new Date(Date.now() + 3_600_000).toISOString())).toEqual({
        status: 400,
        type: 'invalid_request_error',
        message: 'memdir_as_of is in the future: list without it for the memories as they are now.',
      });
      expect(await refused('2001-01-01T00:00:00Z')).toEqual({
        status: 400,
        type: 'invalid_request_error',
        message: `memdir_as_of is before the store was created (${store.created_at}): give a later time.`,
      });
      expect(await refused('memver_unknown')).toEqual({
        status: 400,
        type: 'invalid_request_error',
        message: 'memdir_as_of names no version of this store: memver_unknown is unknown here or was pruned.',
      });
    });
  }
}
