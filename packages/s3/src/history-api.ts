// The history methods as the driver calls them (driver.ts): one import for all of history.

export { countVersions, importVersions, readVersion, redactVersion, restoreVersion } from './history.js';
export { listVersions, treeAt } from './history-read.js';
export { sweepVersions } from './history-sweep.js';
