import Anthropic from '@anthropic-ai/sdk';
import { memoryTool } from '@memdir/core';
import { createFsStore } from '@memdir/fs';

export const DEFAULT_PROMPT =
  'I am planning a trip to Lisbon in May and I prefer quiet neighbourhoods. ' +
  'Check your memory for anything useful first, then remember what matters for next time.';

export interface AgentOptions {
  /** Where `ANTHROPIC_API_KEY`, and optionally `ANTHROPIC_BASE_URL` and `ANTHROPIC_MODEL`, are read. */
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
    log('  ANTHROPIC_API_KEY=sk-ant-... pnpm --filter @memdir/example-anthropic-tool-runner start');
    return;
  }

  const client = new Anthropic({ apiKey, baseURL: env['ANTHROPIC_BASE_URL'] || undefined });
  // Claude's memory lives in ./memory/memories, one plain file per note; it survives between runs.
  const store = createFsStore({ root });
  try {
    const runner = client.beta.messages.toolRunner({
      model: env['ANTHROPIC_MODEL'] || 'claude-sonnet-4-6',
      max_tokens: 2048,
      betas: ['context-management-2025-06-27'],
      messages: [{ role: 'user', content: prompt }],
      tools: [memoryTool(store)],
    });

    log(`you: ${prompt}`);
    for await (const message of runner) {
      for (const block of message.content) {
        if (block.type === 'text') log(`claude: ${block.text}`);
        if (block.type === 'tool_use') log(`  memory ${JSON.stringify(block.input)}`);
      }
      // The results the runner sends back next (it caches them: the tools run once).
      const response = await runner.generateToolResponse();
      if (response && Array.isArray(response.content)) {
        for (const block of response.content) {
          if (block.type !== 'tool_result') continue;
          const text = typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
          log(`  ${block.is_error ? '-> error' : '->'} ${text.replaceAll('\n', '\n     ')}`);
        }
      }
    }
  } finally {
    await store.close();
  }
}
