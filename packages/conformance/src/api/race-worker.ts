// One writer of the kit's 4-process race (concurrency.ts), in a process of its own: reads a line
// per round on stdin, `{"round", "content", "sha"}`, sends one update of the memory under that
// precondition with Anthropic's SDK, and answers one line on stdout: `{"round", "status", "sha"?}`.
// Its connection comes in the environment (never in argv, which `ps` shows).
import { createInterface } from 'node:readline';
import Anthropic from '@anthropic-ai/sdk';

const { MEMDIR_RACE_BASE_URL, MEMDIR_RACE_TOKEN, MEMDIR_RACE_STORE, MEMDIR_RACE_MEMORY } = process.env;
const client = new Anthropic({ baseURL: MEMDIR_RACE_BASE_URL, apiKey: MEMDIR_RACE_TOKEN, maxRetries: 0 });

for await (const line of createInterface({ input: process.stdin })) {
  const { round, content, sha } = JSON.parse(line) as { round: number; content: string; sha: string };
  let answer: Record<string, unknown>;
  try {
    const memory = await client.beta.memoryStores.memories.update(MEMDIR_RACE_MEMORY!, {
      memory_store_id: MEMDIR_RACE_STORE!,
      content,
      precondition: { type: 'content_sha256', content_sha256: sha },
    });
    answer = { round, status: 200, sha: memory.content_sha256, version: memory.memory_version_id };
  } catch (error) {
    answer = { round, status: error instanceof Anthropic.APIError ? error.status : 0, error: String(error) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
