// The one place a flag's value is settled: the command line, else the environment, else the config
// file (args.ts's parseOrHelp calls `resolveSettings` on what `parseArgs` found). Which settings
// there are, and their types and names, is settings.ts; the file is config-file.ts.
import type { ParseArgsConfig } from 'node:util';
import { type ConfigFile, loadConfigFile } from './config-file.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { envName, type FlagValue, fileKey, fromEnv, SETTINGS, type Setting } from './settings.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** `--config FILE`, which every command takes: the config file to read instead of looking for one. */
export const CONFIG_OPTION = { type: 'string' } as const;

/** Where a setting's value came from. */
export type SettingSource =
  | { from: 'flag' }
  | { from: 'env'; variable: string }
  | { from: 'file'; path: string };

/** A source as `memdir config` and messages say it: `--rate`, `$MEMDIR_RATE`, `/etc/memdir.toml`. */
export function describeSource(setting: Setting, source: SettingSource): string {
  if (source.from === 'flag') return `--${setting.name}`;
  return source.from === 'env' ? `$${source.variable}` : source.path;
}

/** Where the setting `name` came from, if the command took it and it was given. */
export function sourceOf(
  sources: ReadonlyMap<Setting, SettingSource>,
  name: string,
): SettingSource | undefined {
  for (const [setting, source] of sources) if (setting.name === name) return source;
  return undefined;
}

/**
 * `error` with a line saying where the setting it blames came from, when not from the command line:
 * "serve: --http expects HOST:PORT" of a value the file gave names a flag nobody typed.
 */
export function namingSources(error: unknown, sources: ReadonlyMap<Setting, SettingSource>): unknown {
  if (!(error instanceof CliUsageError)) return error;
  for (const [setting, source] of sources) {
    if (source.from === 'flag' || !new RegExp(`--${setting.name}(?![\\w-])`).test(error.message)) continue;
    const where = source.from === 'env' ? `$${source.variable}` : `${source.path} (${fileKey(setting)})`;
    const line = `--${setting.name} was given by ${where}.`;
    return new CliUsageError(error.message, {
      hint: error.hint === undefined ? line : `${line}\n${error.hint}`,
      cause: error.cause,
    });
  }
  return error;
}

/** The settings a command takes: those whose flag of its name is the setting's very definition. */
export function settingsOf(options: Options): Setting[] {
  return SETTINGS.filter(
    (setting) =>
      options[setting.name] === setting.option &&
      // overwrite = false is --no-overwrite: only where both are the store's.
      (setting.name !== 'overwrite' || options['no-overwrite'] !== undefined),
  );
}

function givenOnCommandLine(setting: Setting, values: Values): boolean {
  if (values[setting.name] !== undefined) return true;
  return setting.name === 'overwrite' && values['no-overwrite'] !== undefined;
}

function put(setting: Setting, value: FlagValue, values: Values): void {
  if (setting.name === 'overwrite') values[value === true ? 'overwrite' : 'no-overwrite'] = true;
  else if (value !== false) values[setting.name] = value;
}

/**
 * `values` (from the command line) with each setting the command takes and was not given filled
 * in from the environment, else from the config file; with where each setting's value came from.
 * @throws CliUsageError for a bad variable, or a config file that is missing, malformed, or holds
 *   an unknown key or a value of the wrong type.
 */
export async function resolveSettings(
  values: Values,
  options: Options,
  io: CliIo,
): Promise<{ values: Values; sources: Map<Setting, SettingSource>; file: ConfigFile | undefined }> {
  const settings = settingsOf(options);
  const sources = new Map<Setting, SettingSource>();
  if (settings.length === 0) return { values, sources, file: undefined };
  const configFlag = values['config'];
  const file = await loadConfigFile(typeof configFlag === 'string' ? configFlag : undefined, io);
  const resolved: Values = { ...values };
  for (const setting of settings) {
    if (givenOnCommandLine(setting, values)) {
      sources.set(setting, { from: 'flag' });
      continue;
    }
    const variable = envName(setting);
    const text = io.env[variable];
    if (text !== undefined && text !== '') {
      const value = fromEnv(setting, text);
      if (typeof value === 'object' && !Array.isArray(value)) throw new CliUsageError(value.problem);
      put(setting, value, resolved);
      sources.set(setting, { from: 'env', variable });
      continue;
    }
    const value = file?.values.get(setting);
    if (value !== undefined) {
      put(setting, value, resolved);
      sources.set(setting, { from: 'file', path: file!.path });
    }
  }
  return { values: resolved, sources, file };
}
