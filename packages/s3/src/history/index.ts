// The history methods as the driver calls them (driver.ts): one import for all of history. The
// rest of this folder: record.ts the version objects (header.ts their fields), chain.ts a file's
// own record of its newest versions, write.ts and structure.ts what a change writes, read.ts the
// listings and which versions are visible, versions.ts read, restore, redact and import, sweep.ts
// the admin's pruning, state.ts what this process remembers of a namespace's history.

export { listVersions, treeAt } from './read.js';
export { sweepVersions } from './sweep.js';
export { countVersions, importVersions, readVersion, redactVersion, restoreVersion } from './versions.js';
