// The README's main example, run as written (see scripts/readme-example.mjs): it must print exactly
// what its comments say.
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-example.mjs';

const PACKAGE = new URL('..', import.meta.url);

describe('README example', () => {
  it('prints what its comments say', async () => {
    const run = await runReadmeExample({ readme: new URL('README.md', PACKAGE), packageDir: PACKAGE });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.example.expectedOutput).toBeDefined();
    expect(run.stdout).toBe(run.example.expectedOutput);
  });
});
