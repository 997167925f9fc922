// The options every store takes (SPEC section 3 and memdir's own), in one place: what each means,
// its default, and the checks `createMemoryStore` and `createMemoryAdmin` make before anything runs,
// against each other and against what the driver can do. They belong to the application, never to
// tool input; a bad one is a `TypeError` in the house style (`Invalid @memdir/core option ...`).
import type { DriverCapabilities } from './driver/capabilities.js';
import type { DriverQuota } from './driver/contract.js';
import { optionError, positiveInteger, positiveNumber } from './driver/options.js';
import type { Actor, MemoryCallOptions } from './tool.js';

/** A namespace's quota (SPEC section 3): judged in the same atomic step as each change. */
export interface QuotaOptions {
  /**
   * The most UTF-8 bytes all files of the namespace may hold together (hidden files included).
   * @default no limit
   */
  maxBytes?: number | undefined;
  /**
   * The most files the namespace may hold (hidden files included).
   * @default no limit
   */
  maxFiles?: number | undefined;
}

/** How long history keeps versions (see {@link MemoryStoreOptions.history}). */
export interface HistoryOptions {
  /**
   * A file's newest versions that are kept whatever their age.
   * @default 20
   */
  keepVersions?: number | undefined;
  /**
   * Versions younger than this many days are kept whatever their number. A version is removed once
   * it is older than `keepDays` and not among the newest `keepVersions` of its file; a live file's
   * current version is never removed.
   * @default 30
   */
  keepDays?: number | undefined;
}

/** Files nobody touched for a while are removed by a sweep (see {@link MemoryStoreOptions.expire}). */
export interface ExpireOptions {
  /** Files not changed for this many days are removed by the next sweep. A positive number. */
  afterDays: number;
  /**
   * Count reads too: a file viewed or edited lately is not expired. Each read of a file then also
   * writes its time (a small write per `view` of a file).
   * @default false
   */
  refreshOnRead?: boolean | undefined;
}

/**
 * Where memdir reports what happens inside a store (connections lost and regained, retries, lock
 * waits, setup, slow commands): the usual `{ debug, info, warn, error }` shape, as pino, winston
 * and `console` have it. Each method is called as `(message, fields)`; `fields` never holds a path
 * or content unless the application opted in (`telemetry.paths`).
 */
export interface MemdirLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

/** What telemetry (the `memdir:command` and `memdir:driver` channels, logs) may carry. */
export interface TelemetryOptions {
  /**
   * Paths in telemetry: `none` (never), `hash` (an HMAC-SHA-256 of the path with `key`, hex), or
   * `plain`. Content is never recorded.
   * @default 'none'
   */
  paths?: 'none' | 'hash' | 'plain' | undefined;
  /** The key of `paths: 'hash'` (required with it). */
  key?: string | Uint8Array | undefined;
}

/** Options every store takes (SPEC section 3). They belong to the application, never to tool input. */
export interface MemoryStoreOptions {
  /**
   * Isolates this store's files from every other namespace on the same backend (and from the
   * store without a namespace). 1 to 128 characters from `A-Z a-z 0-9 . _ - @ + =`, not starting
   * with `.`.
   * @default undefined (the backend's default space)
   */
  namespace?: string | undefined;
  /**
   * Whether `create` replaces an existing file. With `false` it fails with `ALREADY_EXISTS`.
   * @default true
   */
  overwrite?: boolean | undefined;
  /**
   * The largest file, in UTF-8 bytes, that `create`, `str_replace` and `insert` may write.
   * @default 1048576 (1 MiB)
   */
  maxFileBytes?: number | undefined;
  /**
   * The most characters of file content or listing one `view` returns before it truncates.
   * @default 16000
   */
  maxViewChars?: number | undefined;
  /**
   * The longest one command may take, in milliseconds: one deadline for all its driver calls, from
   * which every adapter derives its request timeouts, retries and lock waits. Past it the command
   * fails with `BACKEND` (reason `timeout`); for a change, the message says it may or may not have
   * been saved (SPEC section 7).
   * @default 5000
   */
  timeoutMs?: number | undefined;
  /**
   * The longest one command may take, in milliseconds, while it waits its turn behind other writers
   * that the store sees making progress (another process's turn with the namespace's lock ended, a
   * group of edits of the file committed). Each such sign of progress gives the command `timeoutMs`
   * again, up to this much after it started; a store that shows none (a dead, silent or stalled
   * server, a lock holder that never lets go) still fails the command `timeoutMs` after the last
   * one (SPEC section 7). Only drivers that report progress (`DriverCallOptions.progressed`) use
   * it. At least `timeoutMs`.
   * @default 60000, or `timeoutMs` when that is longer
   */
  queueTimeoutMs?: number | undefined;
  /**
   * The namespace's quota (SPEC section 3), enforced in the same atomic step as each change. Needs
   * a driver with `capabilities.quotas`.
   * @default no quota
   */
  quota?: QuotaOptions | undefined;
  /**
   * Version history: every change recorded with its author, in the same atomic step as the change,
   * and kept as {@link HistoryOptions} says. `false` records nothing. Used when the driver has
   * `capabilities.history`; with `{...}` given explicitly the driver must have it.
   * @default { keepVersions: 20, keepDays: 30 } (on, where the driver has history)
   */
  history?: false | HistoryOptions | undefined;
  /**
   * Expiry: files not changed (or read, with `refreshOnRead`) for `afterDays` are removed by the
   * next sweep (`createMemoryAdmin(...).sweep()`, `memdir sweep`). Until swept, an expired file
   * reads as usual.
   * @default undefined (nothing expires)
   */
  expire?: ExpireOptions | undefined;
  /**
   * Who makes this store's changes when a call does not say ({@link MemoryCallOptions.actor}).
   * @default undefined (versions record no actor)
   */
  actor?: Actor | undefined;
  /**
   * Where the store's driver reports what happens (see {@link MemdirLogger}).
   * @default `NODE_DEBUG=memdir` output through `util.debuglog`
   */
  logger?: MemdirLogger | undefined;
  /** What telemetry may carry (see {@link TelemetryOptions}). @default { paths: 'none' } */
  telemetry?: TelemetryOptions | undefined;
}

/** Default of {@link MemoryStoreOptions.maxFileBytes}: 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1_048_576;
/** Default of {@link MemoryStoreOptions.maxViewChars}. */
export const DEFAULT_MAX_VIEW_CHARS = 16_000;
/** Default of {@link MemoryStoreOptions.timeoutMs}: 5 s (SPEC section 7). */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** Default of {@link MemoryStoreOptions.queueTimeoutMs}: 60 s. */
export const DEFAULT_QUEUE_TIMEOUT_MS = 60_000;

/** What {@link MemoryStoreOptions.queueTimeoutMs} is when not given: 60 s, or `timeoutMs` when longer. */
export function defaultQueueTimeoutMs(timeoutMs: number): number {
  return Math.max(DEFAULT_QUEUE_TIMEOUT_MS, timeoutMs);
}
/** Default of {@link HistoryOptions.keepVersions}. */
export const DEFAULT_KEEP_VERSIONS = 20;
/** Default of {@link HistoryOptions.keepDays}. */
export const DEFAULT_KEEP_DAYS = 30;

/** The store options, checked, with their defaults: what the engine runs on. */
export interface EngineOptions {
  readonly overwrite: boolean;
  readonly maxFileBytes: number;
  readonly maxViewChars: number;
  readonly timeoutMs: number;
  /** At least `timeoutMs`. */
  readonly queueTimeoutMs: number;
  /** Undefined: no quota. */
  readonly quota: DriverQuota | undefined;
  /** Undefined: history off (or the driver has none). */
  readonly history: { readonly keepVersions: number; readonly keepDays: number } | undefined;
  /** Reads touch files (expiry with `refreshOnRead`). */
  readonly touch: boolean;
  readonly actor: Actor | undefined;
}

/** The options of every store (SPEC section 3 and memdir's own), as `splitStoreOptions` sorts them. */
export const STORE_OPTION_NAMES = [
  'namespace',
  'overwrite',
  'maxFileBytes',
  'maxViewChars',
  'timeoutMs',
  'queueTimeoutMs',
  'quota',
  'history',
  'expire',
  'actor',
  'logger',
  'telemetry',
] as const satisfies readonly (keyof MemoryStoreOptions)[];

/** Store options the driver needs as well as the engine. */
const SHARED_WITH_DRIVER = new Set<string>(['logger', 'telemetry']);

/**
 * Splits an adapter store's options (`createRedisStore({ url, namespace, ... })`) into the engine's
 * and the driver's, so an adapter never lists the store options again. `logger` and `telemetry`
 * go to both.
 */
export function splitStoreOptions<T extends MemoryStoreOptions>(
  options: T,
): { store: MemoryStoreOptions; driver: Omit<T, Exclude<keyof MemoryStoreOptions, 'logger' | 'telemetry'>> } {
  const store: Record<string, unknown> = {};
  const driver: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    const isStore = (STORE_OPTION_NAMES as readonly string[]).includes(name);
    if (isStore) store[name] = value;
    if (!isStore || SHARED_WITH_DRIVER.has(name)) driver[name] = value;
  }
  return { store: store as MemoryStoreOptions, driver: driver as never };
}

const CORE = 'core';
/** The actor types an application may name (see {@link Actor}); imported histories are held to them too. */
export const ACTOR_TYPES: ReadonlySet<string> = new Set(['session', 'user', 'api', 'service']);
/** The longest actor id or tool use id, in characters. */
export const MAX_ID_CHARS = 256;

/**
 * C0 and C1 controls, DEL, and the bidirectional controls that reorder what a reader sees: never in
 * an actor id or a tool use id, which an operator's terminal and the inspector show.
 */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function invalid(name: string, detail: string): TypeError {
  return optionError(CORE, name, detail);
}

/** Checks an actor given by the application (a store option or a call's). */
export function checkActor(actor: unknown, name = 'actor'): Actor | undefined {
  if (actor === undefined) return undefined;
  const value = actor as Partial<Actor> | null;
  if (
    typeof value !== 'object' ||
    value === null ||
    !ACTOR_TYPES.has(value.type as string) ||
    typeof value.id !== 'string' ||
    value.id.length === 0 ||
    value.id.length > MAX_ID_CHARS ||
    CONTROL_CHARACTER.test(value.id)
  ) {
    throw invalid(
      name,
      `expected { type: 'session' | 'user' | 'api' | 'service', id: a string of 1 to ${MAX_ID_CHARS} characters without control characters }`,
    );
  }
  return { type: value.type!, id: value.id };
}

/** Checks the options of one call (actor, toolUseId), which come from the application. */
export function checkCallOptions(call: MemoryCallOptions | undefined): MemoryCallOptions | undefined {
  if (call === undefined || (call.actor === undefined && call.toolUseId === undefined)) return undefined;
  const toolUseId = call.toolUseId;
  if (
    toolUseId !== undefined &&
    (typeof toolUseId !== 'string' || toolUseId.length > MAX_ID_CHARS || CONTROL_CHARACTER.test(toolUseId))
  ) {
    throw invalid(
      'toolUseId',
      `expected a string of at most ${MAX_ID_CHARS} characters without control characters`,
    );
  }
  return { actor: checkActor(call.actor), toolUseId };
}

/**
 * The `history` option (of a store, or of `createMemoryAdmin`), checked against the driver: the
 * retention to apply, or undefined when history is off or the driver has none.
 * @throws TypeError for a malformed option, or `{...}` given to a driver without history.
 */
export function historyOption(
  given: MemoryStoreOptions['history'],
  capabilities: DriverCapabilities,
): EngineOptions['history'] {
  if (given === false) return undefined;
  if (given !== undefined && (typeof given !== 'object' || given === null)) {
    throw invalid('history', 'expected false or { keepVersions?, keepDays? }');
  }
  if (given !== undefined && !capabilities.history) {
    throw invalid('history', "this store's driver keeps no history (capabilities.history is not set)");
  }
  if (!capabilities.history) return undefined;
  const keepDays = given?.keepDays ?? DEFAULT_KEEP_DAYS;
  if (typeof keepDays !== 'number' || !Number.isFinite(keepDays) || keepDays < 0) {
    throw invalid('history.keepDays', `expected a number of days, 0 or more, got ${String(keepDays)}`);
  }
  return {
    keepVersions: positiveInteger(CORE, 'history.keepVersions', given?.keepVersions, DEFAULT_KEEP_VERSIONS),
    keepDays,
  };
}

/** The store options, checked against each other and against what the driver can do. */
export function checkStoreOptions(
  options: MemoryStoreOptions,
  driver: { readonly capabilities: DriverCapabilities },
): EngineOptions {
  const capabilities = driver.capabilities;
  const overwrite = options.overwrite ?? true;
  if (typeof overwrite !== 'boolean') throw invalid('overwrite', 'expected a boolean');
  const maxFileBytes = positiveInteger(CORE, 'maxFileBytes', options.maxFileBytes, DEFAULT_MAX_FILE_BYTES);
  const backendLimit = capabilities.maxFileBytes;
  if (backendLimit !== undefined && maxFileBytes > backendLimit) {
    throw invalid(
      'maxFileBytes',
      `${maxFileBytes} is more than this backend holds in one file (${backendLimit} bytes)`,
    );
  }

  let quota: EngineOptions['quota'];
  if (options.quota !== undefined) {
    const { maxBytes, maxFiles } = options.quota;
    quota = {
      maxBytes: maxBytes === undefined ? undefined : positiveInteger(CORE, 'quota.maxBytes', maxBytes, 0),
      maxFiles: maxFiles === undefined ? undefined : positiveInteger(CORE, 'quota.maxFiles', maxFiles, 0),
    };
    if (quota.maxBytes === undefined && quota.maxFiles === undefined) quota = undefined;
    else if (!capabilities.quotas) {
      throw invalid('quota', "this store's driver cannot enforce quotas (capabilities.quotas is not set)");
    }
  }

  const history = historyOption(options.history, capabilities);

  let touch = false;
  if (options.expire !== undefined) {
    positiveNumber(CORE, 'expire.afterDays', options.expire.afterDays ?? Number.NaN, 0);
    const refresh = options.expire.refreshOnRead ?? false;
    if (typeof refresh !== 'boolean') throw invalid('expire.refreshOnRead', 'expected a boolean');
    if (refresh && !capabilities.admin) {
      throw invalid('expire', "this store's driver cannot record reads (capabilities.admin is not set)");
    }
    touch = refresh;
  }

  const timeoutMs = positiveInteger(CORE, 'timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const queueTimeoutMs = positiveInteger(
    CORE,
    'queueTimeoutMs',
    options.queueTimeoutMs,
    defaultQueueTimeoutMs(timeoutMs),
  );
  if (queueTimeoutMs < timeoutMs) {
    throw invalid(
      'queueTimeoutMs',
      `${queueTimeoutMs} is less than timeoutMs (${timeoutMs}): a command waiting behind other writers is given at least timeoutMs`,
    );
  }

  return {
    overwrite,
    maxFileBytes,
    maxViewChars: positiveInteger(CORE, 'maxViewChars', options.maxViewChars, DEFAULT_MAX_VIEW_CHARS),
    timeoutMs,
    queueTimeoutMs,
    quota,
    history,
    touch,
    actor: checkActor(options.actor),
  };
}
