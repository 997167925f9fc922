// The store factory, the entrance most readers want: `createMemoryStore` puts the engine over a
// driver and gives each of the six commands its gate, and `MemdirStore` is what it returns (the
// tool's `MemoryStore`, its history, and the driver it works on). Where the rest is:
// - the tool's types (commands, `MemoryStore`): `tool.ts`;
// - the store options, their defaults and checks: `store-options.ts`;
// - what each call goes through: `command-gate.ts`, then `commands/` and `engine/`;
// - history (`history`, `asOf`, `restore`...): `history/`; the operator's admin: `admin/`;
// - the driver contract a backend implements: `driver/contract.ts`, with its kit in `driver/`.

import { guarded, nameOf } from './command-gate.js';
import { COMMANDS } from './commands/index.js';
import type { MemoryDriver } from './driver/contract.js';
import { Engine } from './engine/engine.js';
import { historyMethods, type MemoryHistory } from './history/store-history.js';
import { commandName } from './input.js';
import { validateNamespace } from './namespace.js';
import { type MemoryRecords, recordMethods } from './records/store-records.js';
import { checkStoreOptions, type EngineOptions, type MemoryStoreOptions } from './store-options.js';
import { commandChannel, type PathShown, pathPolicy } from './telemetry.js';
import type { MemoryStore } from './tool.js';

/**
 * A store made by `createMemoryStore`: a {@link MemoryStore} with its history (`history`, `version`,
 * `asOf`, `restore`, `redact`: see {@link MemoryHistory} and docs/history.md), that can also be
 * disposed of with `await using`, and that shows the driver it works on.
 */
export interface MemdirStore extends MemoryStore, MemoryHistory {
  /** `close()`, for `await using store = createFsStore(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
  /**
   * The driver this store works on, already inside the store's namespace: for tools that work
   * below the protocol (`copyStore`, the CLI's export and admin). Writing through it bypasses the
   * engine's checks, history records and quota. Not enumerable, so a copy of the store (`{ ...store }`)
   * does not carry it; {@link storeDriver} reads it from any store.
   */
  readonly driver: MemoryDriver;
  /**
   * Every file's identity: its record by path or id, listings in UTF-8 byte order, updates by id
   * under an expected SHA-256, removes under an expectation (docs/identity.md). For programs (the
   * memory stores API, sync, the inspector); the model's protocol has no such command.
   */
  readonly records: MemoryRecords;
}

/**
 * The driver a store made by `createMemoryStore` works on (its {@link MemdirStore.driver}, already
 * inside the store's namespace), or undefined for a store written by hand or wrapped (a
 * `readOnlyStore`). What `copyStore` and the CLI's export work on, whatever store they are given.
 */
export function storeDriver(store: MemoryStore): MemoryDriver | undefined {
  return (store as Partial<MemdirStore>).driver;
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
    engineSettings = checkStoreOptions(options, files);
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
  const store: Omit<MemdirStore, 'driver'> = {
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
    records: recordMethods(engine),
  };
  // Set apart from the methods, not enumerable: a store spread or serialised does not carry it.
  Object.defineProperty(store, 'driver', { value: files, enumerable: false });
  return store as MemdirStore;
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
