export { isMemoryToolError, MemoryToolError } from './errors.js';
export type { MemoryToolErrorCode, MemoryToolErrorOptions } from './errors.js';
export { createInMemoryDriver, createInMemoryStore } from './in-memory.js';
export {
  isHiddenName,
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  MEMORY_ROOT,
  normalizeMemoryPath,
  toDriverPath,
  toMemoryPath,
} from './path.js';
export { formatSize } from './render.js';
export {
  createMemoryStore,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_VIEW_CHARS,
  MAX_VIEW_LINES,
  validateNamespace,
} from './store.js';
export { MEMORY_COMMANDS } from './types.js';
export type {
  CreateCommand,
  DeleteCommand,
  DriverCapabilities,
  DriverEntry,
  DriverFile,
  InsertCommand,
  MemoryCommand,
  MemoryCommandName,
  MemoryDriver,
  MemoryStore,
  MemoryStoreOptions,
  RenameCommand,
  StrReplaceCommand,
  ViewCommand,
  WriteExpectation,
} from './types.js';
