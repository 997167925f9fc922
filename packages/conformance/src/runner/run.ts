// The runner of `memdir-conformance` (and of `memdir conformance`, which passes its own name and
// help): parses the flags, writes a test file that runs the suite on the user's store module,
// starts vitest on it in this process, shows each group as it finishes and prints the report.
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';
import { runApiConformance } from './api.js';
import { type RunnerCommand, type RunnerIo, STANDALONE } from './command.js';
import {
  type ConformanceFailure,
  type ConformanceReport,
  describeError,
  describeLoadError,
  firstDifference,
  formatReport,
  type ReportContext,
  type SerializedErrorLike,
} from './report.js';
import type { ConformanceSettings } from './store-module.js';
import { type ConformanceTools, locateConformanceTools } from './tools.js';
import { ConformanceUsageError } from './usage-error.js';
import { WAIT_NOTICE } from './watch.js';

/** The exit codes: every test passed, one failed, the module could not be tested. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Writes `text` and resolves once the stream has taken it (so output is complete before exit). */
function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new ConformanceUsageError(
      `conformance: --${flag} expects a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/**
 * `memdir-conformance MODULE`: runs the conformance suite on the store module, in vitest started
 * from here on a generated test file, shows each group of tests as it finishes, and prints a report
 * on stdout.
 * @returns 0 when every test passed, 1 when one failed.
 * @throws ConformanceUsageError (exit 2) for a bad flag, a missing module, or vitest and fast-check
 *   not installed.
 */
export async function runConformance(
  args: string[],
  io: RunnerIo,
  command: RunnerCommand = STANDALONE,
): Promise<number> {
  let parsed: ReturnType<typeof parseConformanceArgs>;
  try {
    parsed = parseConformanceArgs(args);
  } catch (error) {
    if (error instanceof ConformanceUsageError) throw error;
    throw new ConformanceUsageError(`conformance: ${parseArgsMessage(error as Error & { code?: string })}`, {
      hint: `Run "${command.name} --help" for usage.`,
    });
  }
  const { values, positionals } = parsed;
  if (values.help) {
    await write(io.stdout, `${command.help}\n`);
    return EXIT_OK;
  }
  if (values.api !== undefined) {
    if (positionals.length > 0) {
      throw new ConformanceUsageError('conformance: give a store module or --api URL, not both', {
        hint: `Run "${command.name} --help" for usage.`,
      });
    }
    if (values['property-runs'] !== undefined) {
      throw new ConformanceUsageError('conformance: --property-runs is for a store module, not --api');
    }
    checkFilter(values.filter);
    const tools = locateConformanceTools(command);
    const flags = {
      api: values.api,
      token: values.token,
      name: values.name,
      memdir: values.memdir === true,
      timeout: positiveInteger('timeout', values.timeout),
      filter: values.filter,
      verbose: values.verbose === true,
    };
    return runApiConformance(flags, io, command, process.env, (source, provide, filter) =>
      runTestFile(source, { cwd: io.cwd, modulePath: join(io.cwd, 'api') }, filter, io, {
        tools,
        command,
        progress: true,
        provide,
      }),
    );
  }
  if (values.token !== undefined || values.memdir !== undefined) {
    throw new ConformanceUsageError(
      `conformance: --${values.token !== undefined ? 'token' : 'memdir'} goes with --api URL`,
    );
  }
  if (positionals.length !== 1) {
    throw new ConformanceUsageError(
      positionals.length === 0
        ? `conformance: give the module to test, e.g. ${command.name} ./my-store.js`
        : `conformance: unexpected argument ${JSON.stringify(positionals[1])}`,
      { hint: `Run "${command.name} --help" for usage.` },
    );
  }
  const modulePath = resolve(io.cwd, positionals[0]!);
  if (!existsSync(modulePath)) throw new ConformanceUsageError(`conformance: no such file: ${modulePath}`);

  const settings: ConformanceSettings = {
    fallbackName: basename(modulePath, extname(modulePath)),
    module: positionals[0],
    name: values.name,
    propertyRuns: positiveInteger('property-runs', values['property-runs']),
    timeout: positiveInteger('timeout', values.timeout),
  };
  checkFilter(values.filter);
  const tools = locateConformanceTools(command);

  await write(io.stdout, `${command.name}: testing ${modulePath}\n`);
  const report = await runSuite(modulePath, settings, values.filter, io, { tools, progress: true, command });
  await write(io.stdout, formatReport(report, values.verbose === true));
  if (report.errors.length > 0 && report.passed + report.failed === 0) return EXIT_USAGE;
  return report.failed > 0 || report.errors.length > 0 ? EXIT_FAILED : EXIT_OK;
}

function checkFilter(filter: string | undefined): void {
  if (filter === undefined) return;
  try {
    new RegExp(filter);
  } catch (error) {
    throw new ConformanceUsageError(
      `conformance: --filter is not a valid regular expression: ${(error as Error).message}`,
    );
  }
}

/** A sentence for what `parseArgs` refused, in place of its own text (uneven quotes, advice about `--`). */
function parseArgsMessage(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  if (quoted === undefined) return error.message;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${quoted}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return `${/--[\w-]+/.exec(quoted)?.[0] ?? quoted} needs a value`;
  return error.message;
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
      api: { type: 'string' },
      token: { type: 'string' },
      memdir: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** Options of {@link runSuite}. */
export interface RunSuiteOptions {
  /** Where vitest and the suite are. @default found beside this package */
  tools?: ConformanceTools;
  /** Who runs the suite, as progress lines and hints name it. @default {@link STANDALONE} */
  command?: RunnerCommand;
  /**
   * Print a line on `io.stdout` as each group of tests finishes, and a notice when a store or driver
   * call has been pending for a while.
   * @default false
   */
  progress?: boolean;
}

/** The exit code of a process stopped by a signal, as shells report it. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/** How long an interrupted run waits for vitest to stop its workers before it exits anyway. */
const STOP_GRACE_MS = 5_000;

/**
 * Runs the suite on the module at `modulePath` and collects the results. The generated test file
 * lives in a temporary folder that is removed afterwards; it imports the suite and the
 * export-mapping code by absolute path, so the user's project needs no vitest configuration.
 *
 * While it runs, SIGINT and SIGTERM (Ctrl-C) stop vitest and its workers, remove the temporary
 * folder and exit the process (130 for SIGINT, 143 for SIGTERM); a second signal exits at once.
 */
export async function runSuite(
  modulePath: string,
  settings: ConformanceSettings,
  filter: string | undefined,
  io: RunnerIo,
  options: RunSuiteOptions = {},
): Promise<ConformanceReport> {
  const command = options.command ?? STANDALONE;
  const tools = options.tools ?? locateConformanceTools(command);
  const source = testFileSource(modulePath, settings, tools, command);
  return runTestFile(source, { cwd: io.cwd, modulePath }, filter, io, { ...options, tools, command });
}

/**
 * Runs vitest on a generated test file `source` and collects the results (what {@link runSuite} and
 * the API mode share). `provide` reaches the test file through vitest's `inject`, never through a
 * file: the API's token is not written to disk.
 */
export async function runTestFile(
  source: string,
  context: ReportContext,
  filter: string | undefined,
  io: RunnerIo,
  options: RunSuiteOptions & { tools: ConformanceTools; provide?: Record<string, string> },
): Promise<ConformanceReport> {
  const command = options.command ?? STANDALONE;
  const started = Date.now();
  const folder = await mkdtemp(join(tmpdir(), 'memdir-conformance-'));
  let vitest: Vitest | undefined;

  // Whatever ends the process from here on, the folders go with it: vitest answers a signal by
  // exiting the process itself, before it has removed its own cache folders.
  const removeFolder = () => {
    for (const path of [folder, ...vitestFolders(vitest)]) rmSync(path, { recursive: true, force: true });
  };
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const exit = () => {
      removeFolder();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    };
    if (stopping) exit();
    stopping = true;
    io.stdout.write(`\n${command.name}: ${signal} received: stopping the tests and removing ${folder}\n`);
    const stop = (async () => {
      await vitest?.cancelCurrentRun('keyboard-input');
      await vitest?.close();
    })();
    // Not unref'd: if vitest's close never settles, this is what ends the process.
    const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS));
    Promise.race([stop, grace]).then(exit, exit);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', removeFolder);

  try {
    const testFile = join(folder, 'conformance.test.mjs');
    await writeFile(testFile, source);

    const modules: TestModule[] = [];
    const runErrors: SerializedErrorLike[] = [];
    const { startVitest } = (await import(
      pathToFileURL(options.tools.vitestNode).href
    )) as typeof import('vitest/node');
    const reporter: Reporter = {
      onInit(instance) {
        vitest = instance;
      },
      onTestSuiteResult(suite) {
        if (options.progress) io.stdout.write(groupLine(suite));
      },
      onUserConsoleLog(log) {
        const notice = log.content.startsWith(WAIT_NOTICE);
        if (notice && options.progress)
          io.stdout.write(`  … waiting: ${log.content.slice(WAIT_NOTICE.length)}`);
        else if (!notice) io.stderr.write(log.content);
      },
      onTestRunEnd(testModules, unhandledErrors) {
        modules.push(...testModules);
        runErrors.push(...(unhandledErrors as unknown as SerializedErrorLike[]));
      },
    };
    // vitest runs inside this process; anything it logs goes to stderr, never to the report.
    const instance = await startVitest(
      'test',
      [],
      {
        root: folder,
        config: false,
        watch: false,
        include: ['conformance.test.mjs'],
        ...(options.provide === undefined ? {} : { provide: options.provide }),
        ...(filter === undefined ? {} : { testNamePattern: filter }),
        reporters: [reporter],
      },
      {},
      { stdout: io.stderr, stderr: io.stderr },
    );
    await instance.close();
    return collect(modules, runErrors, Date.now() - started, context, command);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', removeFolder);
    await rm(folder, { recursive: true, force: true });
  }
}

/** The temporary folders vitest made (internal fields, read defensively), all under tmpdir(). */
function vitestFolders(vitest: Vitest | undefined): string[] {
  if (vitest === undefined) return [];
  const candidates = [
    (vitest as { _tmpDir?: unknown })._tmpDir,
    ...vitest.projects.map((project) => (project as { tmpDir?: unknown }).tmpDir),
  ];
  return candidates.filter(
    (folder): folder is string => typeof folder === 'string' && folder.startsWith(join(tmpdir(), '/')),
  );
}

/** Depth of a command group's describe: suite > namespace > group. */
const GROUP_DEPTH = 3;

/** `✓ without a namespace > view: 52 passed (0.4s)` for a group that ran; nothing otherwise. */
function groupLine(suite: TestSuite): string {
  const path = suite.fullName.split(' > ');
  if (path.length !== GROUP_DEPTH) return '';
  let passed = 0;
  let failed = 0;
  let duration = 0;
  for (const test of suite.children.allTests()) {
    const state = test.result().state;
    if (state === 'passed') passed++;
    else if (state === 'failed') failed++;
    duration += test.diagnostic()?.duration ?? 0;
  }
  if (passed + failed === 0) return '';
  const counts = failed > 0 ? `${failed} failed, ${passed} passed` : `${passed} passed`;
  return `${failed > 0 ? '✗' : '✓'} ${path.slice(1).join(' > ')}: ${counts} (${(duration / 1000).toFixed(1)}s)\n`;
}

function testFileSource(
  modulePath: string,
  settings: ConformanceSettings,
  tools: ConformanceTools,
  command: RunnerCommand,
): string {
  const here = (file: string) => JSON.stringify(fileURLToPath(new URL(file, import.meta.url)));
  return [
    `// Generated by \`${command.name}\`.`,
    `import { afterEach, beforeEach } from ${JSON.stringify(tools.vitest)};`,
    `import { describeMemoryStore } from ${JSON.stringify(tools.suite)};`,
    `import { conformanceTarget } from ${here('./store-module.js')};`,
    `import { installWatch, watchModule } from ${here('./watch.js')};`,
    `import * as storeModule from ${JSON.stringify(modulePath)};`,
    '',
    'installWatch({ afterEach, beforeEach });',
    `describeMemoryStore(conformanceTarget(watchModule(storeModule), ${JSON.stringify(settings)}));`,
    '',
  ].join('\n');
}

function collect(
  modules: readonly TestModule[],
  errors: readonly SerializedErrorLike[],
  durationMs: number,
  context: ReportContext,
  command: RunnerCommand,
): ConformanceReport {
  const report: ConformanceReport = {
    name: undefined,
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    tests: [],
    errors: errors.map((error) => describeError(error, context)),
    durationMs,
  };
  for (const module of modules) {
    for (const error of module.errors())
      report.errors.push(describeLoadError(error as SerializedErrorLike, context));
    for (const test of module.children.allTests()) record(report, test, context, command);
  }
  return report;
}

/** The name a report shows: the suite's describe blocks without the outermost one. */
function testName(test: TestCase): string {
  const parts = test.fullName.split(' > ');
  return parts.length > 1 ? parts.slice(1).join(' > ') : test.fullName;
}

const SUITE_PREFIX = 'memdir conformance: ';

function record(
  report: ConformanceReport,
  test: TestCase,
  context: ReportContext,
  command: RunnerCommand,
): void {
  const outer = test.fullName.split(' > ')[0]!;
  if (report.name === undefined && outer.startsWith(SUITE_PREFIX))
    report.name = outer.slice(SUITE_PREFIX.length);
  const result = test.result();
  const name = testName(test);
  report.tests.push({ name, state: result.state });
  if (result.state === 'passed') report.passed++;
  else if (result.state === 'failed') {
    report.failed++;
    const error = (result.errors?.[0] ?? {
      message: 'failed without an error message',
    }) as SerializedErrorLike;
    const described = describeError(error, context);
    // vitest's advice names its own config; the way to give a test more time here is a flag.
    described.detail = described.detail.map((line) =>
      line.includes('configure it globally with "testTimeout"')
        ? `If the store is only slow, give each test more time: ${command.name} --timeout MS`
        : line,
    );
    const failure: ConformanceFailure = { name, ...described };
    // Only where vitest cut the values short ("…"); otherwise its message already says it all.
    const difference = described.message.includes('…')
      ? firstDifference(error.expected, error.actual)
      : undefined;
    if (difference !== undefined) failure.difference = difference;
    const pending = (test.meta() as { pending?: unknown }).pending;
    if (Array.isArray(pending) && pending.length > 0) {
      failure.detail.push(
        'Still pending when the test failed:',
        ...pending.map((call) => `  ${String(call)}`),
      );
    }
    for (const extra of result.errors?.slice(1) ?? []) {
      const more = describeError(extra as SerializedErrorLike, context);
      failure.detail.push(`Also: ${more.message}`, ...more.detail.map((line) => `  ${line}`));
    }
    report.failures.push(failure);
  } else report.skipped++;
}
