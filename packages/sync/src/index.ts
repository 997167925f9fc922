// `@memdir/sync`: a folder of memory files and a memdir store kept in step (issue 32).
export { syncOnce } from './pass.js';
export { STATE_DIR, SyncError } from './state.js';
export { formatSummary, type SyncEvent, type SyncOptions, type SyncSummary } from './types.js';
export { type SyncWatch, type WatchOptions, watchSync } from './watch.js';
