/**
 * The `memdir` command line as a library: run it in-process, serve a store over MCP from your own
 * program, or register a store URL scheme for your own backend. The command line itself is in
 * main.ts, which opens with a map of the package's files.
 * @module
 */
export {
  type DemoFile,
  type DemoFrame,
  type DemoLook,
  formatDemo,
  formatDemoEntry,
  PLAIN_LOOK,
} from './demo-format.js';
export {
  DEMO_SESSION,
  type DemoEntry,
  type DemoStep,
  demoWrittenPaths,
  playDemoSession,
} from './demo-session.js';
export { CliUsageError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors.js';
export { type ExecResult, execLine } from './exec.js';
export type { CliIo } from './io.js';
export { run } from './main.js';
export {
  createMcpServer,
  MEMORY_TOOL_DESCRIPTION,
  MEMORY_TOOL_INPUT_SCHEMA,
  MEMORY_TOOL_NAME,
} from './serve.js';
export {
  DEFAULT_STORE_URL,
  type OpenStoreContext,
  openStore,
  registerStoreScheme,
  type StoreAdapterModule,
  type StoreOpener,
} from './store-url.js';
