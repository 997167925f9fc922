// The examples a newcomer meets first, run as written: this package's README example, and the root
// README's, which drives the Anthropic SDK's tool runner against the scripted Messages API (the root
// example uses @memdir/fs, so it runs in that package's folder, where @memdir/fs and the SDK resolve).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-example.mjs';
import {
  memoryCall,
  type ScriptedMessagesServer,
  startScriptedMessagesServer,
  toolResultsOf,
} from './integrations/scripted-messages-server.js';

const CORE = new URL('..', import.meta.url);
const FS = new URL('../../fs/', import.meta.url);
const ROOT_README = new URL('../../../README.md', import.meta.url);

describe('README examples', () => {
  it('the @memdir/core README example prints what its comments say', async () => {
    const run = await runReadmeExample({ readme: new URL('README.md', CORE), packageDir: CORE });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.example.expectedOutput).toBeDefined();
    expect(run.stdout).toBe(run.example.expectedOutput);
  });

  describe('the root README example', () => {
    let server: ScriptedMessagesServer;
    beforeEach(async () => {
      server = await startScriptedMessagesServer();
    });
    afterEach(async () => {
      await server.close();
    });

    it('runs the tool runner to the end: Claude views, saves the preference, and answers', async () => {
      server.script(
        [memoryCall('toolu_01', { command: 'view', path: '/memories' })],
        [
          memoryCall('toolu_02', {
            command: 'create',
            path: '/memories/preferences.md',
            file_text: '- Prefers short answers.\n',
          }),
        ],
        [{ type: 'text', text: 'Noted: short answers from now on.' }],
      );
      let saved: string | undefined;
      const run = await runReadmeExample({
        readme: ROOT_README,
        packageDir: FS,
        env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-scripted' },
        inspect: async (folder) => {
          saved = await readFile(
            join(folder, 'memory/namespaces/user-42/memories/preferences.md'),
            'utf8',
          ).catch(() => undefined);
        },
      });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
      // Every scripted turn was asked for: the runner started, ran both memory calls, and finished.
      expect(server.pending).toBe(0);
      expect(server.requests).toHaveLength(3);
      expect(server.requests[0]!.body.tools).toEqual([{ type: 'memory_20250818', name: 'memory' }]);
      expect(toolResultsOf(server.requests[1]!)).toEqual([
        {
          type: 'tool_result',
          tool_use_id: 'toolu_01',
          content:
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
        },
      ]);
      expect(toolResultsOf(server.requests[2]!)).toEqual([
        {
          type: 'tool_result',
          tool_use_id: 'toolu_02',
          content: 'File created successfully at: /memories/preferences.md',
        },
      ]);
      expect(saved).toBe('- Prefers short answers.\n');
      expect(run.stdout).toBe("[ { type: 'text', text: 'Noted: short answers from now on.' } ]\n");
    });
  });
});
