// One memory tool call as the model receives it: the text of its `tool_result` and the error flag,
// whatever the call threw, so every integration answers a failure with the same `Error: ...` text.
import { isMemoryToolError, type MemoryToolError, unexpectedBackendFailure } from '../errors.js';
import { CALL_ABORTED, errorResult } from '../messages.js';
import type { Actor, MemoryStore } from '../tool.js';
import { runInOrder } from './order.js';

/**
 * What the model receives for one memory tool call: the `content` of the `tool_result` block and its
 * `is_error` flag (SPEC section 7).
 */
export interface MemoryToolCallResult {
  /** The result text on success; `"Error: " + message` on failure. */
  content: string;
  /** True when the command failed. */
  isError: boolean;
  /**
   * The failure, when there was one: the store's {@link MemoryToolError}, or an `Error` named
   * `AbortError` when the call was skipped because its signal was aborted. Its `message` is `content`
   * without the `"Error: "` prefix.
   */
  error?: Error;
}

/** Options of {@link executeMemoryToolCall}. */
export interface MemoryToolCallOptions {
  /**
   * When aborted before the call's turn in the store's queue comes, the call is not run at all and
   * fails with an `Error` named `AbortError`, so an agent run that was stopped leaves its later memory
   * calls undone. A call already running is not interrupted (each command is atomic, and an agent loop
   * waits for its tool calls anyway).
   * @default undefined (never aborted)
   */
  signal?: AbortSignal | null | undefined;
  /** Who makes the call (history), over the store's own `actor` option. @default the store's */
  actor?: Actor | undefined;
  /** The tool call's id (history). @default undefined */
  toolUseId?: string | undefined;
}

/** The text every integration sends for a failure: `"Error: "` and the message written for the model. */
export function memoryErrorText(error: Error): string {
  return errorResult(error.message);
}

/**
 * `error` as the {@link MemoryToolError} whose message the model reads. A custom store may throw
 * anything; whatever is not a `MemoryToolError` becomes a `BACKEND` error with a fixed message (the
 * same as the engine's for a failing driver), so no stack trace, host path or secret inside the
 * original error reaches the model. The original stays on `cause` for the application's logs.
 */
export function toMemoryToolError(error: unknown): MemoryToolError {
  return isMemoryToolError(error) ? error : unexpectedBackendFailure(error);
}

/** The error a call gets when its signal was aborted before it ran. */
function abortedError(signal: AbortSignal): Error {
  const error = new Error(CALL_ABORTED, {
    cause: signal.reason,
  });
  error.name = 'AbortError';
  return error;
}

/**
 * Runs one raw tool input (untrusted, any shape) on `store`, in the store's queue (see
 * {@link runInOrder}), and resolves with exactly what the model should receive. It never rejects:
 * every failure, including an abort, is a result with `isError: true`. A store result that is not a
 * string is a store bug and is reported as a `BACKEND` failure rather than sent to the model.
 */
export async function executeMemoryToolCall(
  store: MemoryStore,
  input: unknown,
  options: MemoryToolCallOptions = {},
): Promise<MemoryToolCallResult> {
  return runInOrder(store, async () => {
    const { signal } = options;
    if (signal?.aborted) {
      const error = abortedError(signal);
      return { content: memoryErrorText(error), isError: true, error };
    }
    try {
      const { actor, toolUseId } = options;
      const content = await store.execute(
        input,
        actor === undefined && toolUseId === undefined ? undefined : { actor, toolUseId },
      );
      if (typeof content !== 'string') {
        throw new TypeError(`MemoryStore.execute resolved to ${typeof content}, expected a string`);
      }
      return { content, isError: false };
    } catch (thrown) {
      const error = toMemoryToolError(thrown);
      return { content: memoryErrorText(error), isError: true, error };
    }
  });
}
