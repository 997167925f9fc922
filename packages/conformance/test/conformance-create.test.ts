// The suite's other entry point: a target that opens stores itself (`create`), as the filesystem
// store's test does. Here each backend name maps to one in-memory driver. The target's
// `storeOptions` reach every store the suite opens, the probe's included.

import {
  createInMemoryDriver,
  createMemoryStore,
  type MemoryDriver,
  type MemoryStoreOptions,
} from '@memdir/core';
import { afterAll, expect } from 'vitest';
import { describeMemoryStore } from '../src/index.js';

const backends = new Map<string, MemoryDriver>();
const opened: MemoryStoreOptions[] = [];

afterAll(() => {
  expect(opened.length).toBeGreaterThan(100);
  expect(opened.filter((options) => options.timeoutMs !== 12_345)).toEqual([]);
  // The suite still chooses the namespace: both runs (none, then the default one) opened stores.
  expect(opened.some((options) => options.namespace === undefined)).toBe(true);
  expect(opened.some((options) => typeof options.namespace === 'string')).toBe(true);
});

describeMemoryStore({
  name: 'in-memory via create',
  propertyRuns: 20,
  storeOptions: { timeoutMs: 12_345 },
  create(options, backend) {
    opened.push(options);
    let driver = backends.get(backend);
    if (!driver) {
      driver = createInMemoryDriver();
      backends.set(backend, driver);
    }
    return createMemoryStore(driver, options);
  },
  destroy(backend) {
    backends.delete(backend);
  },
});
