// What every store command shares: the store flags (--store, --namespace, the limits, --verbose),
// the store options and URL they give, and the store opened, checked and closed around a command.
// main.ts and the history and admin commands take them from here; copy takes the opening.
import {
  createInMemoryStore,
  type MemoryStore,
  type MemoryStoreOptions,
  validateNamespace,
} from '@memdir/core';
import { cliActor } from './actor.js';
import { positiveInteger, str, type Values } from './args.js';
import { CliUsageError, EXIT_OK } from './errors.js';
import { reportToolError } from './failure-report.js';
import { type CliIo, write } from './io.js';
import { STORE_OPTIONS } from './store-flags.js';
import { checkFileStore, DEFAULT_STORE_URL, openStore, probeStore, redactStoreUrl } from './store-url.js';
import { escapeControls, isTerminal } from './terminal.js';
import { stderrLogger } from './verbose.js';

export { STORE_OPTIONS };

/** The store options given on the command line. */
export function storeOptions(values: Values, io: CliIo): MemoryStoreOptions {
  if (values.overwrite && values['no-overwrite']) {
    throw new CliUsageError('--overwrite and --no-overwrite contradict each other');
  }
  // Every change through the CLI names who made it (`memdir log` shows it): see actor.ts.
  const options: MemoryStoreOptions = { actor: cliActor(values, io.env) };
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
    if (value !== undefined) options[key] = positiveInteger(value, flag);
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
  const store = await openAnsweringStore(url, options, io);
  try {
    return await body(store);
  } finally {
    await store.close().catch(() => {});
  }
}

/** Opens the store `url` names and checks that it answers (a `memory:` store always does). */
export async function openAnsweringStore(
  url: string,
  options: MemoryStoreOptions,
  io: CliIo,
): Promise<MemoryStore> {
  const store = await openStore(url, options, { cwd: io.cwd });
  try {
    if (!/^memory:/i.test(url)) await probeStore(store, url);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

/**
 * Runs one tool input on `store` and prints what the model would read, or reports its failure as
 * every command does. `escaped`: on a terminal, what the model wrote is shown with its control
 * characters escaped (a view without --raw); piped, the bytes are exact.
 */
export async function executeAndPrint(
  store: MemoryStore,
  input: unknown,
  escaped: boolean,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  let result: string;
  try {
    result = await store.execute(input);
  } catch (error) {
    return reportToolError(error, args, io);
  }
  const shown = escaped && isTerminal(io.stdout) ? escapeControls(result) : result;
  await write(io.stdout, `${shown}\n`);
  return EXIT_OK;
}
