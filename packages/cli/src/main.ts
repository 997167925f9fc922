import {
  createInMemoryStore,
  type MemoryStore,
  type MemoryStoreOptions,
  memoryErrorText,
  toMemoryToolError,
  validateNamespace,
} from '@memdir/core';
import { expectPositionals, type Options, parse, str, unknownCommand, type Values } from './args.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, operatorCause } from './errors.js';
import { runExec } from './exec.js';
import { COMMAND_HELP, MAIN_HELP } from './help.js';
import { type CliIo, processIo, write } from './io.js';
import { HTTP_FLAGS, httpServeConfig, withDefaultHttpAddress } from './serve-http-options.js';
import {
  checkFileStore,
  DEFAULT_STORE_URL,
  loadStoreAdapter,
  openStore,
  probeStore,
  redactStoreUrl,
  scrubSecrets,
} from './store-url.js';
import { escapeControls, isTerminal } from './terminal.js';
import { TEXT_SOURCE, toolInput } from './tool-input.js';
import { stderrLogger } from './verbose.js';
import { VERSION } from './version.js';

/** The store options every store command takes. */
export const STORE_OPTIONS = {
  store: { type: 'string', short: 's' },
  namespace: { type: 'string' },
  overwrite: { type: 'boolean' },
  'no-overwrite': { type: 'boolean' },
  'max-file-bytes': { type: 'string' },
  'max-view-chars': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies Options;

/** Each command's own flags, besides the store options. */
const COMMAND_OPTIONS: Record<string, Options> = {
  view: { range: { type: 'string', short: 'r' }, raw: { type: 'boolean' }, at: { type: 'string' } },
  create: TEXT_SOURCE,
  str_replace: { old: { type: 'string', short: 'o' }, new: { type: 'string', short: 'n' } },
  insert: { line: { type: 'string', short: 'l' }, ...TEXT_SOURCE },
  delete: {},
  rename: {},
  exec: {},
  serve: HTTP_FLAGS,
};

const ALIASES: Record<string, string> = { 'str-replace': 'str_replace' };

/** Commands of the store's history and of its namespaces (loaded on demand, like copy). */
const HISTORY_COMMANDS = new Set(['log', 'show', 'diff', 'restore', 'redact']);
const ADMIN_COMMANDS = new Set(['namespaces', 'usage', 'drop', 'sweep']);

/**
 * Runs the `memdir` command line with `argv` (without `node` and the script) and resolves to the
 * exit code: 0 success, 1 a failed command, 2 a usage or store problem. Never rejects for a user
 * error; every message goes to `io.stderr`.
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    return await dispatch([...argv], io);
  } catch (error) {
    // Whatever the message, and wherever it comes from, no secret of a store URL of this run in it.
    const urls = storeUrlsOf(argv, io);
    if (error instanceof CliUsageError) {
      // MEMDIR_DEBUG: where a store's failure came from, for a bug report (never by default).
      const stack = io.env.MEMDIR_DEBUG && error.cause !== undefined ? `${stackOf(error.cause)}\n` : '';
      await write(
        io.stderr,
        scrubSecrets(
          `memdir: ${error.message}\n${error.hint === undefined ? '' : `${error.hint}\n`}${stack}`,
          urls,
        ),
      );
      return EXIT_USAGE;
    }
    // A bug of the CLI or of an adapter: say so plainly, without a stack trace unless asked.
    const message = error instanceof Error ? error.message : String(error);
    await write(
      io.stderr,
      scrubSecrets(
        `memdir: unexpected failure: ${message}\n${io.env.MEMDIR_DEBUG ? `${(error as Error).stack ?? ''}\n` : ''}`,
        urls,
      ),
    );
    return EXIT_FAILED;
  }
}

/** Every store URL a run may use: the values of --store, --from and --to, and $MEMDIR_STORE. */
export function storeUrlsOf(argv: readonly string[], io: CliIo): string[] {
  const urls = [io.env.MEMDIR_STORE ?? ''];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const inline = /^--(?:store|from|to)=(.*)$/s.exec(arg);
    if (inline) urls.push(inline[1]!);
    else if (['--store', '-s', '--from', '--to'].includes(arg)) urls.push(argv[index + 1] ?? '');
    else if (arg.startsWith('-s') && arg.length > 2) urls.push(arg.slice(2));
  }
  return urls;
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  // The command is the first word that is not a store option (`memdir --store memory: exec` works).
  const index = commandIndex(argv);
  if (index === -1) {
    if (argv.includes('--version') || argv.includes('-v')) {
      await write(io.stdout, `${VERSION}\n`);
      return EXIT_OK;
    }
    if (argv.includes('--help') || argv.includes('-h')) {
      await write(io.stdout, `${MAIN_HELP}\n`);
      return EXIT_OK;
    }
    if (argv.length === 0) {
      // No command at all: the help, on stderr since this is a usage error.
      await write(io.stderr, `${MAIN_HELP}\n`);
      return EXIT_USAGE;
    }
    throw new CliUsageError('no command given', { hint: 'Run "memdir --help" for usage.' });
  }
  const word = argv[index]!;
  const rest = [...argv.slice(0, index), ...argv.slice(index + 1)];
  const command = ALIASES[word] ?? word;

  if (command === 'help') {
    const topic = rest.find((arg) => !arg.startsWith('-'));
    const text = topic === undefined ? MAIN_HELP : COMMAND_HELP[ALIASES[topic] ?? topic];
    if (text === undefined) throw unknownCommand(topic!);
    await write(io.stdout, `${text}\n`);
    return EXIT_OK;
  }
  if (command === 'conformance') {
    // Loaded on demand, like serve: the conformance runner (an optional peer) and the MCP SDK are heavy,
    // the memory commands are not.
    const { runConformance } = await import('./conformance.js');
    return runConformance(rest, io);
  }
  if (command === 'migrate') return migrate(rest, io);
  if (HISTORY_COMMANDS.has(command)) {
    const { runHistory } = await import('./history-command.js');
    return runHistory(command, rest, io);
  }
  if (ADMIN_COMMANDS.has(command)) {
    const { runAdmin } = await import('./admin-command.js');
    return runAdmin(command, rest, io);
  }
  if (command === 'token') {
    const { runToken } = await import('./token-command.js');
    return runToken(rest, io);
  }
  if (command === 'copy' || command === 'export' || command === 'import') {
    const transfer = await import('./transfer.js');
    const run = { copy: transfer.runCopy, export: transfer.runExport, import: transfer.runImport }[command];
    return run(rest, io);
  }
  const ownOptions = COMMAND_OPTIONS[command];
  if (ownOptions === undefined) throw unknownCommand(word);

  const args = command === 'serve' ? withDefaultHttpAddress(rest) : rest;
  const { values, positionals } = parse(command, args, { ...STORE_OPTIONS, ...ownOptions });
  if (values.help) {
    await write(io.stdout, `${COMMAND_HELP[command]}\n`);
    return EXIT_OK;
  }

  if (command === 'exec') {
    expectPositionals(command, positionals, 0, 0);
    return withStore(values, io, 'write', (store) => runExec(store, io));
  }
  if (command === 'serve') {
    expectPositionals(command, positionals, 0, 0);
    if (values.http !== undefined) return serveOverHttp(values, io);
    const httpOnly = Object.keys(HTTP_FLAGS).find((flag) => values[flag] !== undefined);
    if (httpOnly !== undefined) throw new CliUsageError(`serve: --${httpOnly} goes with --http HOST:PORT`);
    const { serveStdio } = await import('./serve.js');
    return withStore(values, io, 'write', (store) => serveStdio(store, io, describeStore(values, io)));
  }

  const input = await toolInput(command, values, positionals, io);
  if (command === 'view' && values.at !== undefined) {
    const { viewAt } = await import('./history-command.js');
    return viewAt(values, args, input, io);
  }
  // Only create can bring a file into being; the others read or change what is there.
  return withStore(values, io, command === 'create' ? 'write' : 'existing', async (store) => {
    let result: string;
    try {
      result = await store.execute(input);
    } catch (error) {
      return reportToolError(error, args, io);
    }
    // On a terminal, what the model wrote is shown with its control characters escaped (--raw:
    // as stored); piped, the bytes are exact.
    const shown =
      command === 'view' && !values.raw && isTerminal(io.stdout) ? escapeControls(result) : result;
    await write(io.stdout, `${shown}\n`);
    return EXIT_OK;
  });
}

/**
 * Prints a failed store call the way every command does: the text the model would read (SPEC
 * section 7; a hand-written store's raw error becomes the fixed BACKEND text, MEMDIR_DEBUG shows
 * the original), then the store's own words for the operator, secrets scrubbed.
 * @returns the exit code of a failed command (1).
 */
export async function reportToolError(error: unknown, args: readonly string[], io: CliIo): Promise<number> {
  const toolError = toMemoryToolError(error);
  await write(io.stderr, `${memoryErrorText(toolError)}\n`);
  // The operator also hears why, in the store's words (the model's text above never says).
  const cause = operatorCause(toolError);
  if (cause !== undefined) {
    const urls = storeUrlsOf(args, io);
    await write(io.stderr, scrubSecrets(`memdir: the store failed (${toolError.reason}): ${cause}\n`, urls));
  }
  if (io.env.MEMDIR_DEBUG)
    await write(io.stderr, `${stackOf(toolError === error ? ((error as Error).cause ?? error) : error)}\n`);
  return EXIT_FAILED;
}

/**
 * `memdir serve --http HOST:PORT`: each token of the tokens file opens its own namespace of the
 * store, so the namespace comes from the tokens file, never from the command line or the client.
 */
async function serveOverHttp(values: Values, io: CliIo): Promise<number> {
  if (str(values, 'namespace') !== undefined) {
    throw new CliUsageError('serve: --namespace does not go with --http: each token has its own namespace', {
      hint: 'Give a token its namespace with: memdir token add NAME --namespace NAMESPACE',
    });
  }
  const { tokensFilePath } = await import('./token-command.js');
  const { readTokensFile } = await import('./tokens.js');
  const tokensFile = tokensFilePath(str(values, 'tokens'), io);
  const config = httpServeConfig(values, tokensFile);
  let file: Awaited<ReturnType<typeof readTokensFile>>;
  try {
    file = await readTokensFile(tokensFile);
  } catch (error) {
    throw new CliUsageError(`serve: ${tokensFile}: ${(error as Error).message}`);
  }
  if (file === undefined) {
    throw new CliUsageError(`serve: there is no tokens file ${tokensFile}`, {
      hint: 'Add a token first: memdir token add NAME --namespace NAMESPACE (or give --tokens FILE)',
    });
  }
  const { serveHttp } = await import('./serve-http.js');
  const options = storeOptions(values, io);
  const url = storeUrl(values, io);
  return withStore(values, io, 'write', (store) =>
    serveHttp(config, {
      io,
      storeLabel: describeStore(values, io),
      healthStore: store,
      openNamespace: (namespace) => openStore(url, { ...options, namespace }, { cwd: io.cwd }),
    }),
  );
}

/** `memdir migrate --store URL`: the adapter's `migrate(url, options)` sets up its server. */
async function migrate(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('migrate', args, {
    store: STORE_OPTIONS.store,
    help: STORE_OPTIONS.help,
  });
  if (values.help) return write(io.stdout, `${COMMAND_HELP['migrate']}\n`).then(() => EXIT_OK);
  expectPositionals('migrate', positionals, 0, 0);
  const url = storeUrl(values, io);
  const adapter = await loadStoreAdapter(url, { cwd: io.cwd });
  if (typeof adapter['migrate'] !== 'function') {
    throw new CliUsageError(`migrate: the store ${redactStoreUrl(url)} has nothing to set up`);
  }
  try {
    await write(io.stdout, `${scrubSecrets(String(await adapter['migrate'](url, {})), [url])}\n`);
  } catch (error) {
    // An option the adapter refuses (a schema name against its rule) is the user's to fix.
    if (error instanceof TypeError)
      throw new CliUsageError(`migrate: ${redactStoreUrl(url)}: ${error.message}`);
    await write(io.stderr, `${memoryErrorText(toMemoryToolError(error))}\n`);
    return EXIT_FAILED;
  }
  return EXIT_OK;
}

/** Options that take a value, whose next argument is therefore not the command. */
const VALUE_FLAGS = new Set([
  '--store',
  '-s',
  '--namespace',
  '--max-file-bytes',
  '--max-view-chars',
  '--tokens',
]);

function commandIndex(argv: readonly string[]): number {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (VALUE_FLAGS.has(arg)) {
      index++;
      continue;
    }
    if (!arg.startsWith('-')) return index;
  }
  return -1;
}

/** The store options given on the command line. */
export function storeOptions(values: Values, io: CliIo): MemoryStoreOptions {
  if (values.overwrite && values['no-overwrite']) {
    throw new CliUsageError('--overwrite and --no-overwrite contradict each other');
  }
  const options: MemoryStoreOptions = {};
  const namespace = str(values, 'namespace');
  if (namespace !== undefined) {
    try {
      options.namespace = validateNamespace(namespace);
    } catch (error) {
      throw new CliUsageError((error as Error).message);
    }
  }
  // --verbose: the driver's own reports on stderr (connections, retries, lock waits, setup).
  if (values.verbose) options.logger = stderrLogger(io, [storeUrl(values, io), io.env.MEMDIR_STORE]);
  if (values.overwrite) options.overwrite = true;
  if (values['no-overwrite']) options.overwrite = false;
  for (const [flag, key] of [
    ['max-file-bytes', 'maxFileBytes'],
    ['max-view-chars', 'maxViewChars'],
  ] as const) {
    const value = str(values, flag);
    if (value === undefined) continue;
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
      throw new CliUsageError(`--${flag} expects a positive integer, got ${JSON.stringify(value)}`);
    }
    options[key] = number;
  }
  return options;
}

export function storeUrl(values: Values, io: CliIo): string {
  const url = str(values, 'store') ?? io.env.MEMDIR_STORE;
  return url === undefined || url === '' ? DEFAULT_STORE_URL : url;
}

export function describeStore(values: Values, io: CliIo): string {
  return redactStoreUrl(storeUrl(values, io));
}

/**
 * Opens the store the flags name, checks that it answers, runs `body` on it and closes it.
 *
 * `existing`: the command only reads or changes files that exist (all but create, exec and serve).
 * On a `file:` store whose folder does not exist it runs on an empty store instead, creating no
 * folder, and says on stderr that the store is empty.
 */
export async function withStore(
  values: Values,
  io: CliIo,
  mode: 'existing' | 'write',
  body: (store: MemoryStore) => Promise<number>,
): Promise<number> {
  const options = storeOptions(values, io);
  const url = storeUrl(values, io);
  if (/^file:/i.test(url)) {
    const state = await checkFileStore(url, io.cwd, options.namespace);
    if (state.kind === 'missing' && mode === 'existing') {
      await write(io.stderr, `${state.note}\n`);
      return body(createInMemoryStore(options));
    }
  }
  const store = await openStore(url, options, { cwd: io.cwd });
  try {
    if (!/^memory:/i.test(url)) await probeStore(store, url);
    return await body(store);
  } finally {
    await store.close().catch(() => {});
  }
}

/** A stack for MEMDIR_DEBUG, with each cause's under it. */
function stackOf(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    lines.push(`${depth === 0 ? '' : 'caused by: '}${(current as Error).stack ?? String(current)}`);
    current = (current as { cause?: unknown }).cause;
  }
  return lines.join('\n');
}
