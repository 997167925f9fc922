// @memdir/server: memdir's HTTP server as web-standard handlers. Where things are:
// app.ts (the handler, its routes and doors), auth.ts (tokens), limits.ts (rate and in-flight),
// body.ts and json-shape.ts (bounded JSON), host-check.ts (Host/Origin), metrics.ts (Prometheus),
// access-log.ts (one bounded line per request), mcp-door.ts (stateless MCP; mcp-fast-path.ts, its
// single tools/call past the SDK),
// session-labels.ts (session ids any process can check), ui/ (the inspector at /ui), api/ (the memory
// stores API).
export { type AccessRecord, accessLine } from './access-log.js';
export {
  isStoreId,
  MEMORY_STORES_PATH,
  type MemoryStoresBackend,
  type MountedMemoryStores,
  memoryStoresDoor,
  mountMemoryStores,
  REGISTRY_NAMESPACE,
  SESSION_HEADER,
  type StoreEntry,
} from './api/index.js';
export {
  type AccessEntry,
  createMemdirServer,
  type Door,
  type DoorContext,
  type DoorOptions,
  type MemdirServer,
  type MemdirServerOptions,
  RESOURCE_METADATA_PATH,
  type RequestEnv,
} from './app.js';
export { challenge, presentedToken, type TokenGrant, TokenTable } from './auth.js';
export { type BodyLimits, type JsonBody, readJsonBody } from './body.js';
export { checkHostAndOrigin, type HostCheckOptions } from './host-check.js';
export { checkJsonShape, type JsonShapeLimits, type JsonShapeRefusal } from './json-shape.js';
export { InFlight, RateLimiter } from './limits.js';
export { type McpDoorOptions, mcpDoor } from './mcp-door.js';
export type { ToolCall, ToolCaller } from './mcp-fast-path.js';
export { Metrics } from './metrics.js';
export { type SessionLabelOptions, SessionLabels } from './session-labels.js';
export {
  CSP,
  escapeHtml,
  Html,
  html,
  INSPECTOR_PATH,
  type InspectorOptions,
  inspectorDoor,
  mountInspector,
  shown,
} from './ui/index.js';
