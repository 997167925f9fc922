// The config file, memdir.toml: where it is looked for, and its keys read and checked against the
// settings (settings.ts). TOML is read by smol-toml; nothing of the file's text is ever quoted in
// a message (a store URL in it may hold a password), only its path, line, column and key.
//
// Where: --config FILE, else $MEMDIR_CONFIG, else ./memdir.toml, else
// $XDG_CONFIG_HOME/memdir/config.toml ($XDG_CONFIG_HOME defaults to ~/.config). The first found is
// the only one read. A file named by --config or $MEMDIR_CONFIG must exist.
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { type FlagValue, fileKey, fromFile, SETTINGS, type Setting, TABLES } from './settings.js';
import { nearest } from './suggest.js';

/** A config file found, and how: `--config`, `$MEMDIR_CONFIG`, or found where one is looked for. */
export interface ConfigFileLocation {
  path: string;
  named: '--config' | 'MEMDIR_CONFIG' | undefined;
}

/** The config file of a run, if any: see the rule at the top of this file. */
export function configFileLocation(
  flag: string | undefined,
  io: Pick<CliIo, 'env' | 'cwd'>,
  exists: (path: string) => boolean,
): ConfigFileLocation | undefined {
  if (flag !== undefined) return { path: resolve(io.cwd, flag), named: '--config' };
  const fromEnv = io.env.MEMDIR_CONFIG;
  if (fromEnv !== undefined && fromEnv !== '')
    return { path: resolve(io.cwd, fromEnv), named: 'MEMDIR_CONFIG' };
  const here = resolve(io.cwd, 'memdir.toml');
  if (exists(here)) return { path: here, named: undefined };
  const home = io.env.XDG_CONFIG_HOME || (io.env.HOME ? join(io.env.HOME, '.config') : undefined);
  if (home === undefined) return undefined;
  const user = resolve(io.cwd, home, 'memdir', 'config.toml');
  return exists(user) ? { path: user, named: undefined } : undefined;
}

/** Where config files are looked for, as the help and `memdir config` say it. */
export const CONFIG_FILE_RULE =
  '--config FILE, else $MEMDIR_CONFIG, else ./memdir.toml, else $XDG_CONFIG_HOME/memdir/config.toml (~/.config/memdir/config.toml)';

/** The settings a config file gives, each as its flag would give it. */
export interface ConfigFile {
  path: string;
  values: Map<Setting, FlagValue>;
}

function fail(path: string, message: string, hint?: string): CliUsageError {
  return new CliUsageError(`config file ${path}: ${message}`, {
    hint: hint ?? 'Run "memdir config --help" for the settings, their types and the file\'s tables.',
  });
}

/** The sentence of a key the settings do not know, with the nearest one when one is close. */
function unknownKey(path: string, key: string): CliUsageError {
  const table = TABLES.find((name) => key.startsWith(`${name}.`)) ?? '';
  const bare = table === '' ? key : key.slice(table.length + 1);
  const nearTable = table === '' ? nearest(bare, TABLES) : undefined;
  if (nearTable !== undefined && !SETTINGS.some((setting) => setting.name === bare)) {
    return fail(path, `unknown key ${JSON.stringify(key)}`, `Did you mean the [${nearTable}] table?`);
  }
  const names = SETTINGS.map((setting) => setting.name);
  const near = SETTINGS.find(
    (setting) => setting.name === (names.includes(bare) ? bare : nearest(bare, names)),
  );
  if (near === undefined) return fail(path, `unknown key ${JSON.stringify(key)}`);
  const where =
    near.table === table
      ? ''
      : near.table === ''
        ? ', at the top of the file'
        : `, in the [${near.table}] table`;
  return fail(
    path,
    `unknown key ${JSON.stringify(key)}`,
    `Did you mean ${JSON.stringify(fileKey(near))}${where}?`,
  );
}

/** Reads and checks the config file at `path`; throws {@link CliUsageError} for any problem in it. */
export function readConfigText(path: string, text: string): ConfigFile {
  let document: Record<string, unknown>;
  try {
    document = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      // Its first line only: the rest quotes the file's text, which may hold a secret.
      const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw fail(
        path,
        `line ${error.line}, column ${error.column}: not valid TOML: ${reason}`,
        'See https://toml.io for the syntax.',
      );
    }
    throw error;
  }
  const values = new Map<Setting, FlagValue>();
  const take = (table: Setting['table'], entries: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(entries)) {
      const qualified = table === '' ? key : `${table}.${key}`;
      const subtable = table === '' ? TABLES.find((name) => name === key) : undefined;
      if (subtable !== undefined) {
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          throw fail(path, `${subtable} must be a table ([${subtable}])`);
        take(subtable, value as Record<string, unknown>);
        continue;
      }
      const setting = SETTINGS.find((candidate) => candidate.table === table && candidate.name === key);
      if (setting === undefined) throw unknownKey(path, qualified);
      const converted = fromFile(setting, value);
      if (typeof converted === 'object' && !Array.isArray(converted)) throw fail(path, converted.problem);
      values.set(setting, converted);
    }
  };
  take('', document);
  return { path, values };
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

/** The run's config file, read and checked; undefined when there is none. */
export async function loadConfigFile(flag: string | undefined, io: CliIo): Promise<ConfigFile | undefined> {
  const location = configFileLocation(flag, io, isFile);
  if (location === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(location.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder' : `cannot be read (${code})`;
    throw new CliUsageError(`config file ${location.path} (from ${location.named ?? 'the search'}) ${why}`, {
      hint: `Give an existing file, or none: the config file is looked for as ${CONFIG_FILE_RULE}.`,
    });
  }
  return readConfigText(location.path, text);
}

/**
 * The store URL of the run's config file, for scrubbing its secrets from a message; read anew and
 * quietly (a failure message must not fail).
 */
export function configuredStoreUrl(
  flag: string | undefined,
  io: Pick<CliIo, 'env' | 'cwd'>,
): string | undefined {
  try {
    const location = configFileLocation(flag, io, isFile);
    if (location === undefined) return undefined;
    const store = (parseToml(readFileSync(location.path, 'utf8')) as Record<string, unknown>)['store'];
    return typeof store === 'string' ? store : undefined;
  } catch {
    return undefined;
  }
}
