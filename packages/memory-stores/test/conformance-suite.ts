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

// The suite's files up to 1 MiB (the API's limit per request): the API's default is 100 KiB a memory.
const MAX_MEMORY_BYTES = 1024 * 1024;

/**
 * The tests left out, each for a documented difference (README "What differs from a native
 * store"): the API refuses paths with C1 control characters, which memdir's paths allow; and it
 * takes at most 1 MiB per request (a memdir server; 100 KiB a memory on the hosted API), so the
 * tests of files of 1 MiB and more (core's default `maxFileBytes`, a million-line view) cannot
 * write their files.
 */
const LEFT_OUT = [
  'C1 controls and astral characters are allowed',
  '1,048,575 bytes show as 1024.0K',
  'a file of more than 999,999 lines',
  'a file of exactly 999,999 lines',
  'the default maxFileBytes is 1,048,576 bytes',
  'in a 1 MiB file of',
];
const APPLICABLE = new RegExp(
  `^(?!.*(${LEFT_OUT.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}))`,
);

export function memoryStoresConformance(label: string, serverStore: () => string): void {
  let server: ApiServer | undefined;
  const stores = new Map<string, Promise<string>>();
  const starting = (async () => {
    // 128 requests of a token at once (default 32): the suite's 100 racing edits of one file are
    // about compare-and-swap, not about waiting out 429s (test/cli.test.ts meets those).
    server = await startApiServer(serverStore(), [
      '--store-max-memory-bytes',
      String(MAX_MEMORY_BYTES),
      '--max-inflight-per-token',
      '128',
    ]);
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
      timeout: 120_000,
      propertyRuns: 15,
      // 100 edits racing on one file through a server that takes 32 requests of a token at once.
      storeOptions: { timeoutMs: 60_000 },
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
    { tests: APPLICABLE },
  );
}
