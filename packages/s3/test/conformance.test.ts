import { describeDriverConformance } from './conformance-driver.js';
import { COMMAND_GROUPS } from './helpers.js';

// The six commands, concurrency, quotas, history and admin through the driver (the other groups in
// conformance-input.test.ts and conformance-paths.test.ts).
describeDriverConformance('conformance', COMMAND_GROUPS);
