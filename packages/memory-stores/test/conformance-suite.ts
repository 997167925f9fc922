// The core conformance suite on a memory store of a memdir server, for each backend the server
// runs on. A store URL names one store, which has no namespaces: each (backend, namespace) pair the
// suite asks for is a memory store of its own on the server, so the suite's isolation and prefix
// checks still see disjoint stores. The suite's driver and identity groups need `namespace()` on a
// driver and are not run (see the README's capability table); quota and history are skipped by
// the suite itself, from the capabilities.
import { describeMemoryStore } from '@memdir/conformance';
import type { MemoryStoreOptions } from '@memdir/core';
import { afterAll, beforeAll } from 'vitest';
import { createMemoryStoresStore } from '../src/index.js';
import { type ApiServer, startApiServer } from './api-server.js';

const MAX_MEMORY_BYTES = 4 * 1024 * 1024;

/**
 * The one test left out: the API refuses paths with C1 control characters, which memdir's paths
 * allow (a documented difference, README "What differs from a native store").
 */
const ALL_BUT_API_PATH_RULES = /^(?!.*C1 controls and astral characters are allowed)/;

export function memoryStoresConformance(label: string, serverStore: () => string): void {
  let server: ApiServer | undefined;
  const stores = new Map<string, Promise<string>>();
  const starting = (async () => {
    // Memories as large as the suite's largest file (1 MiB and more): the API's default is 100 KiB.
    server = await startApiServer(serverStore(), ['--store-max-memory-bytes', String(MAX_MEMORY_BYTES)]);
    return server;
  })();
  beforeAll(() => starting.then(() => undefined), 60_000);
  afterAll(async () => {
    const started = await starting;
    for (const id of stores.values()) await started.client.beta.memoryStores.delete(await id);
    await started.stop();
  }, 60_000);

  const storeFor = async (backend: string, namespace: string | undefined): Promise<string> => {
    const key = `${backend}/${namespace ?? ''}`;
    let id = stores.get(key);
    if (id === undefined) {
      id = starting.then((started) => started.newStore(key));
      stores.set(key, id);
    }
    return id;
  };

  describeMemoryStore(
    {
      name: `memory stores API (memdir server on ${label})`,
      timeout: 60_000,
      propertyRuns: 15,
      storeOptions: { timeoutMs: 20_000 },
      async create(options: MemoryStoreOptions, backend: string) {
        const { namespace, ...rest } = options;
        const started = await starting;
        return createMemoryStoresStore({
          ...rest,
          baseUrl: started.origin,
          apiKey: started.key,
          storeId: await storeFor(backend, namespace),
          maxMemoryBytes: MAX_MEMORY_BYTES,
          maxFileBytes: rest.maxFileBytes ?? 1_048_576,
        });
      },
      async destroy(backend: string) {
        const started = await starting;
        for (const [key, id] of [...stores]) {
          if (!key.startsWith(`${backend}/`)) continue;
          stores.delete(key);
          await started.client.beta.memoryStores.delete(await id);
        }
      },
    },
    { tests: ALL_BUT_API_PATH_RULES },
  );
}
