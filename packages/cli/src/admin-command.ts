// `memdir namespaces`, `usage`, `drop` and `sweep`: the operator's handle on a whole backend (core's
// `createMemoryAdmin` over the driver of the store the URL names), for drivers with
// `capabilities.admin`. The store is opened without its namespace: these commands work across
// namespaces, and `--namespace` names the one a command is about.
import { createMemoryAdmin, type MemoryAdmin, type NamespaceUsage, storeDriver } from '@memdir/core';
import { ADMIN_HELP } from './admin-help.js';
import { expectPositionals, type Options, parseOrHelp, str, type Values } from './args.js';
import { canAsk, confirmed } from './confirm.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK } from './errors.js';
import { reportToolError } from './failure-report.js';
import { type CliIo, write } from './io.js';
import { redrawLine } from './progress.js';
import { describeStore, STORE_OPTIONS, storeOptions, withStore } from './store-command.js';
import { table } from './table.js';
import { isTerminal } from './terminal.js';

/** Each admin command's own flags, besides the store options. */
const ADMIN_OPTIONS: Record<string, Options> = {
  namespaces: { prefix: { type: 'string' }, json: { type: 'boolean' } },
  usage: { all: { type: 'boolean' }, json: { type: 'boolean' } },
  drop: { yes: { type: 'boolean', short: 'y' } },
  sweep: { 'expire-days': { type: 'string' }, json: { type: 'boolean' } },
};

/** Names read per page of `namespaces` and `usage --all` (the most a store gives at once). */
const PAGE = 1_000;
/** How often progress is written when stderr is not a terminal (a log, CI). */
const PLAIN_PROGRESS_MS = 2_000;

/** `memdir COMMAND ...` for one of the admin commands. */
export async function runAdmin(command: string, args: string[], io: CliIo): Promise<number> {
  const options = { ...STORE_OPTIONS, ...ADMIN_OPTIONS[command] };
  const parsed = await parseOrHelp(command, args, options, ADMIN_HELP[command], io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  expectPositionals(command, positionals, 0, 0);
  const namespace = str(values, 'namespace');
  if (command === 'drop' && namespace === undefined) {
    throw new CliUsageError('drop: name the namespace to erase with --namespace NAME', {
      hint: 'Run "memdir drop --help" for usage.',
    });
  }
  if (command === 'usage' && values.all && namespace !== undefined) {
    throw new CliUsageError('usage: --all and --namespace contradict each other');
  }
  if ((command === 'namespaces' || command === 'sweep') && namespace !== undefined) {
    throw new CliUsageError(`${command}: --namespace does not apply: ${command} covers every namespace`);
  }
  storeOptions(values, io); // the namespace's name and the other options, checked as every command does
  const expireDays = expireFlag(values);
  // The store of the whole backend: its driver is the admin's, whatever the namespace named.
  const { namespace: named, ...rest } = values;
  return withStore(rest, io, 'existing', async (store) => {
    const driver = storeDriver(store);
    if (driver === undefined || driver.capabilities.admin !== true) {
      throw new CliUsageError(
        `${command}: the store ${describeStore(values, io)} has no admin operations (its driver does not declare capabilities.admin)`,
        {
          hint: 'Admin operations come with stores whose adapter supports them: memory:, file:, redis://, postgres:// and s3:// (see the README).',
        },
      );
    }
    const admin = createMemoryAdmin(driver, {
      expire: expireDays === undefined ? undefined : { afterDays: expireDays },
    });
    try {
      switch (command) {
        case 'namespaces':
          return await namespaces(admin, str(values, 'prefix'), values, io);
        case 'usage':
          return await usage(admin, values.all === true, named as string | undefined, values, io);
        case 'drop':
          return await drop(admin, named as string, values, describeStore(values, io), io);
        default:
          return await sweep(admin, values, io);
      }
    } catch (error) {
      if (error instanceof CliUsageError) throw error;
      return reportToolError(error, args, io);
    } finally {
      await admin.close();
    }
  });
}

/** `1 file`, `2 files`. */
function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

function expireFlag(values: Values): number | undefined {
  const value = str(values, 'expire-days');
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0) {
    throw new CliUsageError(
      `sweep: --expire-days expects a positive number of days, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/** Every namespace name (with `prefix`), page after page. */
async function* allNamespaces(admin: MemoryAdmin, prefix: string | undefined): AsyncIterable<string> {
  for (let cursor: string | undefined; ; ) {
    const page = await admin.listNamespaces({ prefix, cursor, limit: PAGE });
    yield* page.namespaces;
    if (page.next === null) return;
    cursor = page.next;
  }
}

/** `memdir namespaces`: one name a line (names are letters, digits and `._-@+=`: safe to print). */
async function namespaces(
  admin: MemoryAdmin,
  prefix: string | undefined,
  values: Values,
  io: CliIo,
): Promise<number> {
  const names: string[] = [];
  for await (const name of allNamespaces(admin, prefix)) names.push(name);
  await write(
    io.stdout,
    values.json ? `${JSON.stringify(names)}\n` : names.map((name) => `${name}\n`).join(''),
  );
  return EXIT_OK;
}

/** `memdir usage`: one namespace (or the default space), or with `--all` every one, as a table. */
async function usage(
  admin: MemoryAdmin,
  all: boolean,
  namespace: string | undefined,
  values: Values,
  io: CliIo,
): Promise<number> {
  const rows: NamespaceUsage[] = [];
  if (all) {
    // The default space (stores without a namespace) first, when it holds anything.
    const space = await admin.usage();
    if (space.files > 0 || space.versions > 0) rows.push(space);
    for await (const name of allNamespaces(admin, undefined)) rows.push(await admin.usage(name));
  } else {
    rows.push(await admin.usage(namespace));
  }
  if (values.json) {
    await write(io.stdout, `${JSON.stringify(all ? rows : rows[0])}\n`);
    return EXIT_OK;
  }
  const cells = rows.map((row) => [
    row.namespace ?? '(default)',
    String(row.files),
    String(row.bytes),
    String(row.versions),
    row.lastChangeAt ?? '-',
  ]);
  await write(io.stdout, table(['NAMESPACE', 'FILES', 'BYTES', 'VERSIONS', 'LAST CHANGE'], cells, [1, 2, 3]));
  return EXIT_OK;
}

/** Writes progress lines on stderr: each one on a terminal (redrawn), else one every 2 s at most. */
function progressLine(io: CliIo): { update(line: string, force?: boolean): void; end(): void } {
  const tty = isTerminal(io.stderr);
  let last = 0;
  let drawn = false;
  return {
    update(line, force = false) {
      const now = Date.now();
      if (!tty && !force && now - last < PLAIN_PROGRESS_MS) return;
      last = now;
      if (tty) {
        redrawLine(io.stderr, line);
        drawn = true;
      } else io.stderr.write(`memdir: ${line}\n`);
    },
    end() {
      if (drawn) io.stderr.write('\n');
      drawn = false;
    },
  };
}

/** `memdir drop --namespace N`: confirmed on a terminal, `--yes` elsewhere; progress on stderr. */
async function drop(
  admin: MemoryAdmin,
  namespace: string,
  values: Values,
  storeShown: string,
  io: CliIo,
): Promise<number> {
  if (!values.yes) {
    if (!canAsk(io)) {
      throw new CliUsageError(
        `drop: erasing namespace ${namespace} cannot be undone: give --yes to confirm`,
        {
          hint: 'On a terminal, drop asks instead.',
        },
      );
    }
    const held = await admin.usage(namespace);
    const question = `This erases namespace ${namespace} of ${storeShown} for good: ${count(held.files, 'file')}, ${count(held.bytes, 'byte')}, ${count(held.versions, 'version')}.\nType the namespace's name to confirm: `;
    if (!(await confirmed(io, question, namespace))) {
      await write(io.stderr, 'memdir: drop: not confirmed; nothing was erased\n');
      return EXIT_FAILED;
    }
  }
  const progress = progressLine(io);
  const started = Date.now();
  const { removed } = await admin
    .dropNamespace(namespace, {
      onProgress: (state) =>
        progress.update(
          `drop ${namespace}: ${count(state.removed, 'item')} removed in ${count(state.batches, 'batch', 'batches')}`,
        ),
    })
    .finally(() => progress.end());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await write(
    io.stdout,
    `Dropped namespace ${namespace}: ${count(removed, 'item')} removed in ${seconds}s; nothing is left\n`,
  );
  return EXIT_OK;
}

/** `memdir sweep`: expiry (with --expire-days) and retention over every namespace. */
async function sweep(admin: MemoryAdmin, values: Values, io: CliIo): Promise<number> {
  const progress = progressLine(io);
  const report = await admin
    .sweep({
      onProgress: (state) =>
        progress.update(
          `sweep: ${count(state.namespaces, 'namespace')}, ${count(state.expired, 'file')} expired, ${count(state.pruned, 'version')} pruned`,
        ),
    })
    .finally(() => progress.end());
  await write(
    io.stdout,
    values.json
      ? `${JSON.stringify(report)}\n`
      : `Swept ${count(report.namespaces, 'namespace')}: ${count(report.expired, 'file')} expired, ${count(report.pruned, 'version')} pruned\n`,
  );
  return EXIT_OK;
}
