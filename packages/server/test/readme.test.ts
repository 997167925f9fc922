// The README's example, run as written (see scripts/readme-example.mjs).
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-example.mjs';

const PACKAGE = new URL('..', import.meta.url);

describe('README example', () => {
  it('embedding the handlers in a Node server prints what its comments say', async () => {
    const run = await runReadmeExample({ readme: new URL('README.md', PACKAGE), packageDir: PACKAGE });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(run.example.expectedOutput);
  });
});
