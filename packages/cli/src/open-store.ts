// `memdir/open-store`: a store from a URL, for applications that take a store URL as the CLI does
// (file:, memory:, redis://, postgres://, s3://, a registered or third-party scheme) without the
// CLI's MCP, HTTP and argument dependencies. Its module graph is store-url.ts and what it imports:
// @memdir/core, and @memdir/fs or an adapter's `./cli` module, loaded when a URL names it
// (lean.test.ts runs it in an install that holds nothing else).
export { CliUsageError } from './errors.js';
export {
  DEFAULT_STORE_URL,
  type OpenStoreContext,
  openStore,
  redactStoreUrl,
  registerStoreScheme,
  type StoreAdapterModule,
  type StoreOpener,
} from './store-url.js';
