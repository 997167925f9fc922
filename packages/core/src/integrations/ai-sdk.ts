// The Vercel AI SDK's tool execution, mirrored structurally so @memdir/core needs no dependency on it.
// What `ai` does with an `execute` function (read in the source of ai 5, 6 and 7):
// - generateText starts the executes of all tool calls of one step at once (Promise.all; ai 7 unless
//   `toolCallConcurrency` is set), in the step's order; streamText starts each as its input completes;
// - a returned string becomes `{ type: 'text' }` output, sent by @ai-sdk/anthropic as the tool_result's
//   `content` as is;
// - a thrown error becomes `{ type: 'error-text', value: getErrorMessage(error) }`, sent with
//   `is_error: true`. `getErrorMessage` returns `error.message` in ai 5 and 6 (@ai-sdk/provider 2, 3)
//   and `error.toString()` in ai 7 (@ai-sdk/provider 4: "preserve error type prefix").
// So the error thrown here carries the full text, "Error: " included, as its message and as its
// toString(), and the model reads the same bytes on every version.
import type { MemoryStore } from '../tool.js';
import { executeMemoryToolCall } from './result.js';

/** What the AI SDK passes to `execute` that this function uses. */
export interface MemoryExecuteOptions {
  /** Aborted when the generation is aborted (or, in ai 7, the tool times out); queued calls are then skipped. */
  abortSignal?: AbortSignal | undefined;
  /** The tool call's id: recorded as `toolUseId` with the versions the call writes (history). */
  toolCallId?: string | undefined;
}

/** The `execute` function of `anthropic.tools.memory_20250818({ execute })`. */
export type MemoryExecute = (input: unknown, options?: MemoryExecuteOptions) => Promise<string>;

/**
 * The error `execute` throws for a failed call. Its `message` (and `toString()`) is exactly what the
 * model reads, `"Error: " + message`; the store's `MemoryToolError` (with its `code`) is on `cause`.
 */
class MemoryToolCallError extends Error {
  override readonly name = 'MemoryToolCallError';

  constructor(content: string, cause: Error) {
    super(content, { cause });
  }

  // ai 7 sends `error.toString()` to the model, which would otherwise prefix the class name.
  override toString(): string {
    return this.message;
  }
}

/**
 * The `execute` function for the Vercel AI SDK's Anthropic memory tool, backed by `store`:
 *
 * ```ts
 * const result = await generateText({
 *   model: anthropic('claude-sonnet-4-6'), prompt, stopWhen: stepCountIs(10),
 *   tools: { memory: anthropic.tools.memory_20250818({ execute: memoryExecute(store) }) },
 * });
 * ```
 *
 * The calls of one step run on the store one after another in the order the model wrote them (shared
 * with every other memdir integration over the same store object). A result reaches the model as the
 * store's text; a failure as `"Error: " + message` with `is_error: true`, on ai 5, 6 and 7.
 */
export function memoryExecute(store: MemoryStore): MemoryExecute {
  return async (input, options) => {
    const result = await executeMemoryToolCall(store, input, {
      signal: options?.abortSignal,
      toolUseId: options?.toolCallId,
    });
    if (result.error !== undefined) throw new MemoryToolCallError(result.content, result.error);
    return result.content;
  };
}
