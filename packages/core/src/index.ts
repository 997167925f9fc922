// `@memdir/core`: everything an application imports, re-exported from where it lives. Where the
// rest is:
// - the tool's types (commands, `MemoryStore`): `tool.ts`; every public type by audience: `types.ts`;
// - a store: `store.ts` (the factory), `store-options.ts` (options, defaults, checks),
//   `command-gate.ts`, `commands/` (one file per command), `engine/` (the driver calls' gate);
// - paths, errors and every text the model reads: `path.ts`, `errors.ts`, `messages.ts`;
// - history and the operator's admin: `history/`, `admin/`; copying a store: `copy.ts`;
// - agent frameworks: `integrations/`; the in-memory store: `in-memory/`;
// - for driver authors, `@memdir/core/driver`: the contract in `driver/contract.ts`, the kit in
//   `driver/index.ts`.
// First, before anything else is evaluated: a clear error on a Node.js older than memdir supports.
import './runtime.js';

export {
  createMemoryAdmin,
  DEFAULT_ADMIN_BATCH,
  type DropProgress,
  type MemoryAdmin,
  type MemoryAdminOptions,
  type NamespacePage,
  type NamespaceQuery,
  type NamespaceUsage,
  SWEEP_ACTOR,
  type SweepOptions,
  type SweepProgress,
  type SweepReport,
} from './admin/admin.js';
export type { CopyOptions, CopyProblem, CopyProgress, CopyReport } from './copy.js';
export { copyStore } from './copy.js';
export type {
  BackendFailureReason,
  ChangeOutcome,
  MemoryToolErrorCode,
  MemoryToolErrorOptions,
  QuotaBreach,
} from './errors.js';
export { isMemoryToolError, MemoryToolError } from './errors.js';
export type { MemoryHistory, PastStore } from './history/store-history.js';
export { parseTimeWord, type TimeWordOptions } from './history/time-words.js';
export {
  DEFAULT_HISTORY_LIMIT,
  type HistoryPage,
  type HistoryQuery,
  MAX_HISTORY_LIMIT,
  type MemoryVersion,
  type MemoryVersionWithContent,
  type RestoreOptions,
  type TimeInput,
  toMemoryVersion,
} from './history/versions.js';
export { createInMemoryDriver, createInMemoryStore, type InMemoryDriverOptions } from './in-memory/index.js';
export type {
  McpCallOptions,
  McpToolResult,
  MemoryExecute,
  MemoryExecuteOptions,
  MemoryRunnableTool,
  MemoryToolCallOptions,
  MemoryToolCallResult,
  MemoryToolRunContext,
} from './integrations/index.js';
export {
  executeMemoryToolCall,
  mcpCallTool,
  mcpRequestTooLarge,
  memoryErrorText,
  memoryExecute,
  memoryTool,
  runInOrder,
  toMemoryToolError,
} from './integrations/index.js';
export { formatSize, MAX_MATCH_LINES, MAX_VIEW_LINES } from './messages.js';
export { validateNamespace } from './namespace.js';
export type { NormalizeOptions } from './path.js';
export {
  isHiddenName,
  MAX_PATH_BYTES,
  MAX_PATH_CHARS,
  MAX_SEGMENT_BYTES,
  MEMORY_ROOT,
  normalizeMemoryPath,
  toDriverPath,
  toMemoryPath,
} from './path.js';
export { readOnlyStore } from './read-only.js';
export type {
  MemoryFolder,
  MemoryRecord,
  MemoryRecords,
  RecordBeside,
  RecordChangeOptions,
  RecordPage,
  RecordQuery,
  RecordReadOptions,
  RecordsBeside,
  RecordUpdate,
} from './records/store-records.js';
export { createMemoryStore, type MemdirStore, storeDriver } from './store.js';
export {
  DEFAULT_KEEP_DAYS,
  DEFAULT_KEEP_VERSIONS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_VIEW_CHARS,
  DEFAULT_QUEUE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
} from './store-options.js';
export { type CommandTrace, commandChannel, type DriverTrace, driverChannel } from './telemetry.js';
// Every public type, by audience (the map says where each lives).
export type * from './types.js';
export { MEMORY_COMMANDS } from './types.js';
