// The machinery every conformance test shares: per-test backends, store bookkeeping and cleanup,
// assertions on MemoryToolErrors, and a "full tree" snapshot to prove that a failed command wrote
// nothing. Only the conformance subpath imports vitest; the engine never does.
import { afterEach, expect, it } from 'vitest';
import { isMemoryToolError, type MemoryToolError, type MemoryToolErrorCode } from '../errors.js';
import { normalizeMemoryPath } from '../path.js';
import { createMemoryStore } from '../store.js';
import type { DriverPath, MemoryDriver, MemoryStore, MemoryStoreOptions } from '../types.js';

const ROOT = '' as DriverPath;

import type { ConformanceTarget } from './index.js';

/** What one run of the suite (with or without the default namespace) gives each test file. */
export interface Suite {
  /** The namespace every store gets unless a test sets its own (`undefined` in the first run). */
  readonly namespace: string | undefined;
  /** From the target's capabilities. */
  readonly atomicRename: boolean;
  /** fast-check runs of the differential test. */
  readonly propertyRuns: number;
  /** Registers one test, with the target's timeout. */
  test(name: string, body: () => Promise<void>): void;
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
   * Everything observable on a backend: the full tree of the run's namespace (walked through
   * listings from `/memories` and from each of `hiddenRoots`, every file's content), the trees of a
   * store without a namespace and of an unrelated namespace, and, with a driver, every file the
   * driver holds (hidden ones included). Two snapshots are equal when nothing was written.
   */
  snapshot(hiddenRoots?: readonly string[], backend?: string): Promise<unknown>;
}

/** The label of the backend most tests use. */
export const MAIN = 'main';

/** A namespace no test uses: its tree must never change. */
const OUTSIDER_NAMESPACE = 'conformance-outsider';

/** Letters for backend names: safe as folder names, key prefixes and unquoted SQL identifiers. */
function randomId(): string {
  return Math.random().toString(36).slice(2, 10).padEnd(8, '0');
}

/** Forwards everything to `driver` except `close`, so many stores can share one driver. */
function sharedDriver(driver: MemoryDriver): MemoryDriver {
  return new Proxy(driver, {
    get(target, property) {
      if (property === 'close') return async () => {};
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface TestState {
  /** Label -> real backend name. */
  backends: Map<string, string>;
  drivers: Map<string, Promise<MemoryDriver>>;
  stores: MemoryStore[];
  /** Stores that only look (for snapshots), by backend label and namespace, reused within a test. */
  observers: Map<string, Promise<MemoryStore>>;
}

let backendCounter = 0;

/** Builds the {@link Suite} of one run and registers its cleanup. Call inside a `describe`. */
export function createSuite(target: ConformanceTarget, namespace: string | undefined): Suite {
  const runId = randomId();
  const timeout = target.timeout ?? 30_000;
  let state: TestState = { backends: new Map(), drivers: new Map(), stores: [], observers: new Map() };

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
      driver = Promise.resolve().then(() => create(name));
      state.drivers.set(name, driver);
    }
    return driver;
  }

  async function open(options: MemoryStoreOptions = {}, backend = MAIN): Promise<MemoryStore> {
    const name = realName(backend);
    const full: MemoryStoreOptions = 'namespace' in options ? { ...options } : { ...options, namespace };
    if (full.namespace === undefined) delete full.namespace;
    const store = target.create
      ? await target.create(full, name)
      : createMemoryStore(sharedDriver(await driverFor(name)), full);
    state.stores.push(store);
    return store;
  }

  afterEach(async () => {
    const finished = state;
    state = { backends: new Map(), drivers: new Map(), stores: [], observers: new Map() };
    const failures: unknown[] = [];
    for (const store of finished.stores) {
      await store.close().catch((error: unknown) => failures.push(error));
    }
    for (const driver of finished.drivers.values()) {
      await driver.then((opened) => opened.close()).catch((error: unknown) => failures.push(error));
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
    namespace,
    atomicRename: target.capabilities?.atomicRename ?? true,
    propertyRuns: target.propertyRuns ?? 60,
    test(name, body) {
      it(name, body, timeout);
    },
    open,
    newBackend() {
      backendCounter += 1;
      return `backend-${backendCounter}`;
    },
    async driver(backend = MAIN) {
      return target.createDriver ? driverFor(realName(backend)) : undefined;
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

/** The outcome of a command as comparable text: the result, or the error's code and message. */
export async function outcome(promise: Promise<string>): Promise<string> {
  try {
    return `ok: ${await promise}`;
  } catch (error) {
    if (isMemoryToolError(error)) return `error ${error.code}: ${error.message}`;
    return `thrown (not a MemoryToolError): ${String(error)}`;
  }
}

/**
 * Views `/memories` and every root, then every directory and file the listings show, until
 * nothing new turns up. The result maps each path viewed to its outcome.
 */
export async function walk(store: MemoryStore, roots: readonly string[]): Promise<Record<string, string>> {
  const seen = new Map<string, string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    const result = await outcome(store.view({ command: 'view', path }));
    seen.set(path, result);
    if (!result.startsWith("ok: Here're the files")) continue;
    // Listing lines are "{size}\t{path}" (paths hold no TAB or newline: control characters are
    // invalid); the first is the directory itself.
    for (const line of result.split('\n').slice(2)) {
      const tab = line.indexOf('\t');
      if (tab === -1) continue;
      const entry = line.slice(tab + 1);
      queue.push(entry.endsWith('/') ? entry.slice(0, -1) : entry);
    }
  }
  return Object.fromEntries([...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Expects `promise` to reject with a MemoryToolError of `code`, and, when given, exactly `message`.
 * @returns the error, for further checks.
 */
export async function expectError(
  promise: Promise<unknown>,
  code: MemoryToolErrorCode,
  message?: string,
): Promise<MemoryToolError> {
  let result: unknown;
  try {
    result = await promise;
  } catch (error) {
    expect(isMemoryToolError(error), `expected a MemoryToolError, got ${String(error)}`).toBe(true);
    const toolError = error as MemoryToolError;
    expect({ code: toolError.code, message: toolError.message }).toEqual({
      code,
      message: message ?? toolError.message,
    });
    expect(typeof toolError.message === 'string' && toolError.message.length > 0).toBe(true);
    return toolError;
  }
  throw new Error(`Expected the error ${code}, but the command succeeded with: ${JSON.stringify(result)}`);
}

/** Creates each file in order. */
export async function seed(store: MemoryStore, files: Record<string, string>): Promise<void> {
  for (const [path, file_text] of Object.entries(files)) {
    await store.create({ command: 'create', path, file_text });
  }
}

/** Views a path and returns the text. */
export function view(store: MemoryStore, path: string, view_range?: number[]): Promise<string> {
  return store.view(view_range ? { command: 'view', path, view_range } : { command: 'view', path });
}

/** The header of a directory view. */
export function listingHeader(path: string): string {
  return `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:\n`;
}

/** The header of a file view. */
export function fileHeader(path: string): string {
  return `Here's the content of ${path} with line numbers:\n`;
}

/** The result text of a successful str_replace, around the given snippet lines. */
export function snippetResult(lines: readonly string[]): string {
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${lines.join('\n')}`;
}

/**
 * Paths a careless store might write to when it mishandles `input`: the input with backslashes as
 * slashes, percent-decoded, with control characters dropped, with `..` resolved, with a missing
 * slash after `/memories` added. Those that are valid memory paths are returned (normalised), with
 * their ancestors, for a snapshot to look at.
 */
export function landingSpots(input: string): string[] {
  const variants = new Set<string>();
  const decode = (text: string) =>
    text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const candidates = [
    input,
    input.replaceAll('\\', '/'),
    decode(input),
    decode(decode(input)).replaceAll('\\', '/'),
  ];
  for (const candidate of [...candidates]) {
    candidates.push(candidate.replace(/[\u0000-\u001f\u007f]/g, ''));
    candidates.push(candidate.replace(/^\/?memories(?!\/|$)/, '/memories/'));
    candidates.push(`/memories/${candidate.replace(/^\/+/, '')}`);
  }
  for (const candidate of candidates) {
    const resolved: string[] = [];
    for (const segment of candidate.split('/')) {
      if (segment === '..') resolved.pop();
      else resolved.push(segment);
    }
    for (const path of [candidate, resolved.join('/') || '/']) {
      try {
        const normalized = normalizeMemoryPath(path);
        const segments = normalized.split('/');
        for (let end = 3; end <= segments.length; end++) variants.add(segments.slice(0, end).join('/'));
      } catch {
        // Not a valid path: nothing could land there through a conforming store.
      }
    }
  }
  return [...variants].sort();
}
