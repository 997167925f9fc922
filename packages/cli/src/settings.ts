// The settings: the flags that a config file and the environment may give as well as the command
// line, each with its type, its table in memdir.toml and its environment variable, and how a value
// from either is checked and turned into what the flag would have given. config.ts layers them.
//
// One rule names them all: the setting is the flag's long name (`max-file-bytes`), its variable is
// MEMDIR_ and the name in capitals with `_` for `-` (MEMDIR_MAX_FILE_BYTES), and its key in the file
// is the name, at the top for the store flags, in the [serve] table for those of serve --http, and
// in the [ui] and [sync] tables for the own flags of memdir ui and memdir sync.
import type { ParseArgsConfig } from 'node:util';
import { SYNC_FLAGS, UI_FLAGS } from './command-flags.js';
import { HTTP_FLAGS } from './serve-http-options.js';
import { STORE_OPTIONS } from './store-flags.js';

type Option = NonNullable<ParseArgsConfig['options']>[string];

/**
 * What a setting's value is: `text` any non-empty string, `integer` a positive whole number,
 * `number` a positive number, `seconds` a number of seconds (0 or more), `boolean` true or false,
 * `list` one string or several.
 */
export type SettingKind = 'text' | 'integer' | 'number' | 'seconds' | 'boolean' | 'list';

/** The tables of memdir.toml below the top: each holds the settings of one command. */
export const TABLES = ['serve', 'ui', 'sync'] as const;

export interface Setting {
  /** The flag's long name, which is also the key in the file. */
  readonly name: string;
  readonly kind: SettingKind;
  /** The table of memdir.toml that holds its key ('' for the top). */
  readonly table: '' | (typeof TABLES)[number];
  /**
   * The flag's definition: the setting applies to a command whose flag of that name is this very
   * definition (`memdir log --actor`, a filter, is another flag than the store's `--actor`).
   */
  readonly option: Option;
  /** A store URL, whose password and keys are never shown. */
  readonly secret?: boolean;
}

const serve = (name: keyof typeof HTTP_FLAGS, kind: SettingKind): Setting => ({
  name,
  kind,
  table: 'serve',
  option: HTTP_FLAGS[name],
});

const ui = (name: keyof typeof UI_FLAGS, kind: SettingKind): Setting => ({
  name,
  kind,
  table: 'ui',
  option: UI_FLAGS[name],
});

const sync = (name: keyof typeof SYNC_FLAGS, kind: SettingKind): Setting => ({
  name,
  kind,
  table: 'sync',
  option: SYNC_FLAGS[name],
});

/** Every setting, in the order `memdir config` shows them. */
export const SETTINGS: readonly Setting[] = [
  { name: 'store', kind: 'text', table: '', option: STORE_OPTIONS.store, secret: true },
  { name: 'namespace', kind: 'text', table: '', option: STORE_OPTIONS.namespace },
  // true is --overwrite, false is --no-overwrite (config.ts).
  { name: 'overwrite', kind: 'boolean', table: '', option: STORE_OPTIONS.overwrite },
  { name: 'max-file-bytes', kind: 'integer', table: '', option: STORE_OPTIONS['max-file-bytes'] },
  { name: 'max-view-chars', kind: 'integer', table: '', option: STORE_OPTIONS['max-view-chars'] },
  { name: 'verbose', kind: 'boolean', table: '', option: STORE_OPTIONS.verbose },
  { name: 'actor', kind: 'text', table: '', option: STORE_OPTIONS.actor },
  serve('http', 'text'),
  serve('tokens', 'text'),
  serve('rate', 'number'),
  serve('burst', 'integer'),
  serve('max-inflight', 'integer'),
  serve('max-inflight-per-token', 'integer'),
  serve('session-idle', 'number'),
  serve('shutdown-grace', 'number'),
  serve('allowed-host', 'list'),
  serve('allowed-origin', 'list'),
  serve('max-connections', 'integer'),
  serve('headers-timeout', 'number'),
  serve('request-timeout', 'number'),
  serve('write-timeout', 'number'),
  serve('quota-bytes', 'integer'),
  serve('quota-files', 'integer'),
  serve('store-max-memories', 'integer'),
  serve('store-max-bytes', 'integer'),
  serve('store-max-memory-bytes', 'integer'),
  ui('listen', 'text'),
  sync('once', 'boolean'),
  sync('interval', 'seconds'),
  sync('delete-delay', 'seconds'),
  sync('deletions', 'text'),
  sync('read-only', 'boolean'),
];

/** The environment variable of a setting: MEMDIR_ and its name in capitals, `_` for `-`. */
export function envName(setting: Setting): string {
  return `MEMDIR_${setting.name.toUpperCase().replaceAll('-', '_')}`;
}

/** The setting's key in memdir.toml as a dotted TOML key: `store`, `serve.rate`. */
export function fileKey(setting: Setting): string {
  return setting.table === '' ? setting.name : `${setting.table}.${setting.name}`;
}

/** What a value of `kind` must be, for a message: "expects {this}". */
const EXPECTED: Record<SettingKind, string> = {
  text: 'a non-empty string',
  integer: 'a positive whole number',
  number: 'a positive number',
  seconds: 'a number of seconds, 0 or more',
  boolean: 'true or false',
  list: 'a string or a list of strings',
};

/** A value as the flag gives it: a string, true, or strings; false only for booleans. */
export type FlagValue = string | boolean | string[];

const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * The value of an environment variable as the flag would give it.
 * @returns the value, or a sentence saying what was expected.
 */
export function fromEnv(setting: Setting, text: string): FlagValue | { problem: string } {
  const problem = {
    problem: `${envName(setting)} expects ${EXPECTED[setting.kind]}, got ${JSON.stringify(text)}`,
  };
  switch (setting.kind) {
    case 'text':
      return text;
    case 'integer':
      return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) > 0 ? text : problem;
    case 'number':
      return DECIMAL.test(text) && Number(text) > 0 ? text : problem;
    case 'seconds':
      return DECIMAL.test(text) ? text : problem;
    case 'boolean': {
      const word = text.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(word)) return true;
      if (['0', 'false', 'no', 'off'].includes(word)) return false;
      return problem;
    }
    case 'list': {
      // Hosts and origins hold no comma: MEMDIR_ALLOWED_HOST=a.example,b.example
      const items = text.split(',').map((item) => item.trim());
      return items.every((item) => item !== '') ? items : problem;
    }
  }
}

/** The JSON type of a value, as a message says it (never the value: it may be a secret). */
function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date || (typeof value === 'object' && value !== null && 'isDate' in value))
    return 'a date';
  if (typeof value === 'object' && value !== null) return 'a table';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `${value}`;
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  return typeof value;
}

/**
 * The value of a key of memdir.toml as the flag would give it.
 * @returns the value, or a sentence saying what was expected and what was found.
 */
export function fromFile(setting: Setting, value: unknown): FlagValue | { problem: string } {
  const problem = { problem: `${fileKey(setting)} expects ${EXPECTED[setting.kind]}, got ${typeOf(value)}` };
  switch (setting.kind) {
    case 'text':
      return typeof value === 'string' && value !== '' ? value : problem;
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? String(value) : problem;
    case 'number':
      // A number too large or too small for plain decimals (1e300) is no timeout or rate either.
      return typeof value === 'number' && value > 0 && DECIMAL.test(String(value)) ? String(value) : problem;
    case 'seconds':
      return typeof value === 'number' && DECIMAL.test(String(value)) ? String(value) : problem;
    case 'boolean':
      return typeof value === 'boolean' ? value : problem;
    case 'list': {
      const items = Array.isArray(value) ? value : [value];
      return items.length > 0 && items.every((item) => typeof item === 'string' && item !== '')
        ? (items as string[])
        : problem;
    }
  }
}
