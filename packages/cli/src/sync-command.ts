// `memdir sync DIR`: DIR and the store kept in step both ways by @memdir/sync, one pass (--once) or
// until SIGINT or SIGTERM, which stop it after the pass under way, and a second one at once (every
// step of a pass is whole, so even a pass cut short loses nothing). The rules are the package's; this
// file holds the flags, the binding's store identity and what is printed.
import { realpath, stat } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { isMemoryToolError, type MemdirStore, type MemoryStore } from '@memdir/core';
import {
  formatSummary,
  SyncError,
  type SyncEvent,
  type SyncOptions,
  type SyncSummary,
  syncOnce,
  watchSync,
} from '@memdir/sync';
import { expectPositionals, type Options, parseOrHelp, str, type Values } from './args.js';
import { SYNC_FLAGS } from './command-flags.js';
import { namingSources } from './config.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { STORE_OPTIONS, storeOptions, storeUrl, withStore } from './store-command.js';
import { fileUrlToRoot, redactStoreUrl, scrubSecrets } from './store-url.js';
import { SYNC_HELP } from './sync-help.js';
import { escapeControls } from './terminal.js';

const SYNC_OPTIONS = {
  store: STORE_OPTIONS.store,
  namespace: STORE_OPTIONS.namespace,
  'max-file-bytes': STORE_OPTIONS['max-file-bytes'],
  verbose: STORE_OPTIONS.verbose,
  help: STORE_OPTIONS.help,
  ...SYNC_FLAGS,
  json: { type: 'boolean' },
} satisfies Options;

const DELETIONS = ['enabled', 'log-only', 'disabled'] as const;

/** Events said on stderr whatever the flags: what a person must hear about, once. */
const NOTICES = new Set<SyncEvent['kind']>(['skipped', 'conflict', 'error', 'delete-logged', 'emptied']);

/** `memdir sync DIR [options]`. */
export async function runSync(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('sync', args, SYNC_OPTIONS, SYNC_HELP, io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals, sources } = parsed;
  try {
    return await syncWith(values, positionals, io);
  } catch (error) {
    // A value that is wrong where the environment or the config file gave it says so.
    throw namingSources(error, sources);
  }
}

/** `memdir sync` with its flags parsed and its settings filled in. */
async function syncWith(values: Values, positionals: string[], io: CliIo): Promise<number> {
  expectPositionals('sync', positionals, 1, 1);
  const given = positionals[0]!;
  const dir = await folderOf(given, io);
  const url = storeUrl(values, io);
  const opening = storeOptions(values, io);
  const options: SyncOptions = {
    storeId: await storeIdentity(url, dir, io),
    namespace: opening.namespace ?? null,
    deleteDelay: seconds(values, 'delete-delay', 30, 0),
    deletions: deletionsOf(values),
    readOnly: values['read-only'] === true,
    maxFileBytes: opening.maxFileBytes,
  };
  const interval = seconds(values, 'interval', 15, 0.1);
  const out = new SyncOutput(values, io, [url]);
  options.onEvent = (event) => out.event(event);

  return withStore(values, io, 'write', async (opened) => {
    const store = withRecords(opened, url);
    const stop = stopSignal();
    try {
      if (values.once === true) {
        let summary: SyncSummary;
        try {
          summary = await syncOnce(dir, store, options);
        } catch (error) {
          if (!isMemoryToolError(error)) throw error;
          out.failure(error);
          return EXIT_FAILED;
        }
        out.pass(summary);
        return summary.events.some((event) => event.kind === 'error') ? EXIT_FAILED : EXIT_OK;
      }
      let fatal: unknown;
      const watch = watchSync(dir, store, {
        ...options,
        interval,
        onPass: (summary) => out.pass(summary),
        onError: (error) => {
          // A folder bound elsewhere stays so: stop rather than refuse it every interval. Another
          // process's long pass (BUSY) is only waited for again at the next one.
          if (error instanceof SyncError && error.code !== 'BUSY') {
            fatal = error;
            stop.fire();
          } else out.failure(error);
        },
      });
      await stop.fired;
      await watch.stop();
      if (fatal !== undefined) throw fatal;
      return EXIT_OK;
    } catch (error) {
      if (error instanceof SyncError)
        throw new CliUsageError(`sync: ${escapeControls(given)}: ${error.message}`);
      throw error;
    } finally {
      stop.dispose();
    }
  });
}

/** DIR resolved from the working directory (itself followed if a link: nothing beneath it ever is). */
async function folderOf(given: string, io: CliIo): Promise<string> {
  try {
    const dir = await realpath(resolve(io.cwd, given));
    if ((await stat(dir)).isDirectory()) return dir;
  } catch {
    // said below
  }
  throw new CliUsageError(`sync: ${escapeControls(given)} is not a folder`, {
    hint: 'Make it first (mkdir), or name an existing folder.',
  });
}

/**
 * Who the store is, as DIR's binding records it: the URL as the CLI shows it (no secret), a `file:`
 * store as its absolute folder. A `file:` store inside DIR, or DIR inside it, is refused: each pass
 * would copy the store into itself.
 */
async function storeIdentity(url: string, dir: string, io: CliIo): Promise<string> {
  if (!/^file:/i.test(url)) return redactStoreUrl(url);
  const root = fileUrlToRoot(url, io.cwd);
  const real = await realpath(root).catch(() => root);
  const [a, b] = [relative(dir, real), relative(real, dir)];
  const inside = (path: string) => path === '' || !(path.startsWith(`..${sep}`) || path === '..');
  if (inside(a) || inside(b)) {
    throw new CliUsageError('sync: the store folder and DIR overlap: keep the store outside DIR');
  }
  return `file:${real}`;
}

function withRecords(store: MemoryStore, url: string): MemdirStore {
  if ((store as Partial<MemdirStore>).records === undefined) {
    throw new CliUsageError(`sync: the store ${redactStoreUrl(url)} keeps no records (ids and hashes)`);
  }
  return store as MemdirStore;
}

/** `--flag SECONDS`: a number of seconds, at least `min`. */
function seconds(values: Values, flag: string, fallback: number, min: number): number {
  const value = str(values, flag);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || number < min) {
    throw new CliUsageError(
      `sync: --${flag} expects ${min === 0 ? 'a number of seconds' : `seconds, at least ${min}`}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function deletionsOf(values: Values): SyncOptions['deletions'] {
  const value = str(values, 'deletions') ?? 'enabled';
  const mode = DELETIONS.find((known) => known === value);
  if (mode === undefined) {
    throw new CliUsageError(
      `sync: --deletions expects ${DELETIONS.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return mode;
}

/**
 * SIGINT and SIGTERM, as a promise; `fire` resolves it from inside too. A second signal exits at
 * once (a pass waiting on a store that does not answer): every step of a pass is whole, so a pass
 * cut there loses nothing.
 */
function stopSignal(): { fired: Promise<void>; fire(): void; dispose(): void } {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143);
    fire();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    fired,
    fire: () => fire(),
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** What a run prints: a line per pass that changed something, notices, and with --verbose each file. */
class SyncOutput {
  constructor(
    private readonly values: Values,
    private readonly io: CliIo,
    private readonly urls: readonly string[],
  ) {}

  event(event: SyncEvent): void {
    if (this.values.json === true) return; // in the pass's object
    const line = `${event.kind} ${escapeControls(event.path)}${event.detail === undefined ? '' : `: ${escapeControls(event.detail)}`}`;
    if (NOTICES.has(event.kind)) void write(this.io.stderr, this.clean(`memdir: sync: ${line}\n`));
    else if (this.values.verbose === true) void write(this.io.stdout, `${line}\n`);
  }

  pass(summary: SyncSummary): void {
    const line = formatSummary(summary);
    if (line === null) return;
    if (this.values.json !== true) {
      void write(this.io.stdout, `${line}\n`);
      return;
    }
    const { sent, received, deleted, conflicts, skipped, durationMs, events } = summary;
    const json = JSON.stringify({ sent, received, deleted, conflicts, skipped, durationMs, events });
    void write(this.io.stdout, `${this.clean(json)}\n`);
  }

  failure(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    void write(this.io.stderr, this.clean(`memdir: sync: the pass failed: ${escapeControls(message)}\n`));
  }

  private clean(text: string): string {
    return scrubSecrets(text, this.urls);
  }
}
