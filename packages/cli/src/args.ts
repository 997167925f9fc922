// The command line's words: flags parsed strictly, positional arguments counted, usage errors
// that name the command and how to get its help.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliUsageError } from './errors.js';
import { type CliIo, write } from './io.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * Parses `args` for `command`: unknown flags and missing values are usage errors, and so are
 * positional arguments unless `allowPositionals`.
 */
export function parse(
  command: string,
  args: string[],
  options: Options,
  allowPositionals = true,
): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals, strict: true });
    return { values: values as Values, positionals };
  } catch (error) {
    throw usageOf(command, error as Error & { code?: string }, options);
  }
}

/**
 * A sentence for what `parseArgs` refused, in place of its own text (which quotes unevenly and
 * tells about `--`), with the nearest flag when one is close.
 */
export function usageOf(command: string, error: Error & { code?: string }, options: Options): CliUsageError {
  const help = `Run "memdir ${command} --help" for usage.`;
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) {
    const flags = Object.keys(options).map((name) => `--${name}`);
    const near = nearest(quoted.replace(/=.*$/, ''), flags);
    return new CliUsageError(`${command}: unknown option ${quoted}`, {
      hint: near === undefined ? help : `Did you mean ${near}? ${help}`,
    });
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
    return new CliUsageError(`${command}: ${flag} needs a value`, { hint: help });
  }
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) {
    return new CliUsageError(`${command}: unexpected argument ${JSON.stringify(quoted)}`, { hint: help });
  }
  return new CliUsageError(`${command}: ${error.message}`, { hint: help });
}

/** The edit distance of two words (insertions, deletions, substitutions, and swaps of neighbours). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate nearest to `word` (at most 2 edits, 1 for words of 4 letters or fewer), if any. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.replace(/^-+/, '').length <= 4 ? 1 : 2;
  let found: { candidate: string; edits: number } | undefined;
  for (const candidate of candidates) {
    const edits = distance(word, candidate);
    if (edits <= limit && (found === undefined || edits < found.edits)) found = { candidate, edits };
  }
  return found?.candidate;
}

/**
 * Parses `args` for `command` as `parse` does. On `--help` it prints `help` and gives undefined:
 * the command is done.
 */
export async function parseOrHelp(
  command: string,
  args: string[],
  options: Options,
  help: string | undefined,
  io: CliIo,
  allowPositionals = true,
): Promise<{ values: Values; positionals: string[] } | undefined> {
  const parsed = parse(command, args, options, allowPositionals);
  if (!parsed.values.help) return parsed;
  await write(io.stdout, `${help}\n`);
  return undefined;
}

/** Fails with a usage error unless `min` to `max` positional arguments were given. */
export function expectPositionals(command: string, positionals: string[], min: number, max: number): void {
  if (positionals.length >= min && positionals.length <= max) return;
  const what =
    positionals.length > max ? `unexpected argument ${JSON.stringify(positionals[max])}` : 'missing argument';
  throw new CliUsageError(`${command}: ${what}`, { hint: `Run "memdir ${command} --help" for usage.` });
}

/** The value of `--flag` as a positive integer, else a usage error (`prefix` before its text). */
export function positiveInteger(value: string, flag: string, prefix = ''): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new CliUsageError(`${prefix}--${flag} expects a positive integer, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A flag's value when it is a string. */
export function str(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** `word` is no command; with `known`, the nearest command is suggested. */
export function unknownCommand(word: string, known: readonly string[] = []): CliUsageError {
  const near = nearest(word, known);
  return new CliUsageError(`unknown command ${JSON.stringify(word)}`, {
    hint: `${near === undefined ? '' : `Did you mean "memdir ${near}"? `}Run "memdir --help" for usage.`,
  });
}
