// The map of memdir's public types, by audience: what `@memdir/core` exports as types (`index.ts`
// re-exports all of it). Nothing is defined here: each type lives beside the code it describes, and
// core's own files import it from there.
// - The tool user: the six commands, `MemoryStore`, who makes a change: `tool.ts`.
// - The application that makes a store: its options, defaults and checks: `store-options.ts`.
// - The driver author: `MemoryDriver` and everything its calls take and return, history and admin
//   methods included: `driver/contract.ts` (what a driver can do: `driver/capabilities.ts`); the
//   path types: `path.ts`.
// - The operator: a store's history in `history/` (`MemoryVersion`, `HistoryQuery`), the admin
//   (`MemoryAdmin`, `MemoryAdminOptions`) in `admin/admin.ts`.

// The driver author: what a driver can do.
export type { DriverCapabilities } from './driver/capabilities.js';
// The driver author: the contract, its history and admin methods included.
export type {
  ChangeRecord,
  DriverCallOptions,
  DriverCallStats,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverDropOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverFolderMarker,
  DriverListing,
  DriverListingEntry,
  DriverListOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPointInTime,
  DriverQuota,
  DriverRecord,
  DriverRecordBeside,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverRecordsBeside,
  DriverRemoveOptions,
  DriverRestoreOptions,
  DriverSweepOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
  DriverUsage,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  DriverWriteOptions,
  MemoryDriver,
  VersionOperation,
  WriteExpectation,
} from './driver/contract.js';
// The tool user and the driver author: the two path types.
export type { DriverPath, MemoryPath } from './path.js';
// The application that makes a store.
export type {
  ExpireOptions,
  HistoryOptions,
  MemdirLogger,
  MemoryStoreOptions,
  QuotaOptions,
  TelemetryOptions,
} from './store-options.js';
// The tool user.
export type {
  Actor,
  CreateCommand,
  DeleteCommand,
  InsertCommand,
  MemoryCallOptions,
  MemoryCommand,
  MemoryCommandName,
  MemoryStore,
  RenameCommand,
  StrReplaceCommand,
  ViewCommand,
} from './tool.js';
export { MEMORY_COMMANDS } from './tool.js';
