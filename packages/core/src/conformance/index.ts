/**
 * The memdir conformance suite: registers vitest tests that check a memory store, or a driver under
 * the memdir engine, against SPEC.md byte for byte. An adapter's conformance test is one call:
 *
 * ```ts
 * import { describeMemoryStore } from '@memdir/core/conformance';
 * import { createFsStore } from '@memdir/fs';
 *
 * describeMemoryStore({
 *   name: 'fs',
 *   create: (options, backend) => createFsStore({ ...options, root: join(tmp, backend) }),
 *   destroy: (backend) => rm(join(tmp, backend), { recursive: true, force: true }),
 * });
 * ```
 *
 * vitest and fast-check are optional peer dependencies of `@memdir/core`, needed only here.
 * @module
 */
import { describe } from 'vitest';
import type { MemoryDriver, MemoryStore, MemoryStoreOptions } from '../types.js';
import { concurrencyTests } from './concurrency.js';
import { createTests } from './create.js';
import { deleteTests } from './delete.js';
import { differentialTests } from './differential.js';
import { createSuite, type Suite } from './harness.js';
import { inputTests } from './input.js';
import { insertTests } from './insert.js';
import { isolationTests } from './isolation.js';
import { pathTests } from './paths.js';
import { renameTests } from './rename.js';
import { strReplaceTests } from './str-replace.js';
import { viewTests } from './view.js';

/** What the suite tests, and how to give it fresh, isolated backends. */
export interface ConformanceTarget {
  /** Shown in the test names: describe(`memdir conformance: ${name}`). */
  name: string;
  /**
   * Opens a store. `backend` names an isolated, initially empty backend (a folder, a key prefix,
   * a schema...): every call with the same `backend` must reach the same data, different names
   * never share data. Pass every field of `options` on to the store (namespace, overwrite, limits).
   * Exactly one of create / createDriver.
   */
  create?(options: MemoryStoreOptions, backend: string): MemoryStore | Promise<MemoryStore>;
  /**
   * Alternative to create: the suite wraps the driver with createMemoryStore(driver, options). One
   * driver per backend name is expected to be reused by the target for calls with the same name (the
   * suite calls createDriver once per backend name per test and makes all stores of that backend
   * from it).
   */
  createDriver?(backend: string): MemoryDriver | Promise<MemoryDriver>;
  /**
   * After each test, once per backend name used, after the suite closed every store it opened:
   * remove the backend's data.
   */
  destroy?(backend: string): void | Promise<void>;
  /**
   * Capabilities; `atomicRename: false` relaxes only the directory rename/delete atomicity tests
   * (SPEC 6).
   * @default { atomicRename: true }
   */
  capabilities?: { atomicRename: boolean };
  /**
   * fast-check runs of the differential property test.
   * @default 60
   */
  propertyRuns?: number;
  /**
   * Per-test timeout in ms (real servers are slower).
   * @default 30000
   */
  timeout?: number;
}

/** The namespace of the suite's second run, which catches prefix leaks. */
const SUITE_NAMESPACE = 'conformance';

/** The test files, one per command group. */
const GROUPS: ReadonlyArray<readonly [string, (suite: Suite) => void]> = [
  ['view', viewTests],
  ['create', createTests],
  ['str_replace', strReplaceTests],
  ['insert', insertTests],
  ['delete', deleteTests],
  ['rename', renameTests],
  ['tool input', inputTests],
  ['paths', pathTests],
  ['isolation', isolationTests],
  ['concurrency', concurrencyTests],
  ['differential', differentialTests],
];

/**
 * Registers the conformance suite for `target` as vitest tests (call it at the top level of a test
 * file). The whole suite runs twice: once with stores that have no namespace, and once with every
 * store under the namespace `conformance` (unless a test sets its own). Each test gets fresh backend
 * names, so tests are independent even against a shared real server; the suite closes every store it
 * opened and then calls `destroy` for each backend name after each test.
 *
 * Tests within one call must run one after another (vitest's default inside a file).
 */
export function describeMemoryStore(target: ConformanceTarget): void {
  if ((target.create === undefined) === (target.createDriver === undefined)) {
    throw new TypeError('describeMemoryStore: give exactly one of `create` and `createDriver`.');
  }
  describe(`memdir conformance: ${target.name}`, () => {
    for (const namespace of [undefined, SUITE_NAMESPACE]) {
      describe(namespace === undefined ? 'without a namespace' : `under namespace '${namespace}'`, () => {
        const suite = createSuite(target, namespace);
        for (const [group, register] of GROUPS) describe(group, () => register(suite));
      });
    }
  });
}
