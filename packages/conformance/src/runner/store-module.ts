// Loaded inside the vitest worker by the test file `memdir-conformance` generates: turns the
// exports of a user's store module into the target of `describeMemoryStore`.
import type { DriverCapabilities, MemoryDriver, MemoryStore, MemoryStoreOptions } from '@memdir/core';
import type { ConformanceTarget } from '../target.js';

/**
 * What a store module given to `memdir-conformance` exports, as named exports or as properties of
 * its default export. A default export that is a function is taken as `createStore`.
 */
export interface ConformanceModule {
  /** The name in the report. @default the module's file name */
  name?: string;
  /**
   * Opens a store with these options (pass every field on: namespace, overwrite, limits) on the
   * backend named `backend`: calls with the same name reach the same data, different names never
   * share data. `create` is accepted as an alias.
   */
  createStore?(options: MemoryStoreOptions, backend: string): MemoryStore | Promise<MemoryStore>;
  create?(options: MemoryStoreOptions, backend: string): MemoryStore | Promise<MemoryStore>;
  /** Instead of `createStore`: a driver over the backend named `backend`, run under the memdir engine. */
  createDriver?(backend: string): MemoryDriver | Promise<MemoryDriver>;
  /** Removes a backend's data after each test. */
  destroy?(backend: string): void | Promise<void>;
  /** Verifies the store's own invariants on a backend after each test, before `destroy`; throwing fails the test. */
  check?(backend: string): void | Promise<void>;
  /**
   * Only for a store that reports no `capabilities` of its own: the suite reads them from the
   * driver or the store first.
   * @default { atomicRename: true }
   */
  capabilities?: DriverCapabilities;
}

/** The settings the command line adds. */
export interface ConformanceSettings {
  /** The report name when the module gives none. */
  fallbackName: string;
  /** The module as the user named it, for messages. @default "The module" */
  module?: string | undefined;
  /** From `--name`; wins over the module's. */
  name?: string | undefined;
  propertyRuns?: number | undefined;
  timeout?: number | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}

/** A store module that cannot be tested as it is: the report shows its message, not where memdir threw it. */
export class StoreModuleError extends TypeError {
  override name = 'StoreModuleError';
}

/**
 * The `describeMemoryStore` target for a module's exports.
 * @throws StoreModuleError naming the module, what it exports and what it should, when it has no factory.
 */
export function conformanceTarget(moduleExports: unknown, settings: ConformanceSettings): ConformanceTarget {
  const namespace = isObject(moduleExports) ? moduleExports : {};
  const fallback = namespace.default;
  // Named exports win; a default export object fills the gaps; a default function is createStore.
  const source: ConformanceModule = {
    ...(typeof fallback === 'function'
      ? { createStore: fallback as ConformanceModule['createStore'] }
      : isObject(fallback)
        ? (fallback as ConformanceModule)
        : {}),
    ...(namespace as ConformanceModule),
  };
  const createStore = pick(source, 'createStore') ?? pick(source, 'create');
  const createDriver = pick(source, 'createDriver');
  if (createStore === undefined && createDriver === undefined) {
    const exported = Object.keys(namespace).filter((key) => key !== 'default' || fallback !== undefined);
    throw new StoreModuleError(
      `${settings.module ?? 'The module'} exports no store factory (${
        exported.length === 0 ? 'it has no exports' : `its exports: ${exported.join(', ')}`
      }): export createStore(options, backend) returning a MemoryStore, ` +
        'or createDriver(backend) returning a MemoryDriver (as named exports or on the default export).',
    );
  }
  const destroy = pick(source, 'destroy');
  const check = pick(source, 'check');
  const target: ConformanceTarget = {
    name: settings.name ?? (typeof source.name === 'string' ? source.name : settings.fallbackName),
  };
  // The suite takes exactly one of create and createDriver; a module with both is tested as a store.
  if (createStore !== undefined)
    target.create = (options, backend) => createStore.call(source, options, backend);
  else target.createDriver = (backend) => createDriver!.call(source, backend);
  if (destroy !== undefined) target.destroy = (backend) => destroy.call(source, backend);
  if (check !== undefined) target.check = (backend) => check.call(source, backend);
  if (source.capabilities !== undefined) target.capabilities = source.capabilities;
  if (settings.propertyRuns !== undefined) target.propertyRuns = settings.propertyRuns;
  if (settings.timeout !== undefined) target.timeout = settings.timeout;
  return target;
}

function pick<K extends 'createStore' | 'create' | 'createDriver' | 'destroy' | 'check'>(
  source: ConformanceModule,
  key: K,
): NonNullable<ConformanceModule[K]> | undefined {
  const value = source[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'function')
    throw new StoreModuleError(
      `The module's export ${key} is not a function (it is ${value === null ? 'null' : typeof value})`,
    );
  return value as NonNullable<ConformanceModule[K]>;
}
