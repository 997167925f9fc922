// `memdir copy`, `memdir export` and `memdir import`: a store's files moved between stores, or to
// and from a tar archive, over core's `copyStore`, with progress on stderr and exit codes that say
// whether everything was copied and verified.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Actor,
  type CopyReport,
  copyStore,
  DEFAULT_MAX_FILE_BYTES,
  type MemoryDriver,
  type MemoryStore,
  type MemoryStoreOptions,
  storeDriver,
  validateNamespace,
} from '@memdir/core';
import { cliActor } from './actor.js';
import { ArchiveError, type StagedArchive, stageArchive, writeArchive } from './archive.js';
import { type Options, parseOrHelp, positiveInteger, type Values } from './args.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { collectAsBytesMove, countingReads } from './memory.js';
import { humanBytes, ProgressReporter } from './progress.js';
import { openAnsweringStore, STORE_OPTIONS } from './store-command.js';
import {
  checkFileStore,
  DEFAULT_STORE_URL,
  fileUrlToRoot,
  redactStoreUrl,
  scrubSecrets,
} from './store-url.js';
import { schemeOf } from './store-url-shown.js';
import { isTerminal } from './terminal.js';
import { COPY_HELP, EXPORT_HELP, IMPORT_HELP } from './transfer-help.js';
import { historyRefusal, requireHistory } from './transfer-history.js';
import { verboseOptions } from './verbose.js';

/** The exit code of a copy stopped by Ctrl-C (128 + SIGINT): run it again to resume. */
export const EXIT_INTERRUPTED = 130;

/** The flags of `copy`, `export` and `import` alike, besides the stores. */
const TRANSFER_FLAGS = {
  namespace: STORE_OPTIONS.namespace,
  concurrency: { type: 'string' },
  'with-history': { type: 'boolean' },
  verbose: STORE_OPTIONS.verbose,
  help: STORE_OPTIONS.help,
} satisfies Options;

/** The flags of a copy into a store, `import` as `copy`, besides the stores. */
const COPY_FLAGS = {
  ...TRANSFER_FLAGS,
  actor: STORE_OPTIONS.actor,
  overwrite: STORE_OPTIONS.overwrite,
  'dry-run': { type: 'boolean' },
  'max-file-bytes': STORE_OPTIONS['max-file-bytes'],
} satisfies Options;

/** Each command's flags and help. */
const COMMANDS = {
  copy: { flags: { from: { type: 'string' }, to: { type: 'string' }, ...COPY_FLAGS }, help: COPY_HELP },
  export: { flags: { store: STORE_OPTIONS.store, ...TRANSFER_FLAGS }, help: EXPORT_HELP },
  import: { flags: { store: STORE_OPTIONS.store, ...COPY_FLAGS }, help: IMPORT_HELP },
} satisfies Record<string, { flags: Options; help: string }>;

/** The flags of `command` (which takes no positional argument); undefined once its help is printed. */
async function flagsOf(
  command: keyof typeof COMMANDS,
  args: string[],
  io: CliIo,
): Promise<Values | undefined> {
  const { flags, help } = COMMANDS[command];
  return (await parseOrHelp(command, args, flags, help, io, false))?.values;
}

function namespaceOption(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    return validateNamespace(value);
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

/** `--namespace A` (the same on both sides) or `A:B` (from A to B; either side may be empty). */
export function namespaceMapping(value: string | undefined): { from?: string; to?: string } {
  if (value === undefined) return {};
  const colon = value.indexOf(':');
  const from = colon === -1 ? value : value.slice(0, colon);
  const to = colon === -1 ? value : value.slice(colon + 1);
  const mapping: { from?: string; to?: string } = {};
  const fromNamespace = namespaceOption(from);
  const toNamespace = namespaceOption(to);
  if (fromNamespace !== undefined) mapping.from = fromNamespace;
  if (toNamespace !== undefined) mapping.to = toNamespace;
  return mapping;
}

/**
 * Files `copy`, `export` and `import` move at once unless `--concurrency` says otherwise. Into an
 * `s3://` store too: its new paths take the namespace's lease (see @memdir/s3), which one process's
 * creates share side by side, and its copies verify from one listing. Measured with 10,000 files of
 * 1 KiB from a folder into radosgw, runs taking turns on a loaded machine: 108-168 files/s with 8,
 * 148-175 with 16, 165-201 with 32 (peak RSS up to 190 MB), 169 with 64.
 */
export const DEFAULT_CONCURRENCY = 16;
/** How long reading an archive goes before its progress shows. */
const STAGING_QUIET_MS = 1_000;
/** The most `--concurrency` takes: beyond it a server store only queues the calls. */
const MAX_CONCURRENCY = 256;

/**
 * The default into a Redis or PostgreSQL store: their drivers send the writes that arrive side by
 * side together (one pipeline; one statement for a namespace's writes), so the more that arrive at
 * once, the fewer round trips and commits. Measured with 10,000 files of 1 KiB from a folder into
 * PostgreSQL (the whole command, its verification included): 7.6 s with 16, 6.2 s with 64, 5.1 s
 * with 128 and with 256; into Redis 3.7 s with 16, 2.8 s with 64. A folder target is slower with
 * more (its writers take turns on each folder's lock): 15 s with 16, 21 s with 64.
 */
export const DEFAULT_SERVER_TARGET_CONCURRENCY = 128;

/** The default `--concurrency` of a copy (or import) into `target`. */
export function concurrencyInto(target: string): number {
  switch (schemeOf(target)) {
    case 'redis':
    case 'rediss':
    case 'postgres':
    case 'postgresql':
      return DEFAULT_SERVER_TARGET_CONCURRENCY;
    default:
      return DEFAULT_CONCURRENCY;
  }
}

/** `--concurrency`, or `fallback` when it is not given. */
function concurrency(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > MAX_CONCURRENCY) {
    throw new CliUsageError(
      `--concurrency expects an integer from 1 to ${MAX_CONCURRENCY}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function maxFileBytes(value: string | undefined): number | undefined {
  return value === undefined ? undefined : positiveInteger(value, 'max-file-bytes');
}

/**
 * Opens a store and the driver beneath it (copy works below the protocol, on every file). A source
 * must exist: a `file:` folder that is missing is a usage error (a mistyped path), never an empty
 * store; a target is checked the same way but may be new. Either must answer before work starts.
 */
async function openDriver(
  url: string,
  options: MemoryStoreOptions,
  io: CliIo,
  role: 'source' | 'target',
): Promise<{ store: MemoryStore; driver: MemoryDriver }> {
  if (/^file:/i.test(url)) {
    const state = await checkFileStore(url, io.cwd, options.namespace);
    if (state.kind === 'missing' && role === 'source') {
      throw await missingSource(url, io.cwd, options.namespace, state.missing);
    }
  }
  const store = await openAnsweringStore(url, options, io);
  const driver = storeDriver(store);
  if (!driver) {
    await store.close().catch(() => {});
    throw new CliUsageError(
      `The store ${redactStoreUrl(url)} is not built on the memdir engine, so its files cannot be copied one by one`,
    );
  }
  return { store, driver };
}

/**
 * The usage error for a `file:` source with nothing where the copy looks: with a namespace, where
 * the store's files are instead (its default space, other namespaces), since a store written
 * without one is the common case and `--namespace seed` then finds nothing.
 */
async function missingSource(
  url: string,
  cwd: string,
  namespace: string | undefined,
  missing: string,
): Promise<CliUsageError> {
  const shown = redactStoreUrl(url);
  const root = fileUrlToRoot(url, cwd);
  const exists = await stat(root).then(
    () => true,
    () => false,
  );
  if (namespace === undefined || !exists) {
    return new CliUsageError(`The source store ${shown} does not exist: ${missing}`);
  }
  const space = await readdir(join(root, 'memories')).then(
    (names) => names.length > 0,
    () => false,
  );
  const others = await readdir(join(root, 'namespaces'), { withFileTypes: true }).then(
    (entries) => entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
    () => [] as string[],
  );
  const where = space
    ? `its files are in the default space: leave out --namespace, or give --namespace :${namespace} to copy them into namespace ${namespace} of the target`
    : others.length > 0
      ? `its namespaces are ${others.sort().slice(0, 10).join(', ')}${others.length > 10 ? ', ...' : ''}`
      : 'it holds no files';
  return new CliUsageError(`The source store ${shown} has no namespace ${namespace} (${missing}); ${where}`);
}

/** Aborted on Ctrl-C (or SIGTERM): the work stops after the files in flight. */
function interruption(io: CliIo): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const stop = () => {
    if (!controller.signal.aborted) {
      void write(io.stderr, '\nmemdir: stopping after the files in flight (Ctrl-C again to quit at once)\n');
      controller.abort();
    } else process.exit(EXIT_INTERRUPTED);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** The summary lines of a copy, and its exit code. */
async function summarize(
  report: CopyReport,
  io: CliIo,
  what: string,
  elapsed: string,
  dryRun: boolean,
  urls: readonly string[],
  withHistory: boolean,
  emptySource: string,
): Promise<number> {
  const lines: string[] = [];
  const done = dryRun ? 'would copy' : 'copied';
  lines.push(
    `memdir: ${what}: ${report.files.toLocaleString('en-US')} files (${humanBytes(report.bytes)}): ${report.copied.toLocaleString('en-US')} ${done}, ${report.identical.toLocaleString('en-US')} already identical, ${report.problems.length.toLocaleString('en-US')} not copied, in ${elapsed}`,
  );
  if (withHistory) {
    lines.push(
      dryRun
        ? 'memdir: history: not looked at in a dry run'
        : `memdir: history: ${countOf(report.versions, 'version')} copied, with their ids, times and actors`,
    );
  }
  // Every file that was not copied, each on its own line: the list is what the user acts on.
  for (const problem of report.problems) lines.push(`  not copied: ${problem.path}: ${problem.reason}`);
  for (const mismatch of report.mismatches)
    lines.push(`  verify failed: ${mismatch.path}: ${mismatch.reason}`);
  if (report.extraInTarget > 0) {
    lines.push(
      `  the target also holds ${report.extraInTarget} file(s) the source does not have (left alone)`,
    );
  }
  // Zero files copied reads like success with nothing done: say why there was nothing to do.
  if (report.files === 0 && !report.interrupted) lines.push(`memdir: nothing to copy: ${emptySource}`);
  let code = EXIT_OK;
  if (report.interrupted) {
    lines.push('memdir: interrupted: run the same command again to resume (identical files are skipped)');
    code = EXIT_INTERRUPTED;
  } else if (dryRun) {
    lines.push('memdir: dry run: nothing was written');
    code = report.problems.length === 0 ? EXIT_OK : EXIT_FAILED;
  } else if (report.verified) {
    lines.push(`memdir: verified: every file is in the target with the same size and ${checksums(report)}`);
  } else {
    lines.push('memdir: not everything was copied and verified (see above)');
    code = EXIT_FAILED;
  }
  // A reason comes from a backend and may repeat part of a URL: no secret of either store in it.
  await write(io.stderr, scrubSecrets(`${lines.join('\n')}\n`, urls));
  return code;
}

/** How the files were verified: read back (SHA-256), or from the target's listing (its MD5s). */
function checksums(report: CopyReport): string {
  const listed = report.verifiedFromListing;
  const read = report.files - listed;
  if (listed === 0) return 'SHA-256';
  if (read === 0) return "MD5 (from the target's listing)";
  return `MD5 (${countOf(listed, 'file')}, from the target's listing) or SHA-256 (${countOf(read, 'file')}, read back)`;
}

function countOf(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

/** `memdir copy`. */
export async function runCopy(args: string[], io: CliIo): Promise<number> {
  const values = await flagsOf('copy', args, io);
  if (values === undefined) return EXIT_OK;
  const from = values.from as string | undefined;
  const to = values.to as string | undefined;
  if (!from || !to)
    throw new CliUsageError('copy: --from and --to are required', {
      hint: 'Run "memdir copy --help" for usage.',
    });
  const mapping = namespaceMapping(values.namespace as string | undefined);
  const limit = maxFileBytes(values['max-file-bytes'] as string | undefined);
  const parallel = concurrency(values.concurrency as string | undefined, concurrencyInto(to));
  const logged = verboseOptions(values, io, [from, to]);
  const source = await openDriver(
    from,
    { ...logged, ...(mapping.from === undefined ? {} : { namespace: mapping.from }) },
    io,
    'source',
  );
  try {
    const target = await openDriver(
      to,
      {
        ...logged,
        ...(mapping.to === undefined ? {} : { namespace: mapping.to }),
        ...(limit === undefined ? {} : { maxFileBytes: limit }),
      },
      io,
      'target',
    );
    try {
      if (values['with-history'] === true) {
        requireHistory('copy', 'from', from, source.driver);
        requireHistory('copy', 'into', to, target.driver);
      }
      return await copyWithProgress(
        source.driver,
        target.driver,
        // The target's own limit, as its commands would hold it (the one given, else the default).
        {
          ...values,
          maxFileBytes: limit ?? DEFAULT_MAX_FILE_BYTES,
          concurrency: parallel,
          actor: cliActor(values, io.env),
          emptySource:
            mapping.from === undefined
              ? 'the source store holds no files'
              : `namespace ${mapping.from} of the source store holds no files`,
        },
        io,
        `copy ${redactStoreUrl(from)} to ${redactStoreUrl(to)}`,
        [from, to],
      );
    } finally {
      await target.store.close().catch(() => {});
    }
  } finally {
    await source.store.close().catch(() => {});
  }
}

/**
 * The copy of `memdir copy` and `memdir import`: progress on stderr, Ctrl-C stops after the files
 * in flight, and the summary's exit code.
 */
async function copyWithProgress(
  from: MemoryDriver,
  to: MemoryDriver,
  values: {
    'dry-run'?: unknown;
    overwrite?: unknown;
    'with-history'?: unknown;
    maxFileBytes: number;
    concurrency: number;
    /** What to say when the source has no file ("nothing to copy: ..."). */
    emptySource?: string;
    /** Who the target's versions are made by (`--actor`, else the user). */
    actor?: Actor;
  },
  io: CliIo,
  what: string,
  urls: readonly string[],
  progress = new ProgressReporter(io.stderr, { tty: isTerminal(io.stderr) }),
): Promise<number> {
  const dryRun = values['dry-run'] === true;
  const withHistory = values['with-history'] === true;
  const { signal, dispose } = interruption(io);
  // What the copy reads from either side (the files, then the target's copies to verify them).
  const moved = collectAsBytesMove();
  try {
    let report: CopyReport;
    try {
      report = await copyStore(countingReads(from, moved), countingReads(to, moved), {
        overwrite: values.overwrite === true,
        actor: values.actor,
        maxFileBytes: values.maxFileBytes,
        concurrency: values.concurrency,
        dryRun,
        withHistory,
        signal,
        onProgress: (state) =>
          state.phase === 'versions'
            ? // The history's size is not known ahead: its count alone.
              progress.update({
                ...state,
                phase: 'history',
                unit: 'versions',
                files: state.versions,
                totalFiles: Number.NaN,
              })
            : progress.update(state, state.files === state.totalFiles),
      });
    } catch (error) {
      const refusal = historyRefusal(error);
      if (refusal === undefined || !withHistory) throw error;
      progress.finish();
      await write(io.stderr, scrubSecrets(`memdir: ${what}: the history was not copied: ${refusal}\n`, urls));
      return EXIT_FAILED;
    }
    const emptySource = values.emptySource ?? 'the source holds no files';
    return summarize(report, io, what, progress.finish(), dryRun, urls, withHistory, emptySource);
  } finally {
    dispose();
  }
}

/** `memdir export`. */
export async function runExport(args: string[], io: CliIo): Promise<number> {
  const values = await flagsOf('export', args, io);
  if (values === undefined) return EXIT_OK;
  if (isTerminal(io.stdout)) {
    throw new CliUsageError('export writes a tar archive to stdout, which is a terminal', {
      hint: 'Redirect it to a file: memdir export --store URL > memory.tar',
    });
  }
  const url = (values.store as string | undefined) ?? io.env.MEMDIR_STORE ?? DEFAULT_STORE_URL;
  const namespace = namespaceOption(values.namespace as string | undefined);
  // Reads only: the default holds for every store.
  const parallel = concurrency(values.concurrency as string | undefined, DEFAULT_CONCURRENCY);
  const { store, driver } = await openDriver(
    url,
    { ...verboseOptions(values, io, [url]), ...(namespace === undefined ? {} : { namespace }) },
    io,
    'source',
  );
  try {
    const withHistory = values['with-history'] === true;
    if (withHistory) requireHistory('export', 'from', url, driver);
    const progress = new ProgressReporter(io.stderr, { tty: isTerminal(io.stderr) });
    const manifest = await writeArchive(countingReads(driver, collectAsBytesMove()), io.stdout, {
      namespace,
      concurrency: parallel,
      history: withHistory,
      onProgress: ({ phase, ...state }) =>
        phase === 'history'
          ? progress.update(
              { phase: 'history', unit: 'versions', ...state },
              state.files === state.totalFiles,
            )
          : progress.update({ phase: 'export', ...state }, state.files === state.totalFiles),
    });
    const versions =
      manifest.history === undefined
        ? ''
        : ` and ${countOf(manifest.history.versions, 'version')} of history`;
    await write(
      io.stderr,
      `memdir: exported ${manifest.files.length.toLocaleString('en-US')} files (${humanBytes(manifest.totalBytes)})${versions} from ${redactStoreUrl(url)} in ${progress.finish()}\n`,
    );
    return EXIT_OK;
  } finally {
    await store.close().catch(() => {});
  }
}

/** `memdir import`. */
export async function runImport(args: string[], io: CliIo): Promise<number> {
  const values = await flagsOf('import', args, io);
  if (values === undefined) return EXIT_OK;
  const url = (values.store as string | undefined) ?? io.env.MEMDIR_STORE ?? DEFAULT_STORE_URL;
  const namespace = namespaceOption(values.namespace as string | undefined);
  const limit = maxFileBytes(values['max-file-bytes'] as string | undefined);
  const parallel = concurrency(values.concurrency as string | undefined, concurrencyInto(url));
  // The archive is read and checked whole, staged on disk, before the store is even opened:
  // nothing is written for an archive that is refused.
  let staged: StagedArchive;
  const { signal, dispose } = interruption(io);
  // One reporter for the whole import: reading the archive, checking it, then the copy. Reading a
  // small archive takes no time: its progress shows once it has taken a second.
  const progress = new ProgressReporter(io.stderr, { tty: isTerminal(io.stderr) });
  const started = Date.now();
  try {
    staged = await stageArchive(io.stdin, {
      maxFileBytes: limit ?? DEFAULT_MAX_FILE_BYTES,
      signal,
      onProgress: (state) => {
        if (Date.now() - started >= STAGING_QUIET_MS)
          progress.update(state, state.files === state.totalFiles);
      },
    });
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error;
    if (signal.aborted) {
      await write(io.stderr, 'memdir: import stopped while reading the archive. Nothing was written.\n');
      return EXIT_INTERRUPTED;
    }
    await write(io.stderr, `memdir: import refused: ${error.message}. Nothing was written.\n`);
    return EXIT_FAILED;
  } finally {
    dispose();
  }
  try {
    const withHistory = values['with-history'] === true;
    if (withHistory && staged.versions === undefined) {
      throw new CliUsageError(
        'import --with-history: the archive holds no history (it was exported without --with-history)',
        { hint: 'Run it without --with-history to import the files alone.' },
      );
    }
    const { store, driver } = await openDriver(
      url,
      {
        ...verboseOptions(values, io, [url]),
        ...(namespace === undefined ? {} : { namespace }),
        ...(limit === undefined ? {} : { maxFileBytes: limit }),
      },
      io,
      'target',
    );
    try {
      if (withHistory) requireHistory('import', 'into', url, driver);
      else if (staged.versions !== undefined && staged.versions > 0) {
        await write(
          io.stderr,
          `memdir: the archive also holds ${countOf(staged.versions, 'version')} of history, left out (--with-history imports them)\n`,
        );
      }
      return await copyWithProgress(
        staged.driver,
        driver,
        {
          ...values,
          maxFileBytes: limit ?? DEFAULT_MAX_FILE_BYTES,
          concurrency: parallel,
          actor: cliActor(values, io.env),
        },
        io,
        `import into ${redactStoreUrl(url)}`,
        [url],
        progress,
      );
    } finally {
      await store.close().catch(() => {});
    }
  } finally {
    await staged.discard();
  }
}
