// The ways a store meets an agent framework, in one list: the Anthropic SDK's tool runner
// (`anthropic.ts`), the AI SDK's `execute` (`ai-sdk.ts`), an MCP `tools/call` (`mcp.ts`), one raw
// tool call as a `tool_result` (`result.ts`), and the per-store queue they all share (`order.ts`).
export type { MemoryExecute, MemoryExecuteOptions } from './ai-sdk.js';
export { memoryExecute } from './ai-sdk.js';
export type { MemoryRunnableTool, MemoryToolRunContext } from './anthropic.js';
export { memoryTool } from './anthropic.js';
export type { McpCallOptions, McpToolResult } from './mcp.js';
export { mcpCallTool, mcpRequestTooLarge } from './mcp.js';
export { runInOrder } from './order.js';
export type { MemoryToolCallOptions, MemoryToolCallResult } from './result.js';
export { executeMemoryToolCall, memoryErrorText, toMemoryToolError } from './result.js';
