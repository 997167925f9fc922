// What a conformance run tests: the target given to `describeMemoryStore` and every group's
// `describe...Tests`. A leaf of its own, so the suite's machinery (suite.ts) and the entry point
// (index.ts) both read it without importing each other.
import type { DriverCapabilities, MemoryDriver, MemoryStore, MemoryStoreOptions } from '@memdir/core';

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
   * Alternative to create: the suite wraps the driver with createMemoryStore(driver, options), and
   * runs the driver group (checks on the bare driver) too. The suite calls createDriver once per
   * backend name per test and makes all stores of that backend from it; it closes the driver after
   * the test.
   */
  createDriver?(backend: string): MemoryDriver | Promise<MemoryDriver>;
  /**
   * After each test, once per backend name used, after the suite closed every store and driver it
   * opened and after {@link check}: remove the backend's data.
   */
  destroy?(backend: string): void | Promise<void>;
  /**
   * Optional: verifies the adapter's own invariants on a backend (its indexes agree with its files,
   * its counters with its entries, no lease or lock is left behind...). Called after each test,
   * once per backend name the test used, once every store and driver of the test is closed and
   * before {@link destroy}. Throwing (or rejecting) fails the test with that error.
   */
  check?(backend: string): void | Promise<void>;
  /**
   * Only a fallback, for a hand-written store that does not report `capabilities` itself. The suite
   * reads the capabilities from the driver (`driver.capabilities`, with `createDriver`) or from the
   * store (`store.capabilities`, which stores made by `createMemoryStore` expose); when those
   * exist, this is ignored. `atomicRename: false` relaxes only the directory rename/delete
   * atomicity tests (SPEC section 6); `maxPathBytes` changes what the path-length tests expect.
   * @default { atomicRename: true }
   */
  capabilities?: DriverCapabilities;
  /**
   * fast-check runs of the differential property test.
   * @default 60
   */
  propertyRuns?: number;
  /**
   * Edits of one file in the history group's retention test ("10,000 edits of one file with
   * `keepDays: 0` leave at most `keepVersions` versions"). They run one after another, so the test
   * takes this many times one edit's latency: lower it only for a backend where one edit is a slow
   * round trip (S3: about 30 ms, so 10,000 take 5 minutes), and say so in the adapter's README.
   * Each change prunes in its own step, so the guarantee does not depend on the number.
   * @default 10000
   */
  historyEdits?: number;
  /**
   * Options every store the suite opens starts from; a test's own options win, and the suite
   * chooses the namespace. For a store whose commands may run slowly on the machine that runs the
   * suite: `{ timeoutMs: 30_000 }` on a loaded CI runner, where a starved process can take longer
   * than the default 5 s deadline for one command. No test of the suite is about the deadline.
   * @default {}
   */
  storeOptions?: Omit<MemoryStoreOptions, 'namespace'>;
  /**
   * Per-test timeout in ms (real servers are slower). Also bounds opening the first store, which
   * the suite does while it collects the tests, to read its capabilities.
   * @default 30000
   */
  timeout?: number;
}
