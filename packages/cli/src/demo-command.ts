// `memdir demo`: the scripted session of demo-session.ts played against a real store, offline and
// without an API key, printed as demo-format.ts draws it. By default the store is a new temporary
// folder (a file: store), removed at the end unless --keep. A store given by --store, $MEMDIR_STORE
// or the config file is used as every store command uses it, but only when it holds no file (the
// demo writes and deletes files); --force plays it in a store that holds files, and even then never
// where a file the session writes already is: the demo replaces or deletes no file it did not write.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMemoryToolError, type MemdirStore, type MemoryStore } from '@memdir/core';
import { expectPositionals, type Options, parseOrHelp, str, type Values } from './args.js';
import { describeSource, namingSources } from './config.js';
import { type DemoFile, formatDemo } from './demo-format.js';
import { DEMO_HELP } from './demo-help.js';
import { DEMO_SESSION, demoWrittenPaths, playDemoSession } from './demo-session.js';
import { CliUsageError, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { openAnsweringStore, STORE_OPTIONS, storeOptions } from './store-command.js';
import { redactStoreUrl } from './store-url.js';
import { escapeControls, isTerminal } from './terminal.js';

const DEMO_OPTIONS = {
  store: STORE_OPTIONS.store,
  namespace: STORE_OPTIONS.namespace,
  keep: { type: 'boolean' },
  force: { type: 'boolean' },
  help: STORE_OPTIONS.help,
} satisfies Options;

function usage(message: string, hint = 'Run "memdir demo --help" for usage.'): CliUsageError {
  return new CliUsageError(`demo: ${message}`, { hint });
}

/** `memdir demo [--store URL [--namespace NAME] [--force]] [--keep]`. */
export async function runDemo(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('demo', args, DEMO_OPTIONS, DEMO_HELP, io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals, sources } = parsed;
  expectPositionals('demo', positionals, 0, 0);
  try {
    const given = str(values, 'store');
    if (given === undefined) return await playInTemporaryFolder(values, io);
    if (values.keep === true)
      throw usage('--keep goes with the temporary folder: a store that was given keeps its files anyway');
    const setting = [...sources.keys()].find((candidate) => candidate.name === 'store');
    const source = setting === undefined ? undefined : sources.get(setting);
    const from =
      setting === undefined || source === undefined || source.from === 'flag'
        ? ''
        : ` (from ${describeSource(setting, source)})`;
    return await playInGivenStore(given, from, values, io);
  } catch (error) {
    throw namingSources(error, sources);
  }
}

async function playInTemporaryFolder(values: Values, io: CliIo): Promise<number> {
  const folder = await mkdtemp(join(tmpdir(), 'memdir-demo-'));
  const url = pathToFileURL(folder).href;
  try {
    const store = await openAnsweringStore(url, storeOptions(values, io), io);
    const footer =
      values.keep === true
        ? [
            `The files stay in ${join(folder, 'memories')} (--keep): open them with any tool, e.g.`,
            `  cat ${join(folder, 'memories', 'archive', 'checkout-retry.md')}`,
            `  memdir view --store ${url}`,
          ]
        : [`The temporary folder ${folder} is removed now (--keep keeps it).`];
    const label = `${url} (a temporary folder, ${values.keep === true ? 'kept' : 'removed at the end'})`;
    return await playAndPrint(store, label, footer, io);
  } finally {
    if (values.keep !== true) await rm(folder, { recursive: true, force: true });
  }
}

async function playInGivenStore(url: string, from: string, values: Values, io: CliIo): Promise<number> {
  const options = storeOptions(values, io);
  const store = await openAnsweringStore(url, options, io);
  const where = `${redactStoreUrl(url)}${options.namespace === undefined ? '' : `, namespace ${options.namespace}`}`;
  try {
    if (!(await isEmpty(store))) {
      if (values.force !== true) {
        throw usage(
          `the store ${where}${from} already holds files, and the demo writes and deletes files`,
          [
            'Play it in a new temporary folder (no --store), in an empty namespace (--namespace demo),',
            'or give --force to play it there anyway (it never replaces or deletes a file it did not write).',
          ].join(' '),
        );
      }
      const taken = await existingPaths(store, demoWrittenPaths());
      if (taken.length > 0) {
        throw usage(
          `the store ${where}${from} already has ${taken.map((path) => escapeControls(path)).join(', ')}, which the demo would replace`,
          'Play it in a new temporary folder (no --store) or in an empty namespace (--namespace demo).',
        );
      }
    }
    const footer = [`The files stay in ${where}: memdir view --store URL shows them.`];
    return await playAndPrint(store, `${where}${from}`, footer, io);
  } finally {
    await store.close().catch(() => {});
  }
}

/** Plays the session on `store`, then prints it with the files left. */
async function playAndPrint(
  store: MemoryStore,
  label: string,
  footer: readonly string[],
  io: CliIo,
): Promise<number> {
  const entries = await playDemoSession(store, DEMO_SESSION);
  const files = await filesOf(store);
  const terminal = isTerminal(io.stdout);
  const look = { colour: terminal && !io.env.NO_COLOR, escape: terminal };
  await write(io.stdout, formatDemo(entries, { store: label, files, footer }, look));
  return EXIT_OK;
}

function recordsOf(store: MemoryStore): MemdirStore['records'] | undefined {
  return (store as Partial<MemdirStore>).records;
}

/** True when the store (its namespace) holds no file, hidden ones included. */
async function isEmpty(store: MemoryStore): Promise<boolean> {
  const records = recordsOf(store);
  if (records !== undefined) return (await records.list({ limit: 1 })).items.length === 0;
  // A store written by hand has only the protocol: a listing with nothing below /memories.
  const listing = await store.execute({ command: 'view', path: '/memories' });
  return listing.split('\n').length <= 2;
}

/** Those of `paths` where something already is. */
async function existingPaths(store: MemoryStore, paths: readonly string[]): Promise<string[]> {
  const taken: string[] = [];
  for (const path of paths) {
    try {
      await store.execute({ command: 'view', path });
      taken.push(path);
    } catch (error) {
      if (!isMemoryToolError(error) || error.code !== 'NOT_FOUND') throw error;
    }
  }
  return taken;
}

/** Every file of the store with its content, in path order; undefined for a store that cannot list. */
async function filesOf(store: MemoryStore): Promise<DemoFile[] | undefined> {
  const records = recordsOf(store);
  if (records === undefined) return undefined;
  const files: DemoFile[] = [];
  let cursor: string | undefined;
  do {
    const page = await records.list({ limit: 1000, cursor });
    for (const item of page.items) {
      if (item.kind !== 'file') continue;
      const record = await records.get(item.path, { content: true });
      if (record?.content !== undefined) files.push({ path: record.path, content: record.content });
    }
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return files;
}
