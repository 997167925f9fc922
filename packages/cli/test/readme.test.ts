// The README's first example is a shell session: each `memdir ...` line, run with the built CLI in a
// fresh folder, must print exactly the `# ` lines below it (none: nothing). `npm ...` lines are the
// install step and are skipped.
import { describe, expect, it } from 'vitest';
import { readmeExample, shellTranscript } from '../../../scripts/readme-example.mjs';
import { runCli, tempFolder } from './helpers.js';

describe('README example', () => {
  it('each memdir command prints what the README shows', async () => {
    const example = readmeExample(new URL('../README.md', import.meta.url), { languages: ['sh'] });
    const steps = shellTranscript(example.code, 'memdir');
    expect(steps.length).toBeGreaterThanOrEqual(3);
    const folder = await tempFolder();
    try {
      for (const step of steps) {
        const result = await runCli(step.args, { cwd: folder.path });
        expect({ args: step.args, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
          args: step.args,
          code: 0,
          stderr: '',
          stdout: step.expected,
        });
      }
    } finally {
      await folder.remove();
    }
  });
});
