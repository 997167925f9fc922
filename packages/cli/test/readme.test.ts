// The README's first example is a shell session: each `memdir ...` line, run with the built CLI in a
// fresh folder, must print exactly the `# ` lines below it (none: nothing). `npm ...` lines are the
// install step and are skipped. The `open-store` example (memdir/open-store in an application) runs
// as written and prints what its comments say.
import { describe, expect, it } from 'vitest';
import { readmeExample, runReadmeExample, shellTranscript } from '../../../scripts/readme-example.mjs';
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

describe('README example: openStore for applications', () => {
  it('opens the store of a URL with memdir/open-store and prints what its comments say', async () => {
    const run = await runReadmeExample({
      readme: new URL('../README.md', import.meta.url),
      packageDir: new URL('..', import.meta.url),
      name: 'open-store',
      env: { MEMDIR_STORE: 'file:./memory' },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.example.expectedOutput).toBeDefined();
    expect(run.stdout).toBe(run.example.expectedOutput);
  });
});
