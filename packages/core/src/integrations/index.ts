export type { MemoryExecute, MemoryExecuteOptions } from './ai-sdk.js';
export { memoryExecute } from './ai-sdk.js';
export type { MemoryRunnableTool, MemoryToolRunContext } from './anthropic.js';
export { memoryTool } from './anthropic.js';
export type { McpCallOptions, McpToolResult } from './mcp.js';
export { mcpCallTool, mcpRequestTooLarge } from './mcp.js';
export { runInOrder } from './order.js';
export type { MemoryToolCallOptions, MemoryToolCallResult } from './result.js';
export { executeMemoryToolCall, memoryErrorText, toMemoryToolError } from './result.js';
