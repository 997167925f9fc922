import { describeDriverConformance } from './conformance-driver.js';
import { PATH_GROUPS } from './helpers.js';

// The paths group through the driver, the longest on S3, in a file of its own (see helpers.ts).
describeDriverConformance('conformance-paths', PATH_GROUPS);
