// The Anthropic TypeScript SDK's tool runner (`client.beta.messages.toolRunner`), mirrored structurally
// so that @memdir/core needs no dependency on the SDK. What the runner does, as of @anthropic-ai/sdk
// 1.14 (lib/tools/BetaRunnableTool.ts, BetaToolRunner.ts):
// - it calls `parse(input)` then `run(parsed, context)` for every tool_use block of a reply, all at
//   once (Promise.all; with streaming, each as soon as its block is complete), in the reply's order;
// - a returned string becomes the tool_result's `content` as is;
// - a thrown error becomes `content: "Error: " + error.message` with `is_error: true`.
import type { MemoryCommand, MemoryStore } from '../tool.js';
import { executeMemoryToolCall } from './result.js';

/** What the runner passes to `run` that this tool uses. */
export interface MemoryToolRunContext {
  /** Aborted when the runner is aborted; queued memory calls are then skipped. */
  signal?: AbortSignal | null | undefined;
  /** The `tool_use` block of the call: its `id` is recorded as `toolUseId` with the versions the call writes. */
  toolUse?: { readonly id?: string | undefined } | undefined;
  /** The same block, under the name SDKs before 1.14 used. */
  toolUseBlock?: { readonly id?: string | undefined } | undefined;
}

/**
 * A runnable `memory_20250818` tool, in the shape `client.beta.messages.toolRunner` expects of its
 * `tools` (the SDK's `BetaRunnableTool`).
 */
export interface MemoryRunnableTool {
  type: 'memory_20250818';
  name: 'memory';
  /** Returns the tool input unchanged: the store checks it (SPEC section 1) when the call runs. */
  parse(content: unknown): MemoryCommand;
  /**
   * Runs the call on the store, after the calls queued before it (see `runInOrder`). Resolves to the
   * result text; rejects with the store's `MemoryToolError` (or an `AbortError`), which the runner
   * sends as `"Error: " + message` with `is_error: true`.
   */
  run(input: MemoryCommand, context?: MemoryToolRunContext): Promise<string>;
}

/**
 * The memory tool for the Anthropic SDK's tool runner, backed by `store`:
 *
 * ```ts
 * const runner = client.beta.messages.toolRunner({
 *   model: 'claude-sonnet-4-6', max_tokens: 2048, messages,
 *   tools: [memoryTool(createFsStore({ root: './memory' }))],
 * });
 * ```
 *
 * The runner starts all tool calls of one reply at once; this tool runs the calls on one store one
 * after another in the order the model wrote them, shared with every other memdir integration over
 * the same store object. Failures reach the model as `"Error: " + message` with `is_error: true`; an
 * error that is not a `MemoryToolError` (from a custom store) is replaced by a fixed `BACKEND` message
 * so no stack trace or host path reaches the model.
 *
 * @param extraProps Further properties of the tool definition sent to the API, e.g.
 *   `{ cache_control: { type: 'ephemeral' } }`. `type`, `name`, `parse` and `run` cannot be overridden.
 * @default extraProps `{}`
 */
export function memoryTool<const Extra extends object = Record<never, never>>(
  store: MemoryStore,
  extraProps?: Extra,
): Omit<Extra, keyof MemoryRunnableTool> & MemoryRunnableTool {
  const tool: MemoryRunnableTool = {
    type: 'memory_20250818',
    name: 'memory',
    parse: (content) => content as MemoryCommand,
    async run(input, context) {
      const result = await executeMemoryToolCall(store, input, {
        signal: context?.signal,
        toolUseId: context?.toolUse?.id ?? context?.toolUseBlock?.id,
      });
      if (result.error !== undefined) throw result.error;
      return result.content;
    },
  };
  return { ...extraProps, ...tool } as Omit<Extra, keyof MemoryRunnableTool> & MemoryRunnableTool;
}
