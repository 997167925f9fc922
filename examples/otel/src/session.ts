// A short memory session with OpenTelemetry on: the spans and metrics go to the exporters given,
// so `index.ts` prints them with the console exporters and the test collects them in memory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryCommand } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { instrumentMemdir } from '@memdir/otel';
import type { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';

/** What Claude might send in one session: a look around, a note, two edits, a mistake, a tidy-up. */
export const SESSION: readonly MemoryCommand[] = [
  { command: 'view', path: '/memories' },
  { command: 'create', path: '/memories/user/preferences.md', file_text: '# Preferences\n- short answers\n' },
  { command: 'str_replace', path: '/memories/user/preferences.md', old_str: 'short', new_str: 'brief' },
  { command: 'insert', path: '/memories/user/preferences.md', insert_line: 2, insert_text: '- metric units' },
  { command: 'view', path: '/memories/user/notes.md' },
  { command: 'rename', old_path: '/memories/user/preferences.md', new_path: '/memories/user/profile.md' },
  { command: 'view', path: '/memories/user' },
];

/** Runs the session on a fresh folder with memdir instrumented on the given providers. */
export async function runSession(
  tracerProvider: BasicTracerProvider,
  meterProvider: MeterProvider,
): Promise<string[]> {
  const instrumentation = instrumentMemdir({ tracerProvider, meterProvider });
  const root = await mkdtemp(join(tmpdir(), 'memdir-otel-example-'));
  const store = createFsStore({ root, namespace: 'user-42' });
  const results: string[] = [];
  try {
    for (const [index, input] of SESSION.entries()) {
      // toolUseId: what the tool runner passes for each tool_use block (gen_ai.tool.call.id).
      const result = await store
        .execute(input, { toolUseId: `toolu_${String(index + 1).padStart(2, '0')}` })
        .catch((error: Error) => `Error: ${error.message}`);
      results.push(result);
    }
  } finally {
    await store.close();
    instrumentation.disable();
    await rm(root, { recursive: true, force: true });
  }
  return results;
}
