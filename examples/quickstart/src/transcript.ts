import { isMemoryToolError, type MemoryStore } from '@memdir/core';
import type { SessionStep } from './session.js';

/** One tool call and what came back, as the model sees it. */
export interface TranscriptEntry {
  step: SessionStep;
  /**
   * The `tool_result` content Claude reads: the result text, or `"Error: " + message` for a
   * failed command (SPEC section 7).
   */
  content: string;
  /** The `is_error` flag of the `tool_result`. */
  isError: boolean;
}

/**
 * Runs each step through `store.execute()` in order, as an integration would: a
 * `MemoryToolError` becomes an error result the model reads, anything else is a bug and is thrown.
 */
export async function runSession(
  store: MemoryStore,
  steps: readonly SessionStep[],
): Promise<TranscriptEntry[]> {
  const entries: TranscriptEntry[] = [];
  for (const step of steps) {
    try {
      entries.push({ step, content: await store.execute(step.input), isError: false });
    } catch (error) {
      if (!isMemoryToolError(error)) throw error;
      entries.push({ step, content: `Error: ${error.message}`, isError: true });
    }
  }
  return entries;
}
