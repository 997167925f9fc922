// A store deletion a server did not finish (its erase failed, or the process stopped) is finished by
// the next server on the same backend, at its first request: the memory stores API's door in
// process, on one in-memory driver shared by both "processes", reached with Anthropic's SDK.
import { createHash } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { createInMemoryDriver, createMemoryAdmin, createMemoryStore, type MemdirStore } from '@memdir/core';
import { describe, expect, it } from 'vitest';
import {
  createMemdirServer,
  type MemoryStoresBackend,
  mountMemoryStores,
  REGISTRY_NAMESPACE,
  TokenTable,
} from '../src/index.js';

const TOKEN = 'memdir_resume_test';
const tokens = new TokenTable([
  {
    name: 'ops',
    namespace: '=stores',
    mode: 'read-write',
    stores: true,
    sha256: createHash('sha256').update(TOKEN).digest('hex'),
  },
]);

/** A server on `driver`, whose erase fails while `failing()` says so. */
function start(driver: ReturnType<typeof createInMemoryDriver>, failing: () => boolean) {
  const stores = new Map<string, MemdirStore>();
  const erased: string[] = [];
  const backend: MemoryStoresBackend = {
    open: async (namespace) => {
      let store = stores.get(namespace);
      if (store === undefined) {
        store = createMemoryStore(driver, { namespace });
        stores.set(namespace, store);
      }
      return store;
    },
    erase: async (namespace) => {
      if (failing()) throw new Error('the backend went away at /secret/host/path');
      await createMemoryAdmin(driver).dropNamespace(namespace);
      erased.push(namespace);
    },
  };
  const server = createMemdirServer({ tokens: () => tokens, ready: async () => true });
  mountMemoryStores(server, backend);
  const client = new Anthropic({
    baseURL: 'http://memdir.test',
    apiKey: TOKEN,
    maxRetries: 0,
    fetch: (url, init) => server.fetch(new Request(url, init)),
  });
  return { client, erased };
}

describe('store deletion', () => {
  it('is 404 at once, and a half-done erase is finished by the next server on the same backend', async () => {
    const driver = createInMemoryDriver();
    let failing = true;
    const first = start(driver, () => failing);
    const store = await first.client.beta.memoryStores.create({ name: 'doomed' });
    await first.client.beta.memoryStores.memories.create(store.id, { path: '/a.md', content: 'x' });
    const refused = await first.client.beta.memoryStores.delete(store.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.APIError);
    expect((refused as InstanceType<typeof Anthropic.APIError>).status).toBe(500);
    // No host path, stack or backend text reaches the client.
    expect((refused as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'The server failed unexpectedly.' },
      request_id: expect.stringMatching(/^req_/),
    });
    const gone = await first.client.beta.memoryStores.retrieve(store.id).catch((error: unknown) => error);
    expect((gone as InstanceType<typeof Anthropic.APIError>).status).toBe(404);
    expect((await first.client.beta.memoryStores.list({ include_archived: true })).data).toEqual([]);
    const namespaceFiles = async () =>
      (await createMemoryStore(driver, { namespace: store.id }).records.list()).items;
    expect(await namespaceFiles()).toHaveLength(1);

    failing = false;
    const second = start(driver, () => false);
    expect((await second.client.beta.memoryStores.list()).data).toEqual([]);
    await expect.poll(() => second.erased).toEqual([store.id]);
    expect(await namespaceFiles()).toEqual([]);
    const registry = createMemoryStore(driver, { namespace: REGISTRY_NAMESPACE });
    await expect
      .poll(async () => (await registry.records.list({ path: '/memories/stores' })).items)
      .toEqual([]);
  });
});
