// The conformance suite against the in-memory store: the reference every adapter is held to.

import { createInMemoryDriver, type MemoryDriver } from '@memdir/core';
import { describeMemoryStore } from '../src/index.js';

const drivers = new Map<string, MemoryDriver>();

describeMemoryStore({
  name: 'in-memory',
  createDriver(backend) {
    let driver = drivers.get(backend);
    if (!driver) {
      driver = createInMemoryDriver();
      drivers.set(backend, driver);
    }
    return driver;
  },
  destroy(backend) {
    drivers.delete(backend);
  },
});
