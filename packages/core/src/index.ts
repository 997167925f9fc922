export type { MemoryToolErrorCode, MemoryToolErrorOptions } from './errors.js';
export { isMemoryToolError, MemoryToolError } from './errors.js';
export { createInMemoryDriver, createInMemoryStore } from './in-memory.js';
export type {
  MemoryExecute,
  MemoryExecuteOptions,
  MemoryRunnableTool,
  MemoryToolCallOptions,
  MemoryToolCallResult,
  MemoryToolRunContext,
} from './integrations/index.js';
export {
  executeMemoryToolCall,
  memoryErrorText,
  memoryExecute,
  memoryTool,
  runInOrder,
  toMemoryToolError,
} from './integrations/index.js';
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
export { MEMORY_COMMANDS } from './types.js';
