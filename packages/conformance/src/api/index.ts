/**
 * `@memdir/conformance/api`: the conformance kit of Anthropic's memory stores API
 * (`/v1/memory_stores`), driven by Anthropic's own SDK (`@anthropic-ai/sdk` 1.17.0, a peer of this
 * entry), against any base URL. memdir's server runs it on every store; another implementation of
 * the API runs it the same way:
 *
 * ```ts
 * import { describeMemoryStoresApi } from '@memdir/conformance/api';
 *
 * describeMemoryStoresApi({
 *   name: 'my server',
 *   connect: () => ({ baseUrl: 'http://127.0.0.1:8080', token: process.env.MY_TOKEN! }),
 * });
 * ```
 *
 * The groups, one file each, in the order they run: stores.ts, memories.ts, versions.ts,
 * concurrency.ts (with race-worker.ts, one writer process), hostile.ts, tokens.ts, worker.ts
 * (Anthropic's `SessionMemoryStores`, with fault-proxy.ts). What they share: target.ts.
 * @module
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { concurrencyTests } from './concurrency.js';
import { hostileTests } from './hostile.js';
import { memoryTests } from './memories.js';
import { storeTests } from './stores.js';
import { type ApiKit, createApiKit, type MemoryStoresApiTarget } from './target.js';
import { tokenTests } from './tokens.js';
import { versionTests } from './versions.js';
import { workerTests } from './worker.js';

export type { ApiConnection, ApiTokenRequest, MemoryStoresApiTarget } from './target.js';

/** The groups of the kit, in the order they run. */
export const API_GROUPS = [
  'stores',
  'memories',
  'versions',
  'concurrency',
  'hostile input',
  'tokens',
  'worker',
] as const;

/** One group of the kit. */
export type ApiGroup = (typeof API_GROUPS)[number];

const GROUP_TESTS: Record<ApiGroup, (kit: ApiKit) => void> = {
  stores: storeTests,
  memories: memoryTests,
  versions: versionTests,
  concurrency: concurrencyTests,
  'hostile input': hostileTests,
  tokens: tokenTests,
  worker: workerTests,
};

/**
 * Registers the kit's vitest tests for `target`: `memdir conformance: {name}` > `memory stores API`
 * > one describe per group. Every store a test makes is deleted after the last test.
 * @param filter.groups the groups to run. @default every group ({@link API_GROUPS})
 */
export function describeMemoryStoresApi(
  target: MemoryStoresApiTarget,
  filter: { groups?: readonly ApiGroup[] } = {},
): void {
  const groups = filter.groups ?? API_GROUPS;
  for (const group of groups) {
    if (!API_GROUPS.includes(group)) throw new TypeError(`no group "${group}" in the memory stores API kit`);
  }
  const timeout = target.timeout ?? 60_000;
  const kit = createApiKit(target);
  describe(`memdir conformance: ${target.name}`, { timeout }, () => {
    beforeAll(() => kit.open(), timeout);
    afterAll(() => kit.close(), timeout);
    describe('memory stores API', () => {
      for (const group of API_GROUPS) {
        if (groups.includes(group)) describe(group, () => GROUP_TESTS[group](kit));
      }
    });
  });
}
