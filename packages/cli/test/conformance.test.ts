// `memdir conformance` runs vitest inside the CLI, itself spawned from this vitest run. Each run
// takes a few seconds: the property test is kept small and the timeouts generous.

import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFORMANCE_GROUPS } from '@memdir/conformance';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv, FIXTURES, runCli, tempFolder } from './helpers.js';

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
      expect(result.stdout).toContain('\nResult: PASS, the store conforms to the memdir protocol.\n');
      expect(result.stdout).toContain('\nStore: in-memory (fixture)\n');
      const { passed, failed } = counts(result.stdout);
      expect(failed).toBe(0);
      // The whole suite ran (twice: without and under a namespace), not a handful of tests.
      expect(passed).toBeGreaterThan(100);
      expect(failures(result.stdout)).toEqual([]);
      // Progress: one line per command group as it finishes, in the suite's order, before the report.
      const groups = result.stdout.split('\n').filter((line) => /^[✓✗] /.test(line));
      expect(groups[0]).toMatch(/^✓ without a namespace > view: \d+ passed \(\d+\.\ds\)$/);
      expect(groups).toContainEqual(
        expect.stringMatching(/^✓ under namespace 'conformance' > differential: 1 passed /),
      );
      // Every group but those that need a driver (driver, admin and the identity groups: the module
      // gives a store), once without and once under a namespace.
      const needDriver = new Set(['driver', 'admin', 'records', 'update by id', 'remove expect']);
      expect(groups.length).toBe(2 * CONFORMANCE_GROUPS.filter((group) => !needDriver.has(group)).length);
      expect(result.stdout.indexOf(groups.at(-1)!)).toBeLessThan(result.stdout.indexOf('\nStore: '));
    },
    RUN_TIMEOUT,
  );

  it(
    'names what a broken store gets wrong: byte sizes in listings and lost concurrent updates',
    async () => {
      const result = await conformance('./broken-store.mjs');
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toContain('\nResult: FAIL, the store does not conform to the memdir protocol.\n');
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
      // The report is for people: one location per error, never a stack trace or vitest's insides.
      expect(result.stdout).not.toMatch(/\n\s+at .+:\d+:\d+\n\s+at .+:\d+:\d+/);
      expect(result.stdout).not.toMatch(/node_modules[/\\](vitest|@vitest|vite|fast-check)[/\\]/);
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
          `ERROR ${module} exports no store factory (its exports: nothing): export createStore(options, backend) returning a MemoryStore, ` +
            'or createDriver(backend) returning a MemoryDriver (as named exports or on the default export).\n\n',
        );
        // Where memdir noticed it is no help to the module's author: no location line follows.
        expect(result.stdout).not.toContain('store-module');
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

/** The block of a report that starts at `FAIL  {name}` (or `ERROR`), up to the next blank line. */
function block(report: string, start: RegExp): string[] {
  const lines = report.split('\n');
  const first = lines.findIndex((line) => start.test(line));
  expect(first, report).toBeGreaterThanOrEqual(0);
  let end = first + 1;
  while (end < lines.length && !/^(FAIL {2}|ERROR |Store: |Tests: )/.test(lines[end]!)) end++;
  while (end > first + 1 && lines[end - 1] === '') end--;
  return lines.slice(first, end);
}

describe('memdir conformance: what a failure shows', () => {
  it(
    'a failed property test shows its seed, the shrunk counterexample and the diff',
    async () => {
      const result = await runCli(
        ['conformance', './off-by-one-store.mjs', '--filter', 'differential', '--property-runs', '20'],
        { cwd: FIXTURES },
      );
      expect(result.code, result.stdout + result.stderr).toBe(1);
      const failure = block(result.stdout, /^FAIL {2}without a namespace > differential > /);
      expect(failure[1]).toMatch(/^ {6}Property failed after \d+ tests$/);
      const text = failure.join('\n');
      expect(text).toMatch(/^ {6}\{ seed: -?\d+, path: "[\d:]+", endOnFailure: true \}$/m);
      expect(text).toMatch(/^ {6}Counterexample: \[.*"command":"create".*\]$/m);
      expect(text).toMatch(/^ {6}Shrunk \d+ time\(s\)$/m);
      expect(text).toMatch(/^ {6}Caused by: AssertionError: /m);
      // The diff of the two results: the reference's size, then this store's, one byte more.
      expect(text).toMatch(/^ {8}- Expected$/m);
      expect(text).toMatch(/^ {8}\+ Received$/m);
      const expected = /^ {8}- +(?:"[^"]*": "ok: [^\n]*\n {8}- +)?(\d+)B\t\/memories/m.exec(text);
      const received = /^ {8}\+ +(?:"[^"]*": "ok: [^\n]*\n {8}\+ +)?(\d+)B\t\/memories/m.exec(text);
      expect(expected, text).not.toBeNull();
      expect(received, text).not.toBeNull();
      expect(Number(received![1])).toBe(Number(expected![1]) + 1);
    },
    RUN_TIMEOUT,
  );

  it(
    'a driver call that never settles is announced while it hangs and named when the test times out',
    async () => {
      const result = await runCli(
        ['conformance', './hanging-store.mjs', '--filter', 'rename: a file reports', '--timeout', '3000'],
        { cwd: FIXTURES },
      );
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toContain(
        '\n  … waiting: driver.move("a.md", "b.md", {…}) has not settled after 2s\n',
      );
      expect(result.stdout).toContain(
        '\n  … waiting: driver.namespace("conformance").move("a.md", "b.md", {…}) has not settled after 2s\n',
      );
      const failure = block(result.stdout, /^FAIL {2}without a namespace > rename > rename: a file reports/);
      expect(failure[1]).toBe('      Test timed out in 3000ms.');
      expect(failure).toContain(
        '      If the store is only slow, give each test more time: memdir conformance --timeout MS',
      );
      const pending = failure.indexOf('      Still pending when the test failed:');
      expect(pending, failure.join('\n')).toBeGreaterThan(0);
      expect(failure[pending + 1]).toMatch(
        /^ {8}driver\.move\("a\.md", "b\.md", \{…\}\), pending for 3\.\ds$/,
      );
    },
    RUN_TIMEOUT,
  );

  it(
    'Ctrl-C stops the run, ends its workers and removes its temporary folders',
    async () => {
      const tmp = await tempFolder();
      try {
        const child = spawn(
          process.execPath,
          [BIN, 'conformance', './hanging-store.mjs', '--filter', 'rename'],
          {
            cwd: FIXTURES,
            env: cliEnv({ TMPDIR: tmp.path }),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        const waiting = new Promise<void>((resolve) => {
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            stdout += chunk;
            if (stdout.includes('… waiting: ')) resolve();
          });
        });
        child.stderr.resume();
        const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
        await waiting;
        expect((await readdir(tmp.path)).some((name) => name.startsWith('memdir-conformance-'))).toBe(true);
        const workers = await childrenOf(child.pid!);
        expect(workers.length).toBeGreaterThan(0);
        child.kill('SIGINT');
        expect(await closed).toBe(130);
        expect(stdout).toMatch(
          /\nmemdir conformance: SIGINT received: stopping the tests and removing .*memdir-conformance-/,
        );
        expect(await readdir(tmp.path)).toEqual([]);
        // The workers end with their parent (they lose its IPC channel), within moments.
        for (const pid of workers) await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
      } finally {
        await tmp.remove();
      }
    },
    RUN_TIMEOUT,
  );

  it(
    'a TypeScript module with a syntax error is reported with its file and line, exit 2',
    async () => {
      const folder = await tempFolder();
      try {
        await writeFile(
          join(folder.path, 'my-store.ts'),
          "import { createInMemoryDriver } from '@memdir/core';\nexport function createDriver(backend: string) {\n  return createInMemoryDriver(\n}\n",
        );
        const result = await runCli(['conformance', './my-store.ts'], { cwd: folder.path });
        expect(result.code, result.stdout + result.stderr).toBe(2);
        const error = block(result.stdout, /^ERROR /);
        expect(error[1]).toBe('      in my-store.ts:4:1');
        expect(error.join('\n')).toContain('Unexpected token');
        expect(result.stdout).toContain('Result: the store module could not be tested.\n');
      } finally {
        await folder.remove();
      }
    },
    RUN_TIMEOUT,
  );

  it(
    'a JavaScript module with a syntax error is reported with the line Node gives, exit 2',
    async () => {
      const folder = await tempFolder();
      try {
        await writeFile(
          join(folder.path, 'my-store.mjs'),
          'export function createDriver() {\n  return {\n}\n',
        );
        const result = await runCli(['conformance', './my-store.mjs'], { cwd: folder.path });
        expect(result.code, result.stdout + result.stderr).toBe(2);
        const error = block(result.stdout, /^ERROR /);
        expect(error[0]).toBe('ERROR SyntaxError: Unexpected end of input');
        expect(error[1]).toBe('      in my-store.mjs:4');
      } finally {
        await folder.remove();
      }
    },
    RUN_TIMEOUT,
  );

  it(
    'a module that throws while loading is reported with the line that threw, exit 2',
    async () => {
      const folder = await tempFolder();
      try {
        await writeFile(
          join(folder.path, 'my-store.mjs'),
          "export function createDriver() {}\nthrow new Error('no connection string');\n",
        );
        const result = await runCli(['conformance', './my-store.mjs'], { cwd: folder.path });
        expect(result.code, result.stdout + result.stderr).toBe(2);
        expect(block(result.stdout, /^ERROR /)).toEqual([
          'ERROR no connection string',
          '      at my-store.mjs:2:7',
        ]);
      } finally {
        await folder.remove();
      }
    },
    RUN_TIMEOUT,
  );
});

/** The pids of the processes whose parent is `pid` (Linux /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The fields after the command name (which is in parentheses and may hold spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === pid) children.push(Number(entry));
  }
  return children;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
