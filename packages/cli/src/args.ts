// The command line's words: flags parsed strictly, positional arguments counted, usage errors
// that name the command and how to get its help.
//
// The parser is Node's own (node:util parseArgs); kept over commander, citty or yargs (issue 35):
// what memdir adds on top is small and would be needed with any of them: usage errors in a sentence
// of our own with "did you mean" (suggest.ts), and the settlement of every setting from its flag,
// environment variable and config file in parseOrHelp, which none of them does the way config.ts
// does. commander 15 needs Node 22.12 (memdir runs on Node 20; 14 is its last line for 20); and the help of each command is
// prose written for people (*-help.ts: what a store URL may be, limits, exit statuses), which a
// generated help would not say. Rewriting every command's parsing is more risk than it saves.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CONFIG_OPTION, resolveSettings, type SettingSource } from './config.js';
import { CliUsageError } from './errors.js';
import { type CliIo, write } from './io.js';
import type { Setting } from './settings.js';
import { nearest } from './suggest.js';

export { nearest };

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

/** A command line parsed, with the settings filled in. */
export interface ParsedCommand {
  values: Values;
  positionals: string[];
  /** Where each setting the command took came from. */
  sources: Map<Setting, SettingSource>;
  /** The config file read, if any. */
  configFile: string | undefined;
}

/**
 * Parses `args` for `command` as `parse` does, then fills in each setting the command takes and
 * was not given from the environment, else the config file (config.ts; every command takes
 * `--config FILE`). On `--help` it prints `help` and gives undefined: the command is done.
 * `sources` says where each setting's value came from.
 */
export async function parseOrHelp(
  command: string,
  args: string[],
  options: Options,
  help: string | undefined,
  io: CliIo,
  allowPositionals = true,
): Promise<ParsedCommand | undefined> {
  const parsed = parse(command, args, { config: CONFIG_OPTION, ...options }, allowPositionals);
  if (parsed.values.help) {
    await write(io.stdout, `${help}\n`);
    return undefined;
  }
  const { values, sources, file } = await resolveSettings(parsed.values, options, io);
  return { values, positionals: parsed.positionals, sources, configFile: file?.path };
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
