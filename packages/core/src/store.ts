import { COMMANDS, runCommand } from './commands/index.js';
import { Engine, type EngineOptions } from './engine/context.js';
import { isMemoryToolError, MemoryToolError, unexpectedBackendFailure } from './errors.js';
import { commandName } from './input.js';
import { UNREADABLE_INPUT } from './messages.js';
import { registerStoreDriver } from './store-driver.js';
import type { MemoryCommand, MemoryDriver, MemoryStore, MemoryStoreOptions } from './types.js';

/** Default of {@link MemoryStoreOptions.maxFileBytes}: 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1_048_576;
/** Default of {@link MemoryStoreOptions.maxViewChars}. */
export const DEFAULT_MAX_VIEW_CHARS = 16_000;
/** Default of {@link MemoryStoreOptions.timeoutMs}: 5 s (SPEC section 7). */
export const DEFAULT_TIMEOUT_MS = 5_000;

const NAMESPACE_PATTERN = /^[A-Za-z0-9_@+=-][A-Za-z0-9._@+=-]{0,127}$/;

/**
 * Checks a namespace name given by the application.
 * @throws TypeError when it is not 1-128 characters from `A-Z a-z 0-9 . _ - @ + =` or starts with `.`.
 */
export function validateNamespace(namespace: string): string {
  if (typeof namespace !== 'string' || !NAMESPACE_PATTERN.test(namespace)) {
    throw new TypeError(
      `Invalid memdir namespace ${JSON.stringify(namespace)}: use 1 to 128 characters from A-Z a-z 0-9 . _ - @ + = and do not start with "."`,
    );
  }
  return namespace;
}

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`Invalid memdir option ${name}: expected a positive integer, got ${String(value)}`);
  }
  return value;
}

/** The store options, checked against each other and against what the driver can hold. */
function engineOptions(options: MemoryStoreOptions, driver: MemoryDriver): EngineOptions {
  const overwrite = options.overwrite ?? true;
  if (typeof overwrite !== 'boolean')
    throw new TypeError('Invalid memdir option overwrite: expected a boolean');
  const maxFileBytes = positiveInteger(options.maxFileBytes, 'maxFileBytes', DEFAULT_MAX_FILE_BYTES);
  const backendLimit = driver.capabilities.maxFileBytes;
  if (backendLimit !== undefined && maxFileBytes > backendLimit) {
    throw new TypeError(
      `Invalid memdir option maxFileBytes: ${maxFileBytes} is more than this backend holds in one file (${backendLimit} bytes)`,
    );
  }
  return {
    overwrite,
    maxFileBytes,
    maxViewChars: positiveInteger(options.maxViewChars, 'maxViewChars', DEFAULT_MAX_VIEW_CHARS),
    timeoutMs: positiveInteger(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS),
  };
}

/**
 * Runs one command from untrusted input: checks it, then runs it. Whatever the input's shape, the
 * only thing that can come out is a result or a `MemoryToolError` (SPEC section 7): an input whose
 * fields cannot even be read (a throwing getter, say) is `INVALID_INPUT`, and anything else that
 * escapes is reported as an unexpected `BACKEND` failure.
 */
async function guarded(engine: Engine, parse: () => MemoryCommand): Promise<string> {
  let command: MemoryCommand;
  try {
    command = parse();
  } catch (error) {
    if (isMemoryToolError(error)) throw error;
    throw new MemoryToolError('INVALID_INPUT', UNREADABLE_INPUT, { cause: error });
  }
  try {
    return await runCommand(engine, command);
  } catch (error) {
    if (isMemoryToolError(error)) throw error;
    throw unexpectedBackendFailure(error);
  }
}

/**
 * The memdir engine: the six commands of the memory tool, with SPEC.md's exact strings, limits and
 * error order, on top of any {@link MemoryDriver}. Every adapter is this engine over its driver.
 *
 * `close()` closes the driver the store works on: give each store its own driver, or a namespaced
 * one (`driver.namespace(name)`, which closing leaves the parent open).
 *
 * @throws TypeError for an invalid option (a namespace or limit out of range).
 */
export function createMemoryStore(driver: MemoryDriver, options: MemoryStoreOptions = {}): MemoryStore {
  const namespace = options.namespace === undefined ? undefined : validateNamespace(options.namespace);
  const files = namespace === undefined ? driver : driver.namespace(namespace);
  const engine = new Engine(files, engineOptions(options, files));
  const store: MemoryStore = {
    view: (input) => guarded(engine, () => COMMANDS.view.parse(input)),
    create: (input) => guarded(engine, () => COMMANDS.create.parse(input)),
    str_replace: (input) => guarded(engine, () => COMMANDS.str_replace.parse(input)),
    insert: (input) => guarded(engine, () => COMMANDS.insert.parse(input)),
    delete: (input) => guarded(engine, () => COMMANDS.delete.parse(input)),
    rename: (input) => guarded(engine, () => COMMANDS.rename.parse(input)),
    execute: (input) => guarded(engine, () => COMMANDS[commandName(input)].parse(input)),
    close: () => engine.close(),
    capabilities: engine.capabilities,
  };
  registerStoreDriver(store, files);
  return store;
}
