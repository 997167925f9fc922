// The machinery every conformance test shares: what the suite learned of the target before it
// registered its tests (capabilities, optional driver methods), per-test backends, store
// bookkeeping, the target's own checks and cleanup, assertions on MemoryToolErrors, and a "full
// tree" snapshot to prove that a failed command wrote nothing. Only the conformance subpath
// imports vitest; the engine never does.
import { afterEach, expect, it } from 'vitest';
import { isMemoryToolError, type MemoryToolError, type MemoryToolErrorCode } from '../errors.js';
import { MAX_PATH_BYTES } from '../messages.js';
import { normalizeMemoryPath } from '../path.js';
import { createMemoryStore } from '../store.js';
import type {
  DriverCapabilities,
  DriverPath,
  MemoryDriver,
  MemoryStore,
  MemoryStoreOptions,
} from '../types.js';

const ROOT = '' as DriverPath;

import type { ConformanceTarget } from './index.js';

/** The optional methods a driver has, which decide which driver checks apply. */
export interface DriverMethods {
  readonly describe: boolean;
  readonly update: boolean;
  readonly stat: boolean;
}

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
  /** Registers one test, with the target's timeout, unless the filter leaves it out. */
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

/**
 * What is wrong with `capabilities`, or undefined when they are well-formed: `atomicRename` a
 * boolean; `maxPathBytes` absent or an integer from 1 to 1024; `maxFileBytes` absent or a positive
 * integer; `replaySafe` absent or a boolean.
 */
export function capabilityProblem(capabilities: unknown): string | undefined {
  if (typeof capabilities !== 'object' || capabilities === null) {
    return `capabilities must be an object, got ${capabilities === null ? 'null' : typeof capabilities}`;
  }
  const { atomicRename, maxPathBytes, maxFileBytes, replaySafe } = capabilities as Record<string, unknown>;
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
  if (replaySafe !== undefined && typeof replaySafe !== 'boolean') {
    return `capabilities.replaySafe must be a boolean when given, got ${JSON.stringify(replaySafe)}`;
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
            };
            return { capabilities: files.capabilities, source: 'driver', driverMethods: methods } as Probe;
          } finally {
            await driver.close();
          }
        }
        const store = await target.create!(namespace === undefined ? {} : { namespace }, backend);
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

function facts(probe: Probe, namespace: string | undefined, propertyRuns: number) {
  return {
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
      driver = Promise.resolve().then(() => create(name));
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
    const full: MemoryStoreOptions = 'namespace' in options ? { ...options } : { ...options, namespace };
    if (full.namespace === undefined) delete full.namespace;
    const store = target.create
      ? await target.create(full, name)
      : createMemoryStore(sharedDriver(await driverFor(name)), full);
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
    ...facts(probe, namespace, target.propertyRuns ?? 60),
    test(name, body) {
      if (keep(name)) it(name, body, timeout);
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
 * slashes, percent-decoded, with control characters dropped, with lone surrogates dropped or
 * turned into U+FFFD (what UTF-8 encoders make of them), with runs of slashes collapsed (a path
 * over 4096 characters normalised anyway), with `..` resolved, with a missing slash after
 * `/memories` added. Those that are valid memory paths are returned (normalised), with their
 * ancestors, for a snapshot to look at.
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
    // With the u flag, a surrogate range matches only unpaired surrogates.
    candidates.push(candidate.replace(/[\ud800-\udfff]/gu, '\ufffd'));
    candidates.push(candidate.replace(/[\ud800-\udfff]/gu, ''));
    candidates.push(candidate.replace(/\/{2,}/g, '/'));
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

/**
 * The content of a file as its (untruncated) view shows it: the numbered lines without their
 * numbers, joined by `\n`. Exactly the stored text, for any content of under a million lines.
 */
export function contentOf(viewText: string): string {
  const body = viewText.slice(viewText.indexOf(' with line numbers:\n') + ' with line numbers:\n'.length);
  return body
    .split('\n')
    .map((line) => line.slice('     1\t'.length))
    .join('\n');
}

/**
 * Texts a store must return exactly as written (SPEC section 3): no Unicode normalisation, no
 * newline conversion, no byte-order-mark handling, control characters kept.
 */
export const EXACT_TEXTS: ReadonlyArray<readonly [label: string, text: string]> = [
  ['NUL', 'a\u0000b\u0000'],
  ['a byte-order mark', '\ufeffafter a BOM'],
  ['a BOM in the middle', 'before\ufeffafter'],
  ['CR', 'old mac\rline\r'],
  ['CRLF', 'windows\r\nlines\r\n'],
  ['U+2028 and U+2029', 'line\u2028separator\u2029paragraph'],
  ['U+FFFE and U+FFFF', 'nonchar \ufffe and \uffff'],
  ['NFD e\u0301', 'cafe\u0301'],
  ['NFC and NFD side by side', '\u00e9 e\u0301'],
  ['C0 and C1 controls', '\u0001\u001b[0m\u007f\u0085\u009f'],
  ['astral characters', '\u{1f600}\u{10000}\u{10ffff}'],
  ['U+FFFD', '\ufffd'],
  ['only newlines', '\n\n'],
];

/**
 * Names holding characters that are special in some backend's query or pattern language, each with
 * the names those characters would match as wildcards or patterns (SPEC section 3: names are
 * literal). No name is both: the lookalikes are never literals.
 */
export const LITERAL_NAMES: ReadonlyArray<readonly [literal: string, lookalikes: readonly string[]]> = [
  ['a_b', ['aXb', 'a-b']], // SQL LIKE: _ is any one character
  ['a%', ['a', 'ab', 'abc']], // SQL LIKE: % is any run of characters
  ['%', ['x']],
  ['a*', ['ab', 'a']], // globs (Redis MATCH, shells): * is any run
  ['a?', ['ab', 'aXb']], // globs: ? is any one character
  ['[ab]', ['a', 'b']], // globs: a character class
  ['[!a]x', ['bx']], // globs: a negated class
  ['{a,b}', ['a', 'b']], // brace expansion
  ["it's", ['its']], // SQL string quoting
  ['say "hi"', ['say hi']], // JSON and shell quoting
  ['a:b', ['a', 'b']], // key separators (Redis), drive letters
  ['a b', ['ab', 'a', 'b']], // spaces
  ['a ', ['a']],
  [' a', ['a']],
  ['a.b', ['aXb']], // regular expressions: . is any character
  ['a+', ['aa']],
  ['^a$', ['a']],
  ['(a|b)', ['a', 'b']],
];

/** Every literal name of {@link LITERAL_NAMES}. */
export const LITERALS: readonly string[] = LITERAL_NAMES.map(([literal]) => literal);

/** Every lookalike of {@link LITERAL_NAMES}, once each. */
export const LOOKALIKES: readonly string[] = [
  ...new Set(LITERAL_NAMES.flatMap(([, lookalikes]) => lookalikes)),
];

/** A valid memory path of exactly `bytes` UTF-8 bytes (ASCII, names of at most 255 bytes). */
export function pathOfBytes(bytes: number): string {
  const available = bytes - '/memories'.length;
  const names = Math.ceil(available / 256);
  const letters = available - names;
  const segments: string[] = [];
  for (let index = 0; index < names; index++) {
    const length = Math.floor(letters / names) + (index < letters % names ? 1 : 0);
    segments.push(String.fromCharCode(97 + (index % 26)).repeat(length));
  }
  return `/memories/${segments.join('/')}`;
}
