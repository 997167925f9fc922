// `memdir config`: the settings a command would run with and where each comes from (the flag, the
// environment, the config file), store URLs redacted.
import { parseOrHelp } from './args.js';
import { describeSource } from './config.js';
import { CONFIG_FILE_RULE } from './config-file.js';
import { CONFIG_HELP } from './config-help.js';
import { EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { SETTINGS, type Setting } from './settings.js';
import { STORE_OPTIONS } from './store-flags.js';
import { redactStoreUrl } from './store-url-shown.js';
import { table } from './table.js';
import { escapeControls } from './terminal.js';

/** Every setting's flag, so that `memdir config --rate 5` shows what a flag does too. */
const OPTIONS = {
  ...Object.fromEntries(SETTINGS.map((setting) => [setting.name, setting.option])),
  'no-overwrite': STORE_OPTIONS['no-overwrite'],
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function shown(setting: Setting, value: unknown, noOverwrite: boolean): string | boolean | string[] {
  if (setting.name === 'overwrite') return !noOverwrite;
  if (setting.kind === 'boolean') return value === true;
  if (Array.isArray(value)) return value.map(String);
  return setting.secret ? redactStoreUrl(String(value)) : String(value);
}

/** `memdir config [--config FILE] [--json]`. */
export async function runConfig(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('config', args, OPTIONS, CONFIG_HELP, io, false);
  if (parsed === undefined) return EXIT_OK;
  const { values, sources, configFile: foundFile } = parsed;
  const settings = SETTINGS.filter((setting) => sources.has(setting)).map((setting) => {
    const source = sources.get(setting)!;
    return {
      name: setting.name,
      value: shown(setting, values[setting.name], values['no-overwrite'] === true),
      from: source.from,
      source: describeSource(setting, source),
    };
  });
  if (values.json) {
    await write(io.stdout, `${JSON.stringify({ file: foundFile ?? null, settings })}\n`);
    return EXIT_OK;
  }
  const head =
    foundFile === undefined
      ? `config file: none (looked for ${CONFIG_FILE_RULE})`
      : `config file: ${foundFile}`;
  const rows = settings.map((setting) => [
    setting.name,
    escapeControls(Array.isArray(setting.value) ? setting.value.join(', ') : String(setting.value)),
    setting.source,
  ]);
  const body =
    rows.length === 0
      ? 'no setting is given: every command runs with its defaults\n'
      : table(['SETTING', 'VALUE', 'FROM'], rows);
  await write(io.stdout, `${head}\n${body}`);
  return EXIT_OK;
}
