// The kit's `tokens` group: a wrong token is 401; with the target's `createToken`, a store's token
// reaches only its store (another store's id is 404, not 403: existence does not leak) and may not
// create stores, and a read-only token's changes are 403.
import { expect, it } from 'vitest';
import { type ApiKit, errorOf, refusal } from './target.js';

export function tokenTests(kit: ApiKit): void {
  it('tokens: a wrong token is 401 authentication_error', async () => {
    const nobody = await refusal(kit.client('not-a-token').beta.memoryStores.list());
    expect(nobody.status).toBe(401);
    expect(errorOf(nobody).type).toBe('authentication_error');
    expect(nobody.headers?.get('x-should-retry')).toBe('false');
  });

  const createToken = kit.target.createToken;
  if (createToken === undefined) return;
  it("tokens: a store's token reaches its store only, and a read-only token changes nothing", async () => {
    const store = await kit.createStore('rights');
    const other = await kit.createStore('other');
    const ownToken = await createToken({ name: `own-${store.id}`, store: store.id });
    const own = kit.client(ownToken);
    expect((await own.beta.memoryStores.retrieve(store.id)).id).toBe(store.id);
    expect((await refusal(own.beta.memoryStores.retrieve(other.id))).status).toBe(404);
    expect((await refusal(own.beta.memoryStores.memories.list(other.id))).status).toBe(404);
    expect((await own.beta.memoryStores.list()).data.map((listed) => listed.id)).toEqual([store.id]);
    const create = await refusal(own.beta.memoryStores.create({ name: 'x' }));
    expect(create.status).toBe(403);
    expect(errorOf(create).type).toBe('permission_error');
    // Older SDKs send X-Api-Key.
    const byKey = await fetch(`${kit.connection().baseUrl}/v1/memory_stores/${store.id}`, {
      headers: { 'x-api-key': ownToken },
    });
    expect(byKey.status).toBe(200);

    const reader = kit.client(await createToken({ name: `reader-${store.id}`, readOnly: true }));
    expect((await reader.beta.memoryStores.retrieve(store.id)).id).toBe(store.id);
    const write = await refusal(
      reader.beta.memoryStores.memories.create(store.id, { path: '/a.md', content: '' }),
    );
    expect(write.status).toBe(403);
    expect(errorOf(write).type).toBe('permission_error');
    expect((await kit.admin().beta.memoryStores.memories.list(store.id)).data).toEqual([]);
  });
}
