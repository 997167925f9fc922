// The Model Context Protocol's `tools/call`, mirrored structurally so @memdir/core needs no
// dependency on the MCP SDK. A memory tool served over MCP (the `memdir serve` command, or your own
// server) answers each call through `mcpCallTool`: the same ordering queue and the same error
// rendering as the tool runner and AI SDK integrations, so no raw error reaches the model.
import { MemoryToolError } from '../errors.js';
import { requestTooLarge, resultTooLarge, unknownTool } from '../messages.js';
import { utf8Length } from '../path.js';
import type { Actor, MemoryStore } from '../tool.js';
import { executeMemoryToolCall, memoryErrorText } from './result.js';

/** The result of an MCP `tools/call`, as the MCP SDK's `CallToolResult` has it. */
export interface McpToolResult {
  content: Array<{ type: 'text'; text: string }>;
  /** Present (true) only for a failure. */
  isError?: true;
  [key: string]: unknown;
}

/** Options of {@link mcpCallTool}. */
export interface McpCallOptions {
  /** The name the memory tool is served under. @default 'memory' */
  toolName?: string | undefined;
  /**
   * The largest result, in UTF-8 bytes, the transport can carry in one message: a larger result is
   * replaced by an error saying so (the command has run).
   * @default no limit
   */
  maxResultBytes?: number | undefined;
  /** Aborts a call still waiting in the store's queue (see `executeMemoryToolCall`). */
  signal?: AbortSignal | null | undefined;
  /** Who makes the call (history): a token's user, the MCP client's name... @default the store's */
  actor?: Actor | undefined;
  /** The MCP request id, as a string (history). @default undefined */
  toolUseId?: string | undefined;
}

function text(content: string, isError: boolean): McpToolResult {
  return isError
    ? { content: [{ type: 'text', text: content }], isError: true }
    : { content: [{ type: 'text', text: content }] };
}

/**
 * Answers one MCP `tools/call` of the memory tool on `store`: `name` and `input` are the request's
 * `params.name` and `params.arguments`. Never rejects.
 */
export async function mcpCallTool(
  store: MemoryStore,
  name: string,
  input: unknown,
  options: McpCallOptions = {},
): Promise<McpToolResult> {
  if (name !== (options.toolName ?? 'memory')) {
    return text(memoryErrorText(new MemoryToolError('INVALID_INPUT', unknownTool(name))), true);
  }
  const result = await executeMemoryToolCall(store, input === undefined ? {} : input, {
    signal: options.signal,
    actor: options.actor,
    toolUseId: options.toolUseId,
  });
  const limit = options.maxResultBytes;
  if (limit !== undefined && result.content.length * 3 > limit) {
    const bytes = utf8Length(result.content);
    if (bytes > limit) {
      const error = new MemoryToolError('TOO_LARGE', resultTooLarge(bytes, limit), { cause: result.error });
      return text(memoryErrorText(error), true);
    }
  }
  return text(result.content, result.isError);
}

/** The result for a `tools/call` whose request was too large to read (`bytes` over `limit`): nothing ran. */
export function mcpRequestTooLarge(bytes: number, limit: number): McpToolResult {
  return text(memoryErrorText(new MemoryToolError('INVALID_INPUT', requestTooLarge(bytes, limit))), true);
}
