import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { TestCase, TestModule } from 'vitest/node';
import type { ConformanceSettings } from './conformance-target.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors.js';
import { COMMAND_HELP } from './help.js';
import { type CliIo, write } from './io.js';

/** What `memdir conformance` found. */
export interface ConformanceReport {
  /** The store's name as the suite showed it (`--name`, the module's `name`, or its file name). */
  name: string | undefined;
  passed: number;
  failed: number;
  skipped: number;
  /**
   * Each failing test: its full name, the first line of its first error, and, when the assertion
   * compared two texts, the first line where they differ (vitest cuts long strings in its message).
   */
  failures: Array<{ name: string; message: string; difference?: string }>;
  /** Every test with its state, in order (for --verbose). */
  tests: Array<{ name: string; state: string }>;
  /** Errors outside any test: the module did not load, a hook failed, an unhandled rejection. */
  errors: string[];
  durationMs: number;
}

const MESSAGE_LIMIT = 400;

/** The first non-empty line of an error message, cut to a readable length. */
function firstLine(message: string): string {
  const first = message.split('\n').find((candidate) => candidate.trim() !== '') ?? message;
  // vitest appends how it compared ("// Object.is equality"); the report reads better without it.
  const line = first.replace(/ \/\/ Object\.is equality$/, '');
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT)}...` : line;
}

const QUOTE_LIMIT = 160;

function quote(line: string | undefined): string {
  if (line === undefined) return '(no such line)';
  const quoted = JSON.stringify(line);
  return quoted.length > QUOTE_LIMIT ? `${quoted.slice(0, QUOTE_LIMIT)}...` : quoted;
}

/**
 * `first difference, line N: expected "...", got "..."` for two texts that differ (vitest gives
 * strings as they are and other values pretty-printed), else undefined.
 */
function firstDifference(expected: unknown, actual: unknown): string | undefined {
  if (typeof expected !== 'string' || typeof actual !== 'string' || expected === actual) return undefined;
  const want = expected.split('\n');
  const got = actual.split('\n');
  let index = 0;
  while (index < want.length && index < got.length && want[index] === got[index]) index++;
  return `first difference, line ${index + 1}: expected ${quote(want[index])}, got ${quote(got[index])}`;
}

/** The absolute path of an ESM module this package can import, as Node resolves it from here. */
function resolveHere(specifier: string): string {
  return fileURLToPath(import.meta.resolve(specifier));
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new CliUsageError(
      `conformance: --${flag} expects a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/**
 * `memdir conformance MODULE`: runs the conformance suite of `@memdir/core` on the store module, in
 * vitest started from here on a generated test file, and prints a report on stdout.
 * @returns 0 when every test passed, 1 when one failed, 2 when the module could not be loaded.
 */
export async function runConformance(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseConformanceArgs>;
  try {
    parsed = parseConformanceArgs(args);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`conformance: ${(error as Error).message}`, {
      hint: 'Run "memdir conformance --help" for usage.',
    });
  }
  const { values, positionals } = parsed;
  if (values.help) {
    await write(io.stdout, `${COMMAND_HELP.conformance}\n`);
    return EXIT_OK;
  }
  if (positionals.length !== 1) {
    throw new CliUsageError(
      positionals.length === 0
        ? 'conformance: give the module to test, e.g. memdir conformance ./my-store.js'
        : `conformance: unexpected argument ${JSON.stringify(positionals[1])}`,
      { hint: 'Run "memdir conformance --help" for usage.' },
    );
  }
  const modulePath = resolve(io.cwd, positionals[0]!);
  if (!existsSync(modulePath)) throw new CliUsageError(`conformance: no such file: ${modulePath}`);

  const settings: ConformanceSettings = {
    fallbackName: basename(modulePath, extname(modulePath)),
    name: values.name,
    propertyRuns: positiveInteger('property-runs', values['property-runs']),
    timeout: positiveInteger('timeout', values.timeout),
  };
  if (values.filter !== undefined) {
    try {
      new RegExp(values.filter);
    } catch (error) {
      throw new CliUsageError(
        `conformance: --filter is not a valid regular expression: ${(error as Error).message}`,
      );
    }
  }

  await write(io.stdout, `memdir conformance: testing ${modulePath}\n`);
  const report = await runSuite(modulePath, settings, values.filter, io);
  await write(io.stdout, formatReport(report, values.verbose === true));
  if (report.errors.length > 0 && report.passed + report.failed === 0) return EXIT_USAGE;
  return report.failed > 0 || report.errors.length > 0 ? EXIT_FAILED : EXIT_OK;
}

function parseConformanceArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string', short: 'n' },
      'property-runs': { type: 'string' },
      timeout: { type: 'string' },
      filter: { type: 'string', short: 't' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * Runs the suite on the module at `modulePath` and collects the results. The generated test file
 * lives in a temporary folder that is removed afterwards; it imports the suite and the
 * export-mapping code by absolute path, so the user's project needs neither vitest nor memdir.
 */
export async function runSuite(
  modulePath: string,
  settings: ConformanceSettings,
  filter: string | undefined,
  io: CliIo,
): Promise<ConformanceReport> {
  const started = Date.now();
  const folder = await mkdtemp(join(tmpdir(), 'memdir-conformance-'));
  try {
    const testFile = join(folder, 'conformance.test.mjs');
    await writeFile(testFile, testFileSource(modulePath, settings));

    const modules: TestModule[] = [];
    const runErrors: string[] = [];
    const { startVitest } = await import('vitest/node');
    // vitest runs inside this process; anything it logs goes to stderr, never to the report.
    const vitest = await startVitest(
      'test',
      [],
      {
        root: folder,
        config: false,
        watch: false,
        include: ['conformance.test.mjs'],
        ...(filter === undefined ? {} : { testNamePattern: filter }),
        reporters: [
          {
            onTestRunEnd(testModules, unhandledErrors) {
              modules.push(...testModules);
              for (const error of unhandledErrors) runErrors.push(firstLine(error.message ?? String(error)));
            },
          },
        ],
      },
      {},
      { stdout: io.stderr, stderr: io.stderr },
    );
    await vitest.close();
    return collect(modules, runErrors, Date.now() - started);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function testFileSource(modulePath: string, settings: ConformanceSettings): string {
  const suite = resolveHere('@memdir/core/conformance');
  const target = fileURLToPath(new URL('./conformance-target.js', import.meta.url));
  return [
    '// Generated by `memdir conformance`.',
    `import { describeMemoryStore } from ${JSON.stringify(suite)};`,
    `import { conformanceTarget } from ${JSON.stringify(target)};`,
    `import * as storeModule from ${JSON.stringify(modulePath)};`,
    '',
    `describeMemoryStore(conformanceTarget(storeModule, ${JSON.stringify(settings)}));`,
    '',
  ].join('\n');
}

function collect(modules: readonly TestModule[], errors: string[], durationMs: number): ConformanceReport {
  const report: ConformanceReport = {
    name: undefined,
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    tests: [],
    errors,
    durationMs,
  };
  for (const module of modules) {
    for (const error of module.errors()) report.errors.push(firstLine(error.message ?? String(error)));
    for (const test of module.children.allTests()) record(report, test);
  }
  return report;
}

/** The name a report shows: the suite's describe blocks without the outermost one. */
function testName(test: TestCase): string {
  const parts = test.fullName.split(' > ');
  return parts.length > 1 ? parts.slice(1).join(' > ') : test.fullName;
}

const SUITE_PREFIX = 'memdir conformance: ';

function record(report: ConformanceReport, test: TestCase): void {
  const outer = test.fullName.split(' > ')[0]!;
  if (report.name === undefined && outer.startsWith(SUITE_PREFIX))
    report.name = outer.slice(SUITE_PREFIX.length);
  const result = test.result();
  const name = testName(test);
  report.tests.push({ name, state: result.state });
  if (result.state === 'passed') report.passed++;
  else if (result.state === 'failed') {
    report.failed++;
    const error = result.errors[0];
    const failure: ConformanceReport['failures'][number] = {
      name,
      message: firstLine(error?.message ?? 'failed without an error message'),
    };
    // Only where vitest cut the values short ("…"); otherwise its message already says it all.
    const difference = failure.message.includes('…')
      ? firstDifference(error?.expected, error?.actual)
      : undefined;
    if (difference !== undefined) failure.difference = difference;
    report.failures.push(failure);
  } else report.skipped++;
}

/** The human report `memdir conformance` prints. */
export function formatReport(report: ConformanceReport, verbose: boolean): string {
  const lines: string[] = [''];
  if (verbose) {
    for (const test of report.tests) {
      lines.push(
        `${test.state === 'passed' ? 'PASS' : test.state === 'failed' ? 'FAIL' : 'SKIP'}  ${test.name}`,
      );
    }
    lines.push('');
  }
  for (const failure of report.failures) {
    lines.push(`FAIL  ${failure.name}`, `      ${failure.message}`);
    if (failure.difference !== undefined) lines.push(`      ${failure.difference}`);
  }
  for (const error of report.errors) lines.push(`ERROR ${error}`);
  if (report.failures.length > 0 || report.errors.length > 0) lines.push('');
  const total = report.passed + report.failed + report.skipped;
  if (report.name !== undefined) lines.push(`Store: ${report.name}`);
  const counts = [`${report.passed} passed`, `${report.failed} failed`];
  if (report.skipped > 0) counts.push(`${report.skipped} skipped`);
  lines.push(`Tests: ${counts.join(', ')} (${total}) in ${(report.durationMs / 1000).toFixed(1)}s`);
  lines.push(
    report.errors.length > 0 && total === 0
      ? 'Result: the store module could not be tested.'
      : report.failed > 0 || report.errors.length > 0
        ? 'Result: FAIL, the store does not conform to the memdir spec.'
        : 'Result: PASS, the store conforms to the memdir spec.',
  );
  return `${lines.join('\n')}\n`;
}
