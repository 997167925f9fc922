// The README's examples, run as written (see scripts/readme-example.mjs): each must print exactly
// what its comments say, and nothing on stderr (no unhandled ioredis error event).
import { describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-example.mjs';

const PACKAGE = new URL('..', import.meta.url);

describe('README example', () => {
  it('standalone Redis (the main example) prints what its comments say', async () => {
    const run = await runReadmeExample({ readme: new URL('README.md', PACKAGE), packageDir: PACKAGE });
    expect(run.example.code).toContain('new Redis(process.env.REDIS_URL');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.example.expectedOutput).toBeDefined();
    expect(run.stdout).toBe(run.example.expectedOutput);
  });

  it('Redis Cluster prints what its comments say', async () => {
    const run = await runReadmeExample({
      readme: new URL('README.md', PACKAGE),
      packageDir: PACKAGE,
      name: 'cluster',
    });
    expect(run.example.code).toContain('new Cluster(');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(run.example.expectedOutput);
  });
});
