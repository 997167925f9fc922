// The `memdir` command line: `run(argv, io)` finds the command and hands it to the file that holds
// it. This file is the table of commands; it imports them, and no file imports it but the entrances
// (bin.ts, the executable; index.ts, the library).
//
// Where the rest is:
// - a command line's words: args.ts (parsing), errors.ts (usage errors, exit codes), io.ts (the
//   process's streams), help.ts and the *-help.ts files (every command's help), suggest.ts;
// - settings: config.ts (flag, else MEMDIR_<NAME>, else the config file: parseOrHelp calls it),
//   settings.ts (which flags are settings; command-flags.ts holds those of ui and sync),
//   config-file.ts (memdir.toml), config-command.ts;
// - what the store commands share: store-command.ts (store options, the store opened and closed),
//   store-flags.ts (the store flags), failure-report.ts (a failure as the model and the operator
//   read it), store-url.ts and store-url-shown.ts (store URLs, adapters, what of a URL may be shown; open-store.ts makes the
//   first an entry of its own, memdir/open-store), verbose.ts, terminal.ts;
// - the memory commands: tool-input.ts (view, create, ... from flags), exec.ts (JSON lines);
// - history and admin: history-command.ts, unified-diff.ts (jsdiff's hunks, drawn), admin-command.ts, table.ts;
// - copy, export and import: transfer.ts, transfer-history.ts, progress.ts, memory.ts, and the tar
//   archive in archive*.ts (json-events.ts reads its manifest);
// - serving: serve.ts and mcp-input.ts (stdio); serve-http.ts, serve-http-options.ts, http-*.ts,
//   access-log.ts, tokens.ts and token-command.ts (`memdir serve --http`);
// - conformance*.ts: `memdir conformance`;
// - sync-command.ts and sync-help.ts: `memdir sync`, over @memdir/sync;
// - init-command.ts and init-help.ts: `memdir init`, memdir as Claude Code's memory in a project;
// - demo-command.ts, demo-session.ts (the scripted session), demo-format.ts and demo-help.ts:
//   `memdir demo`, a session of Claude played offline;
// - completion.ts and completion-help.ts: `memdir completion bash|zsh|fish`;
// - stores-command.ts and stores-help.ts: `memdir stores`, the memory stores API's stores on a URL.
import {
  DEFAULT_MAX_FILE_BYTES,
  type MemoryStoreOptions,
  memoryErrorText,
  toMemoryToolError,
} from '@memdir/core';
import { expectPositionals, type Options, parseOrHelp, str, unknownCommand, type Values } from './args.js';
import { namingSources, type SettingSource, sourceOf } from './config.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors.js';
import { runExec } from './exec.js';
import { stackOf, storeUrlsOf } from './failure-report.js';
import { COMMAND_HELP, MAIN_HELP } from './help.js';
import { type CliIo, processIo, write } from './io.js';
import { HTTP_FLAGS, httpServeConfig, withDefaultHttpAddress } from './serve-http-options.js';
import type { Setting } from './settings.js';
import {
  describeStore,
  executeAndPrint,
  STORE_OPTIONS,
  storeOptions,
  storeUrl,
  withStore,
} from './store-command.js';
import { loadStoreAdapter, openStore, redactStoreUrl, scrubSecrets } from './store-url.js';
import { TEXT_SOURCE, toolInput } from './tool-input.js';
import { VERSION } from './version.js';

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
    if (text === undefined) throw unknownCommand(topic!, Object.keys(COMMAND_HELP));
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
  if (command === 'config') {
    const { runConfig } = await import('./config-command.js');
    return runConfig(rest, io);
  }
  if (command === 'completion') {
    const { runCompletion } = await import('./completion.js');
    return runCompletion(rest, io);
  }
  if (command === 'stores') {
    const { runStores } = await import('./stores-command.js');
    return runStores(rest, io);
  }
  if (command === 'init') {
    const { runInit } = await import('./init-command.js');
    return runInit(rest, io);
  }
  if (command === 'demo') {
    const { runDemo } = await import('./demo-command.js');
    return runDemo(rest, io);
  }
  if (command === 'ui') {
    const { runUi } = await import('./ui-command.js');
    return runUi(rest, io);
  }
  if (command === 'sync') {
    const { runSync } = await import('./sync-command.js');
    return runSync(rest, io);
  }
  if (command === 'copy' || command === 'export' || command === 'import') {
    const transfer = await import('./transfer.js');
    const run = { copy: transfer.runCopy, export: transfer.runExport, import: transfer.runImport }[command];
    return run(rest, io);
  }
  const ownOptions = COMMAND_OPTIONS[command];
  if (ownOptions === undefined) throw unknownCommand(word, Object.keys(COMMAND_HELP));

  const args = command === 'serve' ? withDefaultHttpAddress(rest) : rest;
  const parsed = await parseOrHelp(
    command,
    args,
    { ...STORE_OPTIONS, ...ownOptions },
    COMMAND_HELP[command],
    io,
  );
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals, sources } = parsed;
  try {
    return await runCommand(command, values, positionals, sources, args, io);
  } catch (error) {
    // A value that is wrong where the environment or the config file gave it says so.
    throw namingSources(error, sources);
  }
}

/** A command of this file, with its flags parsed and its settings filled in. */
async function runCommand(
  command: string,
  values: Values,
  positionals: string[],
  sources: ReadonlyMap<Setting, SettingSource>,
  args: string[],
  io: CliIo,
): Promise<number> {
  if (command === 'exec') {
    expectPositionals(command, positionals, 0, 0);
    return withStore(values, io, 'write', (store) => runExec(store, io));
  }
  if (command === 'serve') {
    expectPositionals(command, positionals, 0, 0);
    if (values.http !== undefined) return serveOverHttp(values, sources, io);
    // An HTTP setting of the environment or the config file is for serve --http: stdio ignores it.
    const httpOnly = Object.keys(HTTP_FLAGS).find((flag) => sourceOf(sources, flag)?.from === 'flag');
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
  return withStore(values, io, command === 'create' ? 'write' : 'existing', (store) =>
    executeAndPrint(store, input, command === 'view' && !values.raw, args, io),
  );
}

/**
 * `memdir serve --http HOST:PORT`: each token of the tokens file opens its own namespace of the
 * store, so the namespace comes from the tokens file, never from the command line or the client.
 */
async function serveOverHttp(
  values: Values,
  sources: ReadonlyMap<Setting, SettingSource>,
  io: CliIo,
): Promise<number> {
  const namespaceSource = sourceOf(sources, 'namespace');
  if (str(values, 'namespace') !== undefined) {
    const given =
      namespaceSource === undefined || namespaceSource.from === 'flag'
        ? '--namespace'
        : `the namespace of ${namespaceSource.from === 'env' ? `$${namespaceSource.variable}` : namespaceSource.path}`;
    throw new CliUsageError(`serve: ${given} does not go with --http: each token has its own namespace`, {
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
  const options: MemoryStoreOptions = { ...storeOptions(values, io), quota: config.quota };
  const url = storeUrl(values, io);
  if (config.quota !== undefined) {
    // A store that cannot enforce a quota says so now, not at each token's first call.
    try {
      await (await openStore(url, options, { cwd: io.cwd })).close();
    } catch (error) {
      if (error instanceof TypeError) throw new CliUsageError(`serve: ${error.message}`);
      throw error;
    }
  }
  // A memory store of the API is a namespace with the store's limits as its quota and file limit
  // (API.md, section 3): the API's writes and the memory tool's meet the same ones.
  const { isStoreId } = await import('@memdir/server');
  const namespaceOptions = (namespace: string): MemoryStoreOptions => {
    if (!isStoreId(namespace)) return options;
    const limits = config.storeLimits;
    const least = (given: number | undefined, limit: number) => Math.min(given ?? limit, limit);
    return {
      ...options,
      maxFileBytes: least(options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, limits.maxFileBytes),
      quota: {
        maxFiles: least(config.quota?.maxFiles, limits.maxFiles),
        maxBytes: least(config.quota?.maxBytes, limits.maxBytes),
      },
    };
  };
  return withStore(values, io, 'write', (store) =>
    serveHttp(config, {
      io,
      storeLabel: describeStore(values, io),
      healthStore: store,
      openNamespace: (namespace) =>
        openStore(url, { ...namespaceOptions(namespace), namespace }, { cwd: io.cwd }),
    }),
  );
}

/** Why a built-in store has nothing for `migrate` to do (they have no adapter package to ask). */
const BUILT_IN_SETUP: Readonly<Record<string, string>> = {
  file: 'the filesystem store makes its folders as it writes, and takes over a folder an older release wrote at its first use',
  memory: 'the in-memory store lives and dies with the process that opens it',
};

/** `memdir migrate --store URL`: the adapter's `migrate(url, options)` sets up its server. */
async function migrate(args: string[], io: CliIo): Promise<number> {
  const options = { store: STORE_OPTIONS.store, help: STORE_OPTIONS.help };
  const parsed = await parseOrHelp('migrate', args, options, COMMAND_HELP['migrate'], io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  expectPositionals('migrate', positionals, 0, 0);
  const url = storeUrl(values, io);
  const builtIn = BUILT_IN_SETUP[/^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? ''];
  if (builtIn !== undefined) {
    throw new CliUsageError(`migrate: the store ${redactStoreUrl(url)} needs no migration: ${builtIn}`);
  }
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
  '--actor',
  '--config',
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
