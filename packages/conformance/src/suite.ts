// The machinery of the conformance suite: what it learns of a target before it registers its tests
// (capabilities, optional driver methods), per-test backends, store bookkeeping, the target's own
// checks and cleanup, and a "full tree" snapshot to prove that a failed command wrote nothing. Only
// this package imports vitest; the engine never does.

import type {
  DriverCapabilities,
  DriverPath,
  MemoryDriver,
  MemoryStore,
  MemoryStoreOptions,
} from '@memdir/core';
import { createMemoryStore, MAX_PATH_BYTES } from '@memdir/core';
import { wrapDriver } from '@memdir/core/driver';
import { afterEach, it } from 'vitest';
import { walk } from './assertions.js';
import type { ConformanceTarget } from './target.js';

const ROOT = '' as DriverPath;

/** The optional methods a driver has, which decide which driver checks apply. */
export interface DriverMethods {
  readonly describe: boolean;
  readonly update: boolean;
  readonly stat: boolean;
  readonly edit: boolean;
  readonly importVersions: boolean;
  /** `readRecord`, `locate`, `listRecords` (capabilities.records). */
  readonly records: boolean;
}

/** The methods `capabilities.history` promises. */
export const HISTORY_METHODS = [
  'listVersions',
  'readVersion',
  'restoreVersion',
  'redactVersion',
  'treeAt',
] as const;
/** The methods `capabilities.admin` promises. */
export const ADMIN_METHODS = ['listNamespaces', 'usage', 'dropNamespace', 'sweep'] as const;

/** What the suite learns of a target before it registers the tests of one run. */
export interface Probe {
  /** What the run's stores report (the driver's own), else the target's fallback, else the default. */
  readonly capabilities: DriverCapabilities;
  /** Where `capabilities` came from, for messages. */
  readonly source: 'driver' | 'store' | 'target' | 'default';
  /** The optional methods of the run's driver; undefined when the target makes stores. */
  readonly driverMethods: DriverMethods | undefined;
}

/** What one run of the suite (with or without the default namespace) gives each test file. */
export interface Suite {
  /** The namespace every store gets unless a test sets its own (`undefined` in the first run). */
  readonly namespace: string | undefined;
  /** The capabilities of this run's stores (see {@link Probe.capabilities}). */
  readonly capabilities: DriverCapabilities;
  /** From the capabilities: false relaxes only the directory rename/delete atomicity tests. */
  readonly atomicRename: boolean;
  /** The longest path the run's stores take, in UTF-8 bytes: the driver's limit, at most 1024. */
  readonly maxPathBytes: number;
  /** The optional methods of the run's driver; undefined when the target makes stores itself. */
  readonly driverMethods: DriverMethods | undefined;
  /** fast-check runs of the differential test. */
  readonly propertyRuns: number;
  /** Edits of the history group's retention test ({@link ConformanceTarget.historyEdits}). */
  readonly historyEdits: number;
  /**
   * Registers one test, with the target's timeout (or `minimumTimeout`, when that is longer: a
   * heavy test on a real server), unless the filter leaves it out.
   */
  test(name: string, body: () => Promise<void>, minimumTimeout?: number): void;
  /**
   * Opens a store on the backend labelled `backend` (local to the current test; every label maps to
   * a fresh, empty backend). `options.namespace` defaults to the run's namespace unless the key is
   * present in `options` (even as `undefined`, which means "no namespace").
   */
  open(options?: MemoryStoreOptions, backend?: string): Promise<MemoryStore>;
  /** A label for yet another fresh backend of the current test. */
  newBackend(): string;
  /** The backend's driver when the target gives drivers (`createDriver`), else undefined. */
  driver(backend?: string): Promise<MemoryDriver | undefined>;
  /**
   * The driver this run's stores work on: the backend's driver, under the run's namespace in the
   * second run. Only for targets that give drivers.
   */
  files(backend?: string): Promise<MemoryDriver>;
  /**
   * Everything observable on a backend: the full tree of the run's namespace (walked through
   * listings from `/memories` and from each of `hiddenRoots`, every file's content), the trees of a
   * store without a namespace and of an unrelated namespace, and, with a driver, every file the
   * driver holds (hidden ones included). Two snapshots are equal when nothing was written.
   */
  snapshot(hiddenRoots?: readonly string[], backend?: string): Promise<unknown>;
}

/** Which tests a run registers: the name filter of {@link ConformanceFilter.tests}. */
export type NameFilter = (name: string) => boolean;

/** The label of the backend most tests use. */
export const MAIN = 'main';

/** A namespace no test uses: its tree must never change. */
const OUTSIDER_NAMESPACE = 'conformance-outsider';

/** The default capabilities of a store that reports none (and whose target gives none). */
const DEFAULT_CAPABILITIES: DriverCapabilities = { atomicRename: true };

/**
 * The suite's own paths need this many bytes: a driver with a lower `maxPathBytes` cannot hold
 * them (S3 keys leave about 1000 bytes after a prefix).
 */
export const MIN_SUITE_PATH_BYTES = 300;

/**
 * `driver` without the optional methods `names`, on its namespaces too: the suite's second pass over
 * the edit groups runs without `edit`, so the engine's read and compare-and-swap path is checked on
 * a driver that has both; the identity groups run again without `readRecord` and the rest
 * (IDENTITY_METHODS), and with the capabilities that promise them turned off, so the engine's
 * fallbacks are checked on a driver that has the primitives.
 */
function hiding(driver: MemoryDriver, names: readonly (keyof MemoryDriver)[]): MemoryDriver {
  if (names.length === 0) return driver;
  const overrides: Partial<Record<keyof MemoryDriver, unknown>> = {
    namespace: (name: string) => hiding(driver.namespace(name), names),
  };
  for (const name of names) overrides[name] = undefined;
  // Without its identity primitives a driver declares none of them: the engine's fallbacks run.
  if (names.includes('readRecord')) {
    overrides.capabilities = {
      ...driver.capabilities,
      records: false,
      updateById: false,
      removeExpect: false,
    };
  }
  return wrapDriver(driver, overrides as Partial<MemoryDriver>);
}

/** Letters for backend names: safe as folder names, key prefixes and unquoted SQL identifiers. */
function randomId(): string {
  return Math.random().toString(36).slice(2, 10).padEnd(8, '0');
}

/**
 * A fresh operation id for a driver call, as the engine makes them: 32 characters from
 * `0-9 a-f` (the contract allows `A-Z a-z 0-9 _ -`, 22 or more).
 */
export function operationId(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '');
}

/**
 * What is wrong with `capabilities`, or undefined when they are well-formed: `atomicRename` a
 * boolean; `maxPathBytes` absent or an integer from 1 to 1024; `maxFileBytes` absent or a positive
 * integer; `replaySafe`, `quotas`, `history` and `admin` absent or booleans.
 */
export function capabilityProblem(capabilities: unknown): string | undefined {
  if (typeof capabilities !== 'object' || capabilities === null) {
    return `capabilities must be an object, got ${capabilities === null ? 'null' : typeof capabilities}`;
  }
  const { atomicRename, maxPathBytes, maxFileBytes, replaySafe, quotas, history, admin, listsContentMd5 } =
    capabilities as Record<string, unknown>;
  if (typeof atomicRename !== 'boolean') {
    return `capabilities.atomicRename must be a boolean, got ${JSON.stringify(atomicRename) ?? 'undefined'}`;
  }
  if (
    maxPathBytes !== undefined &&
    !(
      Number.isSafeInteger(maxPathBytes) &&
      (maxPathBytes as number) >= 1 &&
      (maxPathBytes as number) <= MAX_PATH_BYTES
    )
  ) {
    return `capabilities.maxPathBytes must be an integer from 1 to ${MAX_PATH_BYTES} when given, got ${JSON.stringify(maxPathBytes)}`;
  }
  if (maxFileBytes !== undefined && !(Number.isSafeInteger(maxFileBytes) && (maxFileBytes as number) >= 1)) {
    return `capabilities.maxFileBytes must be a positive integer when given, got ${JSON.stringify(maxFileBytes)}`;
  }
  for (const [name, value] of Object.entries({ replaySafe, quotas, history, admin, listsContentMd5 })) {
    if (value !== undefined && typeof value !== 'boolean') {
      return `capabilities.${name} must be a boolean when given, got ${JSON.stringify(value)}`;
    }
  }
  return undefined;
}

/**
 * What is missing from a driver that declares `history` or `admin`: the methods those promise.
 * Undefined when nothing is.
 */
export function methodProblem(driver: MemoryDriver): string | undefined {
  const promised = [
    ...(driver.capabilities.history === true
      ? HISTORY_METHODS.map((name) => ['history', name] as const)
      : []),
    ...(driver.capabilities.admin === true ? ADMIN_METHODS.map((name) => ['admin', name] as const) : []),
  ];
  for (const [capability, name] of promised) {
    if (typeof (driver as unknown as Record<string, unknown>)[name] !== 'function') {
      return `capabilities.${capability} is set, but the driver has no ${name} method`;
    }
  }
  return undefined;
}

/** The capability fields the suite adapts to, for comparing two reports. */
function capabilityKey(capabilities: DriverCapabilities): string {
  return JSON.stringify({
    atomicRename: capabilities.atomicRename,
    maxPathBytes: capabilities.maxPathBytes ?? MAX_PATH_BYTES,
    maxFileBytes: capabilities.maxFileBytes ?? null,
    replaySafe: capabilities.replaySafe ?? false,
    quotas: capabilities.quotas ?? false,
    history: capabilities.history ?? false,
    admin: capabilities.admin ?? false,
  });
}

/** Resolves `work`, or rejects with `message` once `ms` have passed. */
async function within<T>(ms: number, message: string, work: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens one store (or driver) of `target` on a backend of its own, under `namespace`, to learn
 * what the run's stores report, then closes it and destroys the backend. Called while vitest
 * collects the tests, so a target whose backend is unreachable fails the file at once.
 * @throws Error when the target cannot be opened in time, or reports malformed capabilities.
 */
export async function probeTarget(target: ConformanceTarget, namespace: string | undefined): Promise<Probe> {
  const backend = `mdc_${randomId()}_probe`;
  const timeout = target.timeout ?? 30_000;
  const where = namespace === undefined ? '' : ` under namespace '${namespace}'`;
  let probe: Probe;
  try {
    probe = await within(
      timeout,
      `memdir conformance: ${target.name}: opening a ${target.create ? 'store' : 'driver'}${where} to read its capabilities took more than ${timeout} ms`,
      async () => {
        if (target.createDriver) {
          const driver = await target.createDriver(backend);
          try {
            const files = namespace === undefined ? driver : driver.namespace(namespace);
            const methods: DriverMethods = {
              describe: typeof files.describe === 'function',
              update: typeof files.update === 'function',
              stat: typeof files.stat === 'function',
              edit: typeof files.edit === 'function',
              importVersions: typeof files.importVersions === 'function',
              records: typeof files.readRecord === 'function',
            };
            const missing = methodProblem(files);
            if (missing !== undefined) throw new TypeError(`memdir conformance: ${target.name}: ${missing}`);
            return { capabilities: files.capabilities, source: 'driver', driverMethods: methods } as Probe;
          } finally {
            await driver.close();
          }
        }
        const store = await target.create!(
          namespace === undefined ? { ...target.storeOptions } : { ...target.storeOptions, namespace },
          backend,
        );
        try {
          if (store.capabilities !== undefined)
            return { capabilities: store.capabilities, source: 'store', driverMethods: undefined } as Probe;
          if (target.capabilities !== undefined)
            return { capabilities: target.capabilities, source: 'target', driverMethods: undefined } as Probe;
          return { capabilities: DEFAULT_CAPABILITIES, source: 'default', driverMethods: undefined } as Probe;
        } finally {
          await store.close();
        }
      },
    );
  } finally {
    await target.destroy?.(backend);
  }
  const problem = capabilityProblem(probe.capabilities);
  if (problem !== undefined) {
    throw new TypeError(`memdir conformance: ${target.name}: the ${probe.source}'s ${problem}`);
  }
  const limit = probe.capabilities.maxPathBytes;
  if (limit !== undefined && limit < MIN_SUITE_PATH_BYTES) {
    throw new TypeError(
      `memdir conformance: ${target.name}: the suite's paths need capabilities.maxPathBytes of at least ${MIN_SUITE_PATH_BYTES}, got ${limit}`,
    );
  }
  return { ...probe, capabilities: { ...probe.capabilities } };
}

interface TestState {
  /** Label -> real backend name. */
  backends: Map<string, string>;
  drivers: Map<string, Promise<MemoryDriver>>;
  /** Namespaced drivers handed out by `files`, closed after the test. */
  views: MemoryDriver[];
  stores: MemoryStore[];
  /** Stores that only look (for snapshots), by backend label and namespace, reused within a test. */
  observers: Map<string, Promise<MemoryStore>>;
}

function freshState(): TestState {
  return { backends: new Map(), drivers: new Map(), views: [], stores: [], observers: new Map() };
}

let backendCounter = 0;

/** What a suite stub for counting tests throws: registration must not touch a backend. */
function notDuringRegistration(): never {
  throw new Error('memdir conformance: a test group used a backend while registering its tests');
}

/**
 * A {@link Suite} that only counts the tests the filter keeps: groups are registered on it first,
 * so a filter that keeps nothing is reported before any test runs.
 */
export function countingSuite(
  probe: Probe,
  namespace: string | undefined,
  keep: NameFilter,
): {
  suite: Suite;
  names: string[];
} {
  const names: string[] = [];
  const suite: Suite = {
    ...facts(probe, namespace, 0),
    test(name) {
      if (keep(name)) names.push(name);
    },
    open: notDuringRegistration,
    newBackend: notDuringRegistration,
    driver: notDuringRegistration,
    files: notDuringRegistration,
    snapshot: notDuringRegistration,
  };
  return { suite, names };
}

function facts(probe: Probe, namespace: string | undefined, propertyRuns: number, historyEdits = 10_000) {
  return {
    historyEdits,
    namespace,
    capabilities: probe.capabilities,
    atomicRename: probe.capabilities.atomicRename,
    maxPathBytes: Math.min(probe.capabilities.maxPathBytes ?? MAX_PATH_BYTES, MAX_PATH_BYTES),
    driverMethods: probe.driverMethods,
    propertyRuns,
  };
}

/** Builds the {@link Suite} of one run and registers its cleanup. Call inside a `describe`. */
export function createSuite(
  target: ConformanceTarget,
  namespace: string | undefined,
  probe: Probe,
  keep: NameFilter,
  hide: readonly (keyof MemoryDriver)[] = [],
): Suite {
  const runId = randomId();
  const timeout = target.timeout ?? 30_000;
  let state = freshState();

  function realName(label: string): string {
    let name = state.backends.get(label);
    if (name === undefined) {
      backendCounter += 1;
      name = `mdc_${runId}_${backendCounter}`;
      state.backends.set(label, name);
    }
    return name;
  }

  function driverFor(name: string): Promise<MemoryDriver> {
    let driver = state.drivers.get(name);
    if (!driver) {
      const create = target.createDriver!;
      driver = Promise.resolve().then(async () => hiding(await create(name), hide));
      state.drivers.set(name, driver);
    }
    return driver;
  }

  /** A store of the run's namespace must report what the suite registered its tests for. */
  function checkCapabilities(store: MemoryStore, storeNamespace: string | undefined): void {
    if (storeNamespace !== namespace || store.capabilities === undefined) return;
    if (capabilityKey(store.capabilities) !== capabilityKey(probe.capabilities)) {
      throw new Error(
        `memdir conformance: a store reports the capabilities ${capabilityKey(store.capabilities)}, but the suite registered its tests for ${capabilityKey(probe.capabilities)} (what the first store it opened reported): every store of one target must report the same`,
      );
    }
  }

  async function open(options: MemoryStoreOptions = {}, backend = MAIN): Promise<MemoryStore> {
    const name = realName(backend);
    const full: MemoryStoreOptions = {
      ...target.storeOptions,
      ...options,
      namespace: 'namespace' in options ? options.namespace : namespace,
    };
    if (full.namespace === undefined) delete full.namespace;
    const store = target.create
      ? await target.create(full, name)
      : createMemoryStore(await driverFor(name), full);
    state.stores.push(store);
    checkCapabilities(store, full.namespace);
    return store;
  }

  afterEach(async () => {
    const finished = state;
    state = freshState();
    const failures: unknown[] = [];
    for (const store of finished.stores) {
      await store.close().catch((error: unknown) => failures.push(error));
    }
    for (const view of finished.views) {
      await view.close().catch((error: unknown) => failures.push(error));
    }
    for (const driver of finished.drivers.values()) {
      await driver.then((opened) => opened.close()).catch((error: unknown) => failures.push(error));
    }
    // The target's own invariants (indexes, counters, leases), once nothing is open any more.
    if (target.check) {
      for (const name of finished.backends.values()) {
        await Promise.resolve()
          .then(() => target.check!(name))
          .catch((error: unknown) => failures.push(error));
      }
    }
    for (const name of finished.backends.values()) {
      await Promise.resolve()
        .then(() => target.destroy?.(name))
        .catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
  }, timeout);

  function observer(observed: string | undefined, backend: string): Promise<MemoryStore> {
    const key = `${backend}\u0000${observed ?? ''}`;
    let store = state.observers.get(key);
    if (!store) {
      store = open({ namespace: observed }, backend);
      state.observers.set(key, store);
    }
    return store;
  }

  async function snapshot(hiddenRoots: readonly string[] = [], backend = MAIN): Promise<unknown> {
    const roots = ['/memories', ...hiddenRoots];
    const observed: Record<string, unknown> = {};
    observed['store'] = await walk(await observer(namespace, backend), roots);
    if (namespace !== undefined) {
      observed['no namespace'] = await walk(await observer(undefined, backend), roots);
    }
    observed['outsider'] = await walk(await observer(OUTSIDER_NAMESPACE, backend), roots);
    if (target.createDriver) {
      const driver = await driverFor(realName(backend));
      observed['driver'] = await driverFiles(driver);
      if (namespace !== undefined)
        observed['driver namespace'] = await driverFiles(driver.namespace(namespace));
    }
    return observed;
  }

  return {
    ...facts(probe, namespace, target.propertyRuns ?? 60, target.historyEdits),
    test(name, body, minimumTimeout = 0) {
      if (keep(name)) it(name, body, Math.max(timeout, minimumTimeout));
    },
    open,
    newBackend() {
      backendCounter += 1;
      return `backend-${backendCounter}`;
    },
    async driver(backend = MAIN) {
      return target.createDriver ? driverFor(realName(backend)) : undefined;
    },
    async files(backend = MAIN) {
      if (!target.createDriver) throw new Error('memdir conformance: driver checks need createDriver');
      const driver = await driverFor(realName(backend));
      if (namespace === undefined) return driver;
      const view = driver.namespace(namespace);
      state.views.push(view);
      return view;
    },
    snapshot,
  };
}

/** Every file a driver holds, with its content, sorted by path. */
async function driverFiles(driver: MemoryDriver): Promise<Record<string, string | null>> {
  const paths: DriverPath[] = [];
  for await (const entry of driver.list(ROOT)) paths.push(entry.path);
  paths.sort();
  const files: Record<string, string | null> = {};
  for (const path of paths) {
    const node = await driver.read(path);
    files[path] = node?.kind === 'file' ? node.content : null;
  }
  return files;
}
