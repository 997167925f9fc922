// `memdir token add|list|remove`: the tokens file of `memdir serve --http`, without editing JSON.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { validateNamespace } from '@memdir/core';
import { type Options, usageOf } from './args.js';
import { CONFIG_OPTION, resolveSettings } from './config.js';
import { CliUsageError, EXIT_OK } from './errors.js';
import { TOKEN_HELP } from './help.js';
import { type CliIo, write } from './io.js';
import { HTTP_FLAGS } from './serve-http-options.js';
import {
  DEFAULT_TOKENS_FILE,
  generateToken,
  hashToken,
  readTokensFile,
  STORES_TOKEN_NAMESPACE,
  TokensFileError,
  updateTokensFile,
  validateTokenName,
} from './tokens.js';

/** The tokens file a command uses: `--tokens FILE`, else `MEMDIR_TOKENS`, else ./memdir-tokens.json. */
export function tokensFilePath(flag: string | undefined, io: CliIo): string {
  const given = flag ?? io.env.MEMDIR_TOKENS;
  return resolve(io.cwd, given === undefined || given === '' ? DEFAULT_TOKENS_FILE : given);
}

function usage(message: string): CliUsageError {
  return new CliUsageError(`token: ${message}`, { hint: 'Run "memdir token --help" for usage.' });
}

/** `memdir token ...` with the arguments after `token`. */
export async function runToken(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw usageOf('token', error as Error & { code?: string }, TOKEN_OPTIONS);
  }
  const { positionals } = parsed;
  if (parsed.values.help) {
    await write(io.stdout, `${TOKEN_HELP}\n`);
    return EXIT_OK;
  }
  // The tokens file may come from $MEMDIR_TOKENS or the config file's [serve] tokens, as serve's.
  const values = (await resolveSettings(parsed.values, TOKEN_OPTIONS, io)).values as typeof parsed.values;
  const [verb, name, ...extra] = positionals;
  if (extra.length > 0) throw usage(`unexpected argument ${JSON.stringify(extra[0])}`);
  const file = tokensFilePath(values.tokens, io);
  try {
    switch (verb) {
      case 'add':
        return await add(file, name, values, io);
      case 'remove':
        return await remove(file, name, io);
      case 'list':
        if (name !== undefined) throw usage(`unexpected argument ${JSON.stringify(name)}`);
        return await list(file, io);
      case undefined:
        throw usage('give add, list or remove');
      default:
        throw usage(`unknown subcommand ${JSON.stringify(verb)}: give add, list or remove`);
    }
  } catch (error) {
    if (error instanceof TokensFileError) throw new CliUsageError(`token: ${file}: ${error.message}`);
    throw error;
  }
}

const TOKEN_OPTIONS = {
  namespace: { type: 'string' },
  stores: { type: 'boolean' },
  'read-only': { type: 'boolean' },
  tokens: HTTP_FLAGS.tokens,
  config: CONFIG_OPTION,
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

function parse(args: string[]) {
  return parseArgs({
    args,
    options: TOKEN_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
}

type Values = ReturnType<typeof parse>['values'];

async function add(file: string, name: string | undefined, values: Values, io: CliIo): Promise<number> {
  if (name === undefined) throw usage('add: give the token a NAME');
  try {
    validateTokenName(name);
  } catch (error) {
    throw usage(`add: ${(error as Error).message}`);
  }
  if (values.stores === true && values.namespace !== undefined) {
    throw usage('add: give --namespace NAME or --stores, not both');
  }
  if (values.namespace === undefined && values.stores !== true) {
    throw usage('add: --namespace NAME is required (or --stores, for the memory stores API)');
  }
  if (values.namespace !== undefined) {
    try {
      validateNamespace(values.namespace);
    } catch (error) {
      throw usage(`add: ${(error as Error).message}`);
    }
    if (values.namespace.startsWith('=')) throw usage('add: namespaces starting with "=" are memdir\'s own');
  }
  const namespace = values.namespace ?? STORES_TOKEN_NAMESPACE;
  const mode = values['read-only'] ? 'read-only' : 'read-write';
  const token = generateToken();
  await updateTokensFile(file, (current) => {
    if (current.tokens.some((entry) => entry.name === name)) {
      throw usage(`add: there is already a token named ${name} (remove it first to replace it)`);
    }
    const entry = {
      name,
      namespace,
      mode,
      sha256: hashToken(token),
      created: new Date().toISOString(),
      ...(values.stores === true ? { stores: true as const } : {}),
    } as const;
    return { version: 1, tokens: [...current.tokens, entry] };
  });
  // The token alone on stdout, so `TOKEN=$(memdir token add ...)` works; the rest on stderr.
  await write(io.stdout, `${token}\n`);
  await write(
    io.stderr,
    `memdir: added token ${name} (${values.stores === true ? 'every memory store' : `namespace ${namespace}`}, ${mode}) to ${file}\n` +
      'memdir: this is the only time the token is shown (the file keeps its hash); ' +
      'a running server takes it on SIGHUP\n' +
      'memdir: Claude Code: claude mcp add --transport http memdir http://HOST:8787/mcp --header "Authorization: Bearer TOKEN"\n',
  );
  return EXIT_OK;
}

async function remove(file: string, name: string | undefined, io: CliIo): Promise<number> {
  if (name === undefined) throw usage('remove: give the NAME of the token');
  if ((await readTokensFile(file)) === undefined) throw usage(`remove: there is no tokens file ${file}`);
  await updateTokensFile(file, (current) => {
    if (!current.tokens.some((entry) => entry.name === name)) {
      throw usage(`remove: there is no token named ${name}`);
    }
    return { version: 1, tokens: current.tokens.filter((entry) => entry.name !== name) };
  });
  await write(
    io.stderr,
    `memdir: removed token ${name} from ${file}; a running server refuses it after SIGHUP\n`,
  );
  return EXIT_OK;
}

async function list(file: string, io: CliIo): Promise<number> {
  const tokens = (await readTokensFile(file))?.tokens ?? [];
  const rows = [
    ['NAME', 'NAMESPACE', 'MODE', 'CREATED'],
    ...tokens.map((t) => [t.name, t.stores === true ? '(stores)' : t.namespace, t.mode, t.created]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
  );
  await write(io.stdout, `${lines.join('\n')}\n`);
  return EXIT_OK;
}
