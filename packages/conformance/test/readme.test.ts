// The README's main example is a test file: copied as written (see scripts/readme-example.mjs) into a
// folder of this package, where `@memdir/conformance` and `@memdir/core` resolve as they would for a
// user, and run in a vitest of its own. The view group is enough to show it registers a passing suite.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { readmeExample } from '../../../scripts/readme-example.mjs';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

it('the README example registers the suite, and the in-memory store passes it', async () => {
  const example = readmeExample(join(PACKAGE, 'README.md'));
  const folder = await mkdtemp(join(PACKAGE, '.readme-run-'));
  try {
    await writeFile(join(folder, 'conformance.test.ts'), example.code);
    await writeFile(join(folder, 'vitest.config.mjs'), 'export default {};\n');
    const report = join(folder, 'report.json');
    const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
    // A clean environment: the variables of this vitest worker would confuse the inner one.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
    let output = '';
    await new Promise<void>((resolve) => {
      execFile(
        process.execPath,
        [vitest, 'run', '-t', 'view: ', '--reporter=json', `--outputFile=${report}`],
        { cwd: folder, env, maxBuffer: 64 * 1024 * 1024 },
        (_error, stdout, stderr) => {
          output = stdout + stderr;
          resolve();
        },
      );
    });
    const result = JSON.parse(await readFile(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
    };
    expect(result.numFailedTests, output).toBe(0);
    expect(result.numPassedTests, output).toBeGreaterThan(10);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
