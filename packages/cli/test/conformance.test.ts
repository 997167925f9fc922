// `memdir conformance` runs vitest inside the CLI, itself spawned from this vitest run. Each run
// takes a few seconds: the property test is kept small and the timeouts generous.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempFolder } from './helpers.js';

const RUN_TIMEOUT = 180_000;

function conformance(module: string, ...flags: string[]) {
  return runCli(['conformance', module, '--property-runs', '3', ...flags], { cwd: FIXTURES });
}

/** The "FAIL  {name}" lines of a report, with the message line that follows each. */
function failures(report: string): Array<{ name: string; message: string }> {
  const lines = report.split('\n');
  const found: Array<{ name: string; message: string }> = [];
  lines.forEach((line, index) => {
    if (line.startsWith('FAIL  '))
      found.push({ name: line.slice(6), message: (lines[index + 1] ?? '').trim() });
  });
  return found;
}

function counts(report: string): { passed: number; failed: number } {
  const match = /^Tests: (\d+) passed, (\d+) failed/m.exec(report);
  expect(match, report).not.toBeNull();
  return { passed: Number(match![1]), failed: Number(match![2]) };
}

describe('memdir conformance', () => {
  it(
    'passes the in-memory reference store (a TypeScript module with named exports)',
    async () => {
      const result = await conformance('./good-store.ts');
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^memdir conformance: testing .*good-store\.ts\n/);
      expect(result.stdout).toContain('\nResult: PASS, the store conforms to the memdir spec.\n');
      expect(result.stdout).toContain('\nStore: in-memory (fixture)\n');
      const { passed, failed } = counts(result.stdout);
      expect(failed).toBe(0);
      // The whole suite ran (twice: without and under a namespace), not a handful of tests.
      expect(passed).toBeGreaterThan(100);
      expect(failures(result.stdout)).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  it(
    'names what a broken store gets wrong: byte sizes in listings and lost concurrent updates',
    async () => {
      const result = await conformance('./broken-store.mjs');
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toContain('\nResult: FAIL, the store does not conform to the memdir spec.\n');
      const failed = failures(result.stdout);
      const { passed, failed: failedCount } = counts(result.stdout);
      expect(failedCount).toBe(failed.length);
      // Most of the suite still passes: the report points at the two bugs, not at everything.
      expect(passed).toBeGreaterThan(failedCount);
      const names = failed.map((failure) => failure.name);
      // Bug 1: sizes counted in characters, not UTF-8 bytes.
      expect(
        names.some((name) => /^without a namespace > view > .*(size|byte|UTF-8|utf-8)/i.test(name)),
        names.join('\n'),
      ).toBe(true);
      // Bug 2: writes ignore their compare-and-swap, so concurrent updates are lost.
      expect(
        names.some((name) => /^without a namespace > concurrency > .*insert/i.test(name)),
        names.join('\n'),
      ).toBe(true);
      // A text compared in full, which vitest's message cuts short, gets its first differing line.
      const lines = result.stdout.split('\n');
      const sizes = lines.findIndex((line) =>
        /^FAIL {2}without a namespace > view > .*(size|byte)/i.test(line),
      );
      expect(lines[sizes + 2]).toMatch(
        /^ {6}first difference, line \d+: expected "\d+B\\t\/memories.*", got "\d+B\\t\/memories/,
      );
      // Each failure carries its first assertion line.
      for (const failure of failed) expect(failure.message).not.toBe('');
      // The report is for people: no stack frames.
      expect(result.stdout).not.toMatch(/\n\s+at .+:\d+:\d+/);
    },
    RUN_TIMEOUT,
  );

  it(
    '--filter runs only the matching tests',
    async () => {
      const result = await conformance(
        './good-store.ts',
        '--filter',
        'delete',
        '--verbose',
        '--name',
        'renamed',
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('\nStore: renamed\n');
      const listed = result.stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) {2}/.test(line));
      const ran = listed.filter((line) => line.startsWith('PASS'));
      expect(ran.length).toBeGreaterThan(0);
      for (const line of ran) expect(line).toMatch(/delete/);
    },
    RUN_TIMEOUT,
  );

  it(
    'a module without a factory is reported, exit 2',
    async () => {
      const folder = await tempFolder();
      try {
        const module = join(folder.path, 'empty-store.mjs');
        await writeFile(module, 'export const nothing = 1;\n');
        const result = await runCli(['conformance', module], { cwd: folder.path });
        expect(result.code).toBe(2);
        expect(result.stdout).toContain(
          'ERROR The module exports no store factory: export createStore(options, backend) returning a MemoryStore, ' +
            'or createDriver(backend) returning a MemoryDriver (as named exports or on the default export).',
        );
        expect(result.stdout).toContain('Result: the store module could not be tested.\n');
      } finally {
        await folder.remove();
      }
    },
    RUN_TIMEOUT,
  );

  it('a missing module is a usage error', async () => {
    const result = await runCli(['conformance', './nope.mjs'], { cwd: FIXTURES });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`memdir: conformance: no such file: ${join(FIXTURES, 'nope.mjs')}\n`);
  });

  it('no module is a usage error', async () => {
    const result = await runCli(['conformance']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'memdir: conformance: give the module to test, e.g. memdir conformance ./my-store.js',
    );
  });
});
