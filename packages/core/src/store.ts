import { COMMANDS, runCommand } from './commands/index.js';
import { positiveInteger, positiveNumber } from './driver/options.js';
import { Engine, type EngineOptions, type TracedCall } from './engine/context.js';
import { isMemoryToolError, MemoryToolError, unexpectedBackendFailure } from './errors.js';
import { historyMethods, type MemoryHistory } from './history/store-history.js';
import { commandName } from './input.js';
import { UNREADABLE_INPUT } from './messages.js';
import { validateNamespace } from './namespace.js';
import { registerStoreDriver } from './store-driver.js';
import { commandChannel, commandTrace, type PathShown, pathPolicy } from './telemetry.js';
import type {
  Actor,
  MemoryCallOptions,
  MemoryCommand,
  MemoryCommandName,
  MemoryDriver,
  MemoryStore,
  MemoryStoreOptions,
} from './types.js';

export { validateNamespace } from './namespace.js';

/** Default of {@link MemoryStoreOptions.maxFileBytes}: 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1_048_576;
/** Default of {@link MemoryStoreOptions.maxViewChars}. */
export const DEFAULT_MAX_VIEW_CHARS = 16_000;
/** Default of {@link MemoryStoreOptions.timeoutMs}: 5 s (SPEC section 7). */
export const DEFAULT_TIMEOUT_MS = 5_000;
/** Default of {@link HistoryOptions.keepVersions}. */
export const DEFAULT_KEEP_VERSIONS = 20;
/** Default of {@link HistoryOptions.keepDays}. */
export const DEFAULT_KEEP_DAYS = 30;

const CORE = 'core';
const ACTOR_TYPES = new Set(['session', 'user', 'api', 'service']);
const MAX_ID_CHARS = 256;

function invalid(name: string, detail: string): TypeError {
  return new TypeError(`Invalid @memdir/${CORE} option ${name}: ${detail}`);
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
    value.id.length > MAX_ID_CHARS
  ) {
    throw invalid(
      name,
      `expected { type: 'session' | 'user' | 'api' | 'service', id: a string of 1 to ${MAX_ID_CHARS} characters }`,
    );
  }
  return { type: value.type!, id: value.id };
}

/** Checks the options of one call (actor, toolUseId), which come from the application. */
function callOptions(call: MemoryCallOptions | undefined): MemoryCallOptions | undefined {
  if (call === undefined || (call.actor === undefined && call.toolUseId === undefined)) return undefined;
  const toolUseId = call.toolUseId;
  if (toolUseId !== undefined && (typeof toolUseId !== 'string' || toolUseId.length > MAX_ID_CHARS)) {
    throw invalid('toolUseId', `expected a string of at most ${MAX_ID_CHARS} characters`);
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
  capabilities: MemoryDriver['capabilities'],
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
function engineOptions(options: MemoryStoreOptions, driver: MemoryDriver): EngineOptions {
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

  return {
    overwrite,
    maxFileBytes,
    maxViewChars: positiveInteger(CORE, 'maxViewChars', options.maxViewChars, DEFAULT_MAX_VIEW_CHARS),
    timeoutMs: positiveInteger(CORE, 'timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS),
    quota,
    history,
    touch,
    actor: checkActor(options.actor),
  };
}

/**
 * Runs one command from untrusted input: checks it, then runs it. Whatever the input's shape, the
 * only thing that can come out is a result or a `MemoryToolError` (SPEC section 7): an input whose
 * fields cannot even be read (a throwing getter, say) is `INVALID_INPUT`, and anything else that
 * escapes is reported as an unexpected `BACKEND` failure.
 */
async function guarded(
  engine: Engine,
  name: MemoryCommandName | undefined,
  parse: () => MemoryCommand,
  call: MemoryCallOptions | undefined,
): Promise<string> {
  // The call's options come from the application, not the model: a bad one is a TypeError.
  const checked = callOptions(call);
  if (commandChannel.hasSubscribers) return traced(engine, name, parse, checked);
  return run(engine, parse, checked);
}

async function run(
  engine: Engine,
  parse: () => MemoryCommand,
  call: TracedCall | undefined,
): Promise<string> {
  let command: MemoryCommand;
  try {
    command = parse();
  } catch (error) {
    if (isMemoryToolError(error)) throw error;
    throw new MemoryToolError('INVALID_INPUT', UNREADABLE_INPUT, { cause: error });
  }
  try {
    return await runCommand(engine, command, call);
  } catch (error) {
    if (isMemoryToolError(error)) throw error;
    throw unexpectedBackendFailure(error);
  }
}

/** A command while someone listens on `memdir:command`: traced, with its outcome and counters. */
function traced(
  engine: Engine,
  name: MemoryCommandName | undefined,
  parse: () => MemoryCommand,
  call: MemoryCallOptions | undefined,
): Promise<string> {
  const trace = commandTrace(name ?? 'unknown', engine.identity, call?.toolUseId);
  const started = performance.now();
  // The traced promise settles with nothing: Node puts a traced promise's value or error on the
  // context, and a result or a message would carry paths and content to every subscriber.
  let outcome: { result: string } | { error: MemoryToolError } | undefined;
  const traced = commandChannel.tracePromise(async () => {
    try {
      const result = await run(
        engine,
        () => {
          const command = parse();
          trace.path = engine.showPath(commandPath(command));
          return command;
        },
        { ...call, trace },
      );
      trace.outcome = 'ok';
      outcome = { result };
    } catch (error) {
      const failure = isMemoryToolError(error) ? error : unexpectedBackendFailure(error);
      trace.outcome = failure.code;
      trace.reason = failure.reason;
      outcome = { error: failure };
    } finally {
      trace.durationMs = performance.now() - started;
    }
  }, trace);
  return traced.then(() => {
    if (outcome && 'result' in outcome) return outcome.result;
    throw outcome?.error;
  });
}

/** The path a command is about (the old path of a rename), for telemetry that opted in. */
function commandPath(command: MemoryCommand): string {
  return command.command === 'rename' ? command.old_path : command.path;
}

/** The command name of an `execute` input, when it can be read (for telemetry). */
function nameOf(input: unknown): MemoryCommandName | undefined {
  try {
    return commandName(input);
  } catch {
    return undefined;
  }
}

/**
 * A store made by `createMemoryStore`: a {@link MemoryStore} with its history (`history`, `version`,
 * `asOf`, `restore`, `redact`: see {@link MemoryHistory} and docs/history.md), that can also be
 * disposed of with `await using`.
 */
export interface MemdirStore extends MemoryStore, MemoryHistory {
  /** `close()`, for `await using store = createFsStore(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** @internal Whether the store closes the driver it was given (set by the kit's `createOwningStore`). */
const OWNS_DRIVER = Symbol('memdir.ownsDriver');

/**
 * The memdir engine: the six commands of the memory tool, with SPEC.md's exact strings, limits and
 * error order, on top of any {@link MemoryDriver}. Every adapter is this engine over its driver.
 *
 * Lifecycle: the store closes what it made and nothing it was given. With a `namespace` it works on
 * `driver.namespace(name)` and closes that on `close()`; `driver` itself stays open for the
 * application to share between stores and close when it is done.
 *
 * @throws TypeError for an invalid option (a namespace or limit out of range, a quota or history
 *   option the driver cannot honour).
 */
export function createMemoryStore(driver: MemoryDriver, options: MemoryStoreOptions = {}): MemdirStore {
  const owns = (options as { [OWNS_DRIVER]?: boolean })[OWNS_DRIVER] === true;
  const namespace = options.namespace === undefined ? undefined : validateNamespace(options.namespace);
  const files = namespace === undefined ? driver : driver.namespace(namespace);
  let engineSettings: EngineOptions;
  let showPath: PathShown;
  try {
    engineSettings = engineOptions(options, files);
    showPath = pathPolicy(options.telemetry);
  } catch (error) {
    if (files !== driver) void files.close();
    throw error;
  }
  const release = async () => {
    try {
      if (files !== driver) await files.close();
    } finally {
      if (owns) await driver.close();
    }
  };
  const engine = new Engine(files, engineSettings, release, showPath);
  const store: MemdirStore = {
    view: (input, call) => guarded(engine, 'view', () => COMMANDS.view.parse(input), call),
    create: (input, call) => guarded(engine, 'create', () => COMMANDS.create.parse(input), call),
    str_replace: (input, call) =>
      guarded(engine, 'str_replace', () => COMMANDS.str_replace.parse(input), call),
    insert: (input, call) => guarded(engine, 'insert', () => COMMANDS.insert.parse(input), call),
    delete: (input, call) => guarded(engine, 'delete', () => COMMANDS.delete.parse(input), call),
    rename: (input, call) => guarded(engine, 'rename', () => COMMANDS.rename.parse(input), call),
    execute: (input, call) =>
      guarded(
        engine,
        commandChannel.hasSubscribers ? nameOf(input) : undefined,
        () => COMMANDS[commandName(input)].parse(input),
        call,
      ),
    close: () => engine.close(),
    [Symbol.asyncDispose]: () => engine.close(),
    capabilities: engine.capabilities,
    ...historyMethods(engine, createMemoryStore),
  };
  registerStoreDriver(store, files);
  return store;
}

/**
 * For adapters (`createRedisStore`, `createFsStore`...): a store over a driver the adapter made
 * itself, whose `close()` closes that driver too. When the options are invalid the driver is
 * closed before the `TypeError` is thrown, so nothing is left open.
 */
export function createOwningStore(driver: MemoryDriver, options: MemoryStoreOptions = {}): MemdirStore {
  try {
    return createMemoryStore(driver, { ...options, [OWNS_DRIVER]: true } as MemoryStoreOptions);
  } catch (error) {
    void driver.close();
    throw error;
  }
}
