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
    throw new CliUsageError(`${command}: ${(error as Error).message}`, {
      hint: `Run "memdir ${command} --help" for usage.`,
    });
  }
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

export function unknownCommand(word: string): CliUsageError {
  return new CliUsageError(`unknown command ${JSON.stringify(word)}`, {
    hint: 'Run "memdir --help" for usage.',
  });
}
