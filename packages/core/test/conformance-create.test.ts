// The suite's other entry point: a target that opens stores itself (`create`), as the filesystem
// store's test does. Here each backend name maps to one in-memory driver.
import { describeMemoryStore } from '../src/conformance/index.js';
import { createInMemoryDriver, createMemoryStore, type MemoryDriver } from '../src/index.js';

const backends = new Map<string, MemoryDriver>();

describeMemoryStore({
  name: 'in-memory via create',
  propertyRuns: 20,
  create(options, backend) {
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
