// The conformance suite against the in-memory store: the reference every adapter is held to.
import { describeMemoryStore } from '../src/conformance/index.js';
import { createInMemoryDriver, type MemoryDriver } from '../src/index.js';

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
