import { createAnthropic } from '@ai-sdk/anthropic';
import { memoryExecute } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { generateText, stepCountIs } from 'ai';

export const DEFAULT_PROMPT =
  'I am planning a trip to Lisbon in May and I prefer quiet neighbourhoods. ' +
  'Check your memory for anything useful first, then remember what matters for next time.';

export interface AgentOptions {
  /**
   * Where `ANTHROPIC_API_KEY`, and optionally `ANTHROPIC_BASE_URL` (as the AI SDK reads it, ending in
   * `/v1`) and `ANTHROPIC_MODEL`, are read.
   */
  env: Record<string, string | undefined>;
  /** The memory folder; files live in `{root}/memories`. */
  root: string;
  /** The user's message. */
  prompt: string;
  /** Where the transcript is printed. */
  log: (line: string) => void;
}

/**
 * One conversation with Claude, which may read and write its memory folder through memdir. Without an
 * API key it explains what it needs and returns without touching the network or the folder.
 */
export async function runAgent({ env, root, prompt, log }: AgentOptions): Promise<void> {
  const apiKey = env['ANTHROPIC_API_KEY'];
  if (!apiKey) {
    log('This example talks to Claude, so it needs an Anthropic API key.');
    log('Set ANTHROPIC_API_KEY (https://console.anthropic.com/settings/keys) and run it again:');
    log('  ANTHROPIC_API_KEY=sk-ant-... pnpm --filter @memdir/example-ai-sdk start');
    return;
  }

  const anthropic = createAnthropic({ apiKey, baseURL: env['ANTHROPIC_BASE_URL'] || undefined });
  // Claude's memory lives in ./memory/memories, one plain file per note; it survives between runs.
  const store = createFsStore({ root });
  try {
    log(`you: ${prompt}`);
    await generateText({
      model: anthropic(env['ANTHROPIC_MODEL'] || 'claude-sonnet-4-6'),
      maxOutputTokens: 2048,
      prompt,
      // Each step is one reply of Claude; the loop stops when Claude stops calling tools.
      stopWhen: stepCountIs(20),
      tools: { memory: anthropic.tools.memory_20250818({ execute: memoryExecute(store) }) },
      onStepFinish(step) {
        for (const part of step.content) {
          if (part.type === 'text' && part.text !== '') log(`claude: ${part.text}`);
          if (part.type === 'tool-call') log(`  memory ${JSON.stringify(part.input)}`);
          if (part.type === 'tool-result') log(`  -> ${String(part.output).replaceAll('\n', '\n     ')}`);
          // memoryExecute's errors carry exactly the text Claude reads: "Error: ..."
          if (part.type === 'tool-error') log(`  -> error ${String(part.error)}`);
        }
      },
    });
  } finally {
    await store.close();
  }
}
