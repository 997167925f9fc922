// The kit's `stores` group: create, retrieve, update (metadata as a patch, the no-op), list (newest
// first, a page at a time, time filters, archived ones on request), archive, delete, and the limits
// of a store's fields.
import type Anthropic from '@anthropic-ai/sdk';
import { expect, it } from 'vitest';
import { type ApiKit, errorOf, ISO, refusal } from './target.js';

export function storeTests(kit: ApiKit): void {
  it('stores: create, retrieve, update, list, archive and delete', async () => {
    const stores = kit.admin().beta.memoryStores;
    const created = await kit.createStore('notes', { metadata: { team: 'a' } });
    expect(kit.wire(created)).toEqual({
      id: expect.stringMatching(/^memstore_/),
      type: 'memory_store',
      name: 'notes',
      description: '',
      metadata: { team: 'a' },
      archived_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: created.created_at,
    });
    if (kit.target.memdir) expect(created.id).toMatch(/^memstore_[0-9a-z]{26}$/);
    // memdir's extension on retrieve: what the store's namespace holds.
    expect(kit.wire(await stores.retrieve(created.id))).toEqual({
      ...created,
      ...kit.memdirFields({ memdir_usage: { memories: 0, bytes: 0, versions: 0 } }),
    });
    const updated = await stores.update(created.id, {
      description: 'team notes',
      metadata: { team: null, owner: 'b' },
    });
    expect(kit.wire(updated)).toEqual({
      ...created,
      description: 'team notes',
      metadata: { owner: 'b' },
      updated_at: expect.stringMatching(ISO),
    });
    const same = await stores.update(created.id, { name: 'notes' });
    expect(kit.wire(same)).toEqual(kit.wire(updated));

    const list = await stores.list();
    expect(list.data.map((store) => store.id)).toContain(created.id);

    const archived = await stores.archive(created.id);
    expect(kit.wire(archived)).toEqual({
      ...kit.wire(updated),
      archived_at: expect.stringMatching(ISO),
      updated_at: archived.archived_at,
    });
    expect(kit.wire(await stores.archive(created.id))).toEqual(kit.wire(archived));
    const ids = async (params: Anthropic.Beta.MemoryStores.MemoryStoreListParams) => {
      const found: string[] = [];
      for await (const store of stores.list(params)) found.push(store.id);
      return found;
    };
    expect(await ids({})).not.toContain(created.id);
    expect(await ids({ include_archived: true })).toContain(created.id);
    const refused = await refusal(stores.update(created.id, { name: 'x' }));
    expect(refused.status).toBe(400);
    expect(errorOf(refused).type).toBe('invalid_request_error');

    expect(await stores.delete(created.id)).toEqual({ id: created.id, type: 'memory_store_deleted' });
    const gone = await refusal(stores.retrieve(created.id));
    expect(gone.status).toBe(404);
    expect(gone.error).toEqual({
      type: 'error',
      error: {
        type: 'not_found_error',
        message: kit.message(`No memory store has the id "${created.id}".`),
      },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(gone.headers?.get('x-should-retry')).toBe('false');
    expect(gone.requestID).toBe((gone.error as { request_id: string }).request_id);
  });

  it('stores: listed newest first a page at a time, with inclusive time filters', async () => {
    const stores = kit.admin().beta.memoryStores;
    const three = [];
    for (const name of ['first', 'second', 'third']) three.push(await kit.createStore(name));
    for (const limit of [1, 2]) {
      const seen: string[] = [];
      for await (const store of stores.list({ limit })) {
        seen.push(store.id);
        if (seen.length === 3) break;
      }
      expect(seen).toEqual(three.map((store) => store.id).reverse());
    }
    const since = await stores.list({ 'created_at[gte]': three[1]!.created_at, limit: 100 });
    expect(since.data.slice(0, 2).map((store) => store.id)).toEqual([three[2]!.id, three[1]!.id]);
    const until = await stores.list({ 'created_at[lte]': three[0]!.created_at, limit: 100 });
    const untilIds = until.data.map((store) => store.id);
    expect(untilIds).not.toContain(three[1]!.id);
    expect(untilIds).toContain(three[0]!.id);
  });

  it("stores: a store's name, description and metadata are checked, and metadata is a patch within the limits", async () => {
    const stores = kit.admin().beta.memoryStores;
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
      const error = await refusal(stores.create(params as never));
      expect(error.status, message).toBe(400);
      expect(errorOf(error), message).toMatchObject({
        type: 'invalid_request_error',
        message: kit.message(message),
      });
    }
    const store = await kit.createStore('metadata', {
      metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])),
    });
    const over = await refusal(stores.update(store.id, { metadata: { extra: 'v' } }));
    expect(over.status).toBe(400);
    expect(errorOf(over).message).toEqual(kit.message('metadata may hold at most 16 pairs.'));
    const swapped = await stores.update(store.id, { metadata: { k0: null, extra: 'v' } });
    expect(Object.keys(swapped.metadata)).toHaveLength(16);
    expect(swapped.metadata['extra']).toBe('v');
  });
}
