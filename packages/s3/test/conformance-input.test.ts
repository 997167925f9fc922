import { CONFORMANCE_GROUPS } from '@memdir/conformance';
import { describeDriverConformance } from './conformance-driver.js';
import { COMMAND_GROUPS, PATH_GROUPS } from './helpers.js';

// Every group that conformance.test.ts and conformance-paths.test.ts do not run, so the three files
// together run the whole suite.
describeDriverConformance(
  'conformance-input',
  CONFORMANCE_GROUPS.filter((group) => !COMMAND_GROUPS.includes(group) && !PATH_GROUPS.includes(group)),
);
