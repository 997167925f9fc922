// `memdir log`, `show`, `diff`, `restore`, `redact` and `view --at`: the store's history (core's
// `store.history()`, `version()`, `restore()`, `redact()`, `asOf()`) for the operator, on any store
// whose driver keeps one. The model's protocol has no history command; these are the CLI's own.
import {
  type MemdirStore,
  type MemoryStore,
  type MemoryVersion,
  type MemoryVersionWithContent,
  parseTimeWord,
} from '@memdir/core';
import { expectPositionals, type Options, parseOrHelp, positiveInteger, str, type Values } from './args.js';
import { wantsColour } from './colour.js';
import { canAsk, confirmed } from './confirm.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK } from './errors.js';
import { reportToolError } from './failure-report.js';
import { HISTORY_HELP } from './history-help.js';
import { type CliIo, write } from './io.js';
import { describeStore, executeAndPrint, STORE_OPTIONS, withStore } from './store-command.js';
import { table } from './table.js';
import { escapeControls, isTerminal } from './terminal.js';
import { unifiedDiff } from './unified-diff.js';
import { resolveVersionId } from './version-prefix.js';

/** Each history command's own flags, besides the store options. */
const HISTORY_OPTIONS: Record<string, Options> = {
  log: {
    actor: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string', short: 'n' },
    json: { type: 'boolean' },
  },
  show: { json: { type: 'boolean' }, raw: { type: 'boolean' } },
  diff: { raw: { type: 'boolean' } },
  restore: { to: { type: 'string' } },
  redact: { yes: { type: 'boolean', short: 'y' } },
};

/** How many positional arguments each command takes: at least, at most. */
const POSITIONALS: Record<string, readonly [number, number]> = {
  log: [0, 1],
  show: [1, 1],
  diff: [1, 2],
  restore: [1, 1],
  redact: [1, 1],
};

/** Versions read per page of `log` (the most a store gives at once). */
const PAGE = 1_000;

/** `memdir COMMAND ...` for one of the history commands. */
export async function runHistory(command: string, args: string[], io: CliIo): Promise<number> {
  const options = { ...STORE_OPTIONS, ...HISTORY_OPTIONS[command] };
  const parsed = await parseOrHelp(command, args, options, HISTORY_HELP[command], io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const [min, max] = POSITIONALS[command]!;
  expectPositionals(command, positionals, min, max);
  const since = timeFlag(command, values, 'since');
  const until = timeFlag(command, values, 'until');
  const limit = limitFlag(command, values);
  return withHistory(command, values, io, async (store) => {
    try {
      // A version id may be shortened to a prefix that names one version (version-prefix.ts).
      const ids =
        command === 'log'
          ? []
          : await Promise.all(positionals.map((id) => resolveVersionId(store, command, id)));
      switch (command) {
        case 'log':
          return await log(
            store,
            { path: positionals[0], actor: str(values, 'actor'), since, until, limit },
            values,
            io,
          );
        case 'show':
          return await show(store, ids[0]!, values, io);
        case 'diff':
          return await diff(store, ids[0]!, ids[1], values, io);
        case 'restore': {
          const restored = await store.restore(ids[0]!, { path: str(values, 'to') });
          await write(io.stdout, `Restored ${ids[0]} to ${shownPath(restored.path, io)} as ${restored.id}\n`);
          return EXIT_OK;
        }
        default: {
          const id = ids[0]!;
          // On a terminal a person confirms by typing the id; scripts (no terminal) and --yes go on.
          if (!values.yes && canAsk(io)) {
            const question = `This erases the content, path, size and hash of ${escapeControls(id)} for good (the version stays, redacted).\nType the version id to confirm: `;
            if (!(await confirmed(io, question, id))) {
              await write(io.stderr, 'memdir: redact: not confirmed; nothing was erased\n');
              return EXIT_FAILED;
            }
          }
          const redacted = await store.redact(id);
          await write(
            io.stdout,
            `Redacted ${redacted.id}: its content, path, size and hash are gone for good (at ${redacted.redactedAt})\n`,
          );
          return EXIT_OK;
        }
      }
    } catch (error) {
      if (error instanceof CliUsageError) throw error;
      return reportToolError(error, args, io);
    }
  });
}

/**
 * `memdir view PATH --at TIME|VERSION`: the view the model would have had then, from `store.asOf`.
 * @returns the text of the view, or the exit code of a failure already reported.
 */
export async function viewAt(
  values: Values,
  args: readonly string[],
  input: object,
  io: CliIo,
): Promise<number> {
  const at = str(values, 'at')!;
  const point = at.startsWith('memver_') ? at : timeValue('view', 'at', at);
  return withHistory('view', values, io, async (store) => {
    let past: MemoryStore;
    try {
      past = await store.asOf(
        typeof point === 'string' ? await resolveVersionId(store, 'view', point) : point,
      );
    } catch (error) {
      if (error instanceof CliUsageError) throw error;
      return reportToolError(error, args, io);
    }
    try {
      return await executeAndPrint(past, input, !values.raw, args, io);
    } finally {
      await past.close().catch(() => {});
    }
  });
}

/** Opens the store and checks that it keeps a history before `body` runs on it. */
function withHistory(
  command: string,
  values: Values,
  io: CliIo,
  body: (store: MemdirStore) => Promise<number>,
): Promise<number> {
  return withStore(values, io, 'existing', (store) => {
    const history = store as Partial<MemdirStore>;
    if (typeof history.history !== 'function' || store.capabilities?.history !== true) {
      throw new CliUsageError(
        `${command}: the store ${describeStore(values, io)} keeps no history (its driver does not declare capabilities.history)`,
        { hint: 'Stores whose adapter keeps a history have these commands (the memdir README, "History").' },
      );
    }
    return body(store as MemdirStore);
  });
}

/**
 * A time a person typed: ISO 8601, a time ago (`90s`, `30m`, `2h`, `7d`, `2w`), `now`, or `today`
 * and `yesterday` (the start of that day on this machine's clock).
 */
export function parseTime(value: string, now = Date.now()): number | undefined {
  const word = parseTimeWord(value, { now, day: 'local' });
  if (word !== undefined) return word;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

function timeValue(command: string, flag: string, value: string): number {
  const ms = parseTime(value);
  if (ms === undefined) {
    throw new CliUsageError(
      `${command}: --${flag} expects an ISO 8601 time (2026-12-01, 2026-12-01T09:30:00Z), a time ago (30m, 2h, 7d), today or yesterday${flag === 'at' ? ' or a version id (memver_...)' : ''}, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

function timeFlag(command: string, values: Values, flag: string): number | undefined {
  const value = str(values, flag);
  return value === undefined ? undefined : timeValue(command, flag, value);
}

function limitFlag(command: string, values: Values): number | undefined {
  const value = str(values, 'limit');
  return value === undefined ? undefined : positiveInteger(value, 'limit', `${command}: `);
}

/** A path as shown to a person: escaped on a terminal (a model chose it). */
function shownPath(path: string | null, io: CliIo): string {
  if (path === null) return '(redacted)';
  return isTerminal(io.stdout) ? escapeControls(path) : path;
}

function actorOf(version: MemoryVersion): string {
  return version.actor === null ? '-' : `${version.actor.type}:${version.actor.id}`;
}

interface LogQuery {
  path: string | undefined;
  actor: string | undefined;
  since: number | undefined;
  until: number | undefined;
  limit: number | undefined;
}

/** `memdir log`: versions newest first, as an aligned table or JSON lines. */
async function log(store: MemdirStore, query: LogQuery, values: Values, io: CliIo): Promise<number> {
  const versions: MemoryVersion[] = [];
  const wanted = query.limit ?? Number.POSITIVE_INFINITY;
  for (let cursor: string | undefined; versions.length < wanted; ) {
    const page = await store.history({
      path: query.path,
      actor: query.actor,
      since: query.since,
      until: query.until,
      limit: Math.min(PAGE, wanted - versions.length),
      cursor,
    });
    if (values.json) {
      // JSON lines as the pages come: a long history is never held whole.
      const lines = page.versions.map((version) => `${JSON.stringify(version)}\n`).join('');
      if (lines !== '') await write(io.stdout, lines);
    }
    versions.push(...page.versions);
    if (page.next === null) break;
    cursor = page.next;
  }
  if (values.json) return EXIT_OK;
  if (versions.length === 0) {
    await write(io.stderr, 'memdir: log: no versions\n');
    return EXIT_OK;
  }
  const rows = versions.map((version) => [
    version.id,
    version.createdAt,
    version.operation,
    actorOf(version),
    version.size === null ? '-' : String(version.size),
    version.redactedAt !== null
      ? '(redacted)'
      : version.previousPath !== null
        ? `${shownPath(version.previousPath, io)} -> ${shownPath(version.path, io)}`
        : shownPath(version.path, io),
  ]);
  await write(io.stdout, table(['VERSION', 'TIME', 'OPERATION', 'ACTOR', 'BYTES', 'PATH'], rows, [4]));
  return EXIT_OK;
}

/** `memdir show VERSION`: what the version records, then its content after a blank line. */
async function show(store: MemdirStore, id: string, values: Values, io: CliIo): Promise<number> {
  const version = await store.version(id);
  if (values.json) {
    await write(io.stdout, `${JSON.stringify(version)}\n`);
    return EXIT_OK;
  }
  const fields: Array<[string, string | null]> = [
    ['version', version.id],
    ['file', version.fileId],
    ['operation', version.operation],
    ['path', version.path === null ? null : shownPath(version.path, io)],
    ['previous path', version.previousPath === null ? null : shownPath(version.previousPath, io)],
    ['time', version.createdAt],
    ['actor', version.actor === null ? null : actorOf(version)],
    ['command', version.command],
    ['operation id', version.operationId],
    ['tool use id', version.toolUseId],
    ['restored from', version.restoredFrom],
    ['bytes', version.size === null ? null : String(version.size)],
    ['sha256', version.sha256],
    ['redacted at', version.redactedAt],
  ];
  const shown = fields.filter((field): field is [string, string] => field[1] !== null);
  // One width for every version, whichever fields it has: the output stays the same shape.
  const width = Math.max(...fields.map(([name]) => name.length));
  const head = shown.map(([name, value]) => `${`${name}:`.padEnd(width + 2)}${value}`).join('\n');
  await write(io.stdout, `${head}\n`);
  if (version.content !== null) await write(io.stdout, `\n${contentShown(version.content, values, io)}`);
  return EXIT_OK;
}

/** File content for stdout: the bytes as stored when piped or with --raw, escaped on a terminal. */
function contentShown(content: string, values: Values, io: CliIo): string {
  return !values.raw && isTerminal(io.stdout) ? escapeControls(content) : content;
}

/**
 * `memdir diff A [B]`: from A to B, or with one version, what that version's change did (from the
 * version of the same file before it, or from nothing).
 */
async function diff(
  store: MemdirStore,
  first: string,
  second: string | undefined,
  values: Values,
  io: CliIo,
): Promise<number> {
  let before: MemoryVersionWithContent | undefined;
  let after: MemoryVersionWithContent;
  if (second === undefined) {
    after = await store.version(first);
    before = await previousVersion(store, after);
  } else {
    before = await store.version(first);
    after = await store.version(second);
  }
  const label = (version: MemoryVersionWithContent | undefined) =>
    version === undefined ? '/dev/null' : `${shownPath(version.path, io)}\t${version.id}`;
  // Escaped before the colours go in, so that only memdir's own escape sequences reach a terminal.
  const text = unifiedDiff(
    contentShown(before?.content ?? '', values, io),
    contentShown(after.content ?? '', values, io),
    { old: label(before), new: label(after) },
    { colour: wantsColour(io.stdout, io.env) },
  );
  await write(io.stdout, text);
  return EXIT_OK;
}

/** The version of the same file just before `version`, with its content; undefined for the first. */
async function previousVersion(
  store: MemdirStore,
  version: MemoryVersion,
): Promise<MemoryVersionWithContent | undefined> {
  let seen = false;
  for (let cursor: string | undefined; ; ) {
    const page = await store.history({ fileId: version.fileId, limit: PAGE, cursor });
    for (const candidate of page.versions) {
      if (seen) return store.version(candidate.id);
      if (candidate.id === version.id) seen = true;
    }
    if (page.next === null) return undefined;
    cursor = page.next;
  }
}
