// `@memdir/conformance/runner`: the command that runs the suite on a store module, for the
// `memdir-conformance` bin (bin.ts) and the memdir CLI's `memdir conformance`. It imports neither
// vitest nor the suite until a run starts: tools.ts finds them, run.ts starts vitest on a generated
// test file that loads store-module.ts and watch.ts in the worker, report.ts words the results.
export { type RunnerCommand, type RunnerIo, STANDALONE } from './command.js';
export { conformanceHelp } from './help.js';
export type { ConformanceFailure, ConformanceProblem, ConformanceReport } from './report.js';
export { formatReport } from './report.js';
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type RunSuiteOptions, runConformance, runSuite } from './run.js';
export type { ConformanceModule, ConformanceSettings } from './store-module.js';
export { ConformanceUsageError } from './usage-error.js';
