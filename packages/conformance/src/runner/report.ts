// What `memdir-conformance` tells a person: each failure in full, as vitest would show it (the
// whole message, fast-check's seed and counterexample, the diff, what caused it, where), the calls
// still pending when a test failed, and a module that does not load with its file and line.
import { spawnSync } from 'node:child_process';
import { dirname, extname, isAbsolute, relative, resolve } from 'node:path';

/** One failing test, or one error outside any test. */
export interface ConformanceProblem {
  /** The first line of the error message. */
  message: string;
  /**
   * The rest, line by line: the message's other lines, the diff of expected and received, the
   * errors that caused it, where it was raised, and the store or driver calls still pending.
   */
  detail: string[];
}

/** One failing test. */
export interface ConformanceFailure extends ConformanceProblem {
  /** The test's name, without the suite's outermost describe. */
  name: string;
  /** When an assertion compared two texts that vitest cut short: the first line where they differ. */
  difference?: string;
}

/** What `memdir-conformance` found. */
export interface ConformanceReport {
  /** The store's name as the suite showed it (`--name`, the module's `name`, or its file name). */
  name: string | undefined;
  passed: number;
  failed: number;
  skipped: number;
  failures: ConformanceFailure[];
  /** Every test with its state, in order (for --verbose). */
  tests: Array<{ name: string; state: string }>;
  /** Errors outside any test: the module did not load, a hook failed, an unhandled rejection. */
  errors: ConformanceProblem[];
  durationMs: number;
  /** What was tested: a store module (the default) or a memory stores API (`--api`). */
  kind?: 'store' | 'api';
}

/** The parts of vitest's serialized errors this report reads. */
export interface SerializedErrorLike {
  message?: string;
  name?: string;
  stack?: string;
  diff?: string;
  expected?: unknown;
  actual?: unknown;
  cause?: unknown;
  stacks?: Array<{ file: string; line: number; column: number; method?: string }>;
  __vitest_rollup_error__?: {
    id?: string;
    plugin?: string;
    loc?: { file?: string; line: number; column: number };
  };
}

/** Where the report was asked for: paths are shown relative to `cwd`, the user's module first. */
export interface ReportContext {
  cwd: string;
  modulePath: string;
}

/** The most lines one failure shows; fast-check counterexamples can be long. */
const DETAIL_LIMIT = 150;

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

function lines(text: string | undefined): string[] {
  if (text === undefined) return [];
  const split = stripAnsi(text).replace(/\s+$/, '').split('\n');
  return split.length === 1 && split[0] === '' ? [] : split;
}

function shownPath(file: string, context: ReportContext): string {
  const path = file.startsWith('file://') ? new URL(file).pathname : file;
  const fromCwd = relative(context.cwd, path);
  return fromCwd.startsWith('..') || isAbsolute(fromCwd) ? path : fromCwd;
}

/** The frame worth showing: in the user's module, else in the conformance suite, else the first of ours. */
/** The frames of a stack trace's text, for errors vitest did not parse (causes). */
function parseStack(stack: string | undefined): Array<{ file: string; line: number; column: number }> {
  const frames: Array<{ file: string; line: number; column: number }> = [];
  for (const match of (stack ?? '').matchAll(/^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/gm)) {
    frames.push({
      file: match[1]!.replace(/^file:\/\//, ''),
      line: Number(match[2]),
      column: Number(match[3]),
    });
  }
  return frames;
}

function location(error: SerializedErrorLike, context: ReportContext): string | undefined {
  const parsed = error.stacks && error.stacks.length > 0 ? error.stacks : parseStack(error.stack);
  const frames = parsed.filter((frame) => !frame.file.startsWith('node:'));
  const moduleDir = dirname(context.modulePath);
  const pick =
    frames.find((frame) => frame.file === context.modulePath) ??
    frames.find((frame) => frame.file.startsWith(moduleDir) && !frame.file.includes('/node_modules/')) ??
    frames.find(
      (frame) =>
        /[/\\]conformance[/\\]/.test(frame.file) && /memdir|packages[/\\]conformance/.test(frame.file),
    ) ??
    frames.find((frame) => !/[/\\]node_modules[/\\]/.test(frame.file));
  return pick === undefined ? undefined : `${shownPath(pick.file, context)}:${pick.line}:${pick.column}`;
}

function causeOf(error: SerializedErrorLike): SerializedErrorLike | undefined {
  const cause = error.cause;
  return typeof cause === 'object' && cause !== null ? (cause as SerializedErrorLike) : undefined;
}

/** An error's message (first line apart), its diff, its causes and its location, as report lines. */
export function describeError(error: SerializedErrorLike, context: ReportContext): ConformanceProblem {
  const [first = error.name ?? 'Error', ...rest] = lines(error.message);
  const detail = [...rest];
  detail.push(...lines(error.diff));
  // A module memdir cannot test is the module's to fix: where memdir noticed it would only mislead.
  const at = error.name === 'StoreModuleError' ? undefined : location(error, context);
  if (at !== undefined) detail.push(`at ${at}`);
  let cause = causeOf(error);
  for (let depth = 0; cause !== undefined && depth < 3; depth++, cause = causeOf(cause)) {
    const [causeFirst = '', ...causeRest] = lines(cause.message);
    detail.push(`Caused by: ${cause.name && cause.name !== 'Error' ? `${cause.name}: ` : ''}${causeFirst}`);
    detail.push(...causeRest.map((line) => `  ${line}`));
    detail.push(...lines(cause.diff).map((line) => `  ${line}`));
    const causeAt = location(cause, context);
    if (causeAt !== undefined) detail.push(`  at ${causeAt}`);
  }
  return { message: first.replace(/ \/\/ Object\.is equality$/, ''), detail: capped(detail) };
}

function capped(detail: string[]): string[] {
  if (detail.length <= DETAIL_LIMIT) return detail;
  return [...detail.slice(0, DETAIL_LIMIT), `... (${detail.length - DETAIL_LIMIT} more lines)`];
}

/**
 * A module that did not load: where (file and line, from vite's parser or from `node --check`,
 * which is exact for JavaScript), then what the parser or the module said.
 */
export function describeLoadError(error: SerializedErrorLike, context: ReportContext): ConformanceProblem {
  const described = describeError(error, context);
  const rollup = error.__vitest_rollup_error__;
  const file = rollup?.loc?.file ?? rollup?.id;
  let where: string | undefined;
  if (file !== undefined && rollup?.plugin === 'vite:import-analysis' && /^\.[cm]?js$/.test(extname(file))) {
    // vite's import analysis places every JavaScript syntax error at the top; Node's parser knows.
    const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
    const output = lines(check.stderr);
    const head = /^(.*):(\d+)$/.exec(output[0] ?? '');
    const syntaxError = output.find((line) => /^\w*Error: /.test(line));
    if (head !== null && syntaxError !== undefined) {
      // Node prints the file and line, the source line, a caret, then the error and its stack.
      const frame = output.slice(1, output.indexOf(syntaxError)).filter((line) => line.trim() !== '');
      const where = `${shownPath(head[1]!, context)}:${head[2]}`;
      return { message: syntaxError, detail: [`in ${where}`, ...frame] };
    }
  }
  if (where === undefined && file !== undefined) {
    // oxc (TypeScript) gives "[ name.ts:4:1 ]" in its message.
    const inMessage = /\[\s*([^\]\s]+):(\d+):(\d+)\s*\]/.exec(stripAnsi(error.message ?? ''));
    if (inMessage !== null)
      where = `${shownPath(resolve(dirname(file), inMessage[1]!), context)}:${inMessage[2]}:${inMessage[3]}`;
    else if (rollup?.loc !== undefined)
      where = `${shownPath(file, context)}:${rollup.loc.line}:${rollup.loc.column + 1}`;
    else where = shownPath(file, context);
  }
  if (where === undefined) return described;
  const detail = [`in ${where}`, ...described.detail.filter((line) => !line.startsWith('at '))];
  return { message: `${described.message}`, detail: capped(detail) };
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
export function firstDifference(expected: unknown, actual: unknown): string | undefined {
  if (typeof expected !== 'string' || typeof actual !== 'string' || expected === actual) return undefined;
  const want = expected.split('\n');
  const got = actual.split('\n');
  let index = 0;
  while (index < want.length && index < got.length && want[index] === got[index]) index++;
  return `first difference, line ${index + 1}: expected ${quote(want[index])}, got ${quote(got[index])}`;
}

function indent(detail: readonly string[]): string[] {
  return detail.map((line) => (line === '' ? '' : `      ${line}`));
}

/** The human report `memdir-conformance` prints at the end. */
export function formatReport(report: ConformanceReport, verbose: boolean): string {
  const out: string[] = [''];
  if (verbose) {
    for (const test of report.tests) {
      out.push(
        `${test.state === 'passed' ? 'PASS' : test.state === 'failed' ? 'FAIL' : 'SKIP'}  ${test.name}`,
      );
    }
    out.push('');
  }
  for (const failure of report.failures) {
    out.push(`FAIL  ${failure.name}`, `      ${failure.message}`);
    if (failure.difference !== undefined) out.push(`      ${failure.difference}`);
    out.push(...indent(failure.detail), '');
  }
  for (const error of report.errors) out.push(`ERROR ${error.message}`, ...indent(error.detail), '');
  const total = report.passed + report.failed + report.skipped;
  const api = report.kind === 'api';
  if (report.name !== undefined) out.push(`${api ? 'API' : 'Store'}: ${report.name}`);
  const counts = [`${report.passed} passed`, `${report.failed} failed`];
  if (report.skipped > 0) counts.push(`${report.skipped} skipped`);
  out.push(`Tests: ${counts.join(', ')} (${total}) in ${(report.durationMs / 1000).toFixed(1)}s`);
  const subject = api ? 'the API' : 'the store';
  const standard = api ? "Anthropic's memory stores API" : 'the memdir protocol';
  out.push(
    report.errors.length > 0 && total === 0
      ? `Result: ${api ? 'the API' : 'the store module'} could not be tested.`
      : report.failed > 0 || report.errors.length > 0
        ? `Result: FAIL, ${subject} does not conform to ${standard}.`
        : `Result: PASS, ${subject} conforms to ${standard}.`,
  );
  return `${out.join('\n')}\n`;
}
