// Store URLs: which adapter opens a scheme (built-in `file:` and `memory:`, `@memdir/NAME/cli`,
// `memdir-store-NAME/cli`, or one registered in-process), where a `file:` store's folder is and
// whether it exists, and whether an opened store answers. What of a URL may be shown is in
// store-url-shown.ts.
import { existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createInMemoryStore,
  isMemoryToolError,
  type MemoryStore,
  type MemoryStoreOptions,
} from '@memdir/core';
import { CliUsageError, errorText, operatorCause } from './errors.js';
import { checkStoreUrl, redactStoreUrl, scrubSecrets } from './store-url-shown.js';

export { redactStoreUrl, scrubSecrets } from './store-url-shown.js';

/**
 * Opens a store for one URL scheme. This is the contract of an adapter's `./cli` export: a module at
 * `@memdir/redis/cli` (or `memdir-store-{scheme}/cli` for a third-party adapter) exports
 * `openStore(url, options)`.
 *
 * @param url the store URL exactly as the user gave it (credentials included; never print it as is).
 * @param options the store options from the command line (`namespace`, `overwrite`, limits).
 * @returns the store; the CLI calls `close()` on it when it is done. Throw (a `MemoryToolError` with
 *   code `BACKEND`, or any `Error` with a plain-words message) when the store cannot be opened.
 */
export type StoreOpener = (url: string, options: MemoryStoreOptions) => MemoryStore | Promise<MemoryStore>;

/** What an adapter's `./cli` subpath export must provide. */
export interface StoreAdapterModule {
  openStore: StoreOpener;
}

/**
 * Schemes whose adapter is a first-party package. Any other scheme `x:` is looked up as the package
 * `memdir-store-x`, so third-party adapters plug in the same way.
 */
const FIRST_PARTY_ADAPTERS: Readonly<Record<string, string>> = {
  redis: '@memdir/redis',
  rediss: '@memdir/redis',
  postgres: '@memdir/postgres',
  postgresql: '@memdir/postgres',
  s3: '@memdir/s3',
  'memstore+https': '@memdir/memory-stores',
  'memstore+http': '@memdir/memory-stores',
};

const SCHEME_PATTERN = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** The default store URL: the filesystem store rooted at `./memory`. */
export const DEFAULT_STORE_URL = 'file:./memory';

const registry = new Map<string, StoreOpener>();

/**
 * Registers an opener for a URL scheme in this process, for programs that embed the CLI
 * (`run(argv)`) and bring their own store. It wins over the built-in schemes and over adapters
 * found on disk.
 *
 * @param scheme the scheme without its colon, case-insensitive (`"mystore"` handles `mystore://...`).
 */
export function registerStoreScheme(scheme: string, opener: StoreOpener): void {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) {
    throw new TypeError(
      `Invalid URL scheme ${JSON.stringify(scheme)}: use letters, digits, "+", "-" and "."`,
    );
  }
  registry.set(scheme.toLowerCase(), opener);
}

/** The folder a `file:` URL names: `file:./memory` and `file:memory` from `cwd`, `file:///abs` and `file:/abs` as is. */
export function fileUrlToRoot(url: string, cwd: string): string {
  const rest = url.slice('file:'.length);
  if (rest === '' || rest === '//') {
    throw new CliUsageError(
      `Invalid store URL ${redactStoreUrl(url)}: name a folder, e.g. file:./memory or file:///var/lib/memory`,
    );
  }
  if (rest.startsWith('//')) {
    try {
      return fileURLToPath(url);
    } catch (error) {
      throw new CliUsageError(`Invalid store URL ${redactStoreUrl(url)}: ${(error as Error).message}`, {
        hint: 'A file URL with a host is not supported: use file:///absolute/path or file:./relative/path.',
      });
    }
  }
  return resolve(cwd, rest);
}

/** Where the CLI looks for an adapter, and how it loads it. */
export interface OpenStoreContext {
  /** The folder adapters are first looked up from (the user's project). @default process.cwd() */
  cwd?: string;
}

/**
 * Opens the store a URL names: `file:` (the filesystem store), `memory:` (in this process), a scheme
 * registered with {@link registerStoreScheme}, or an installed adapter package.
 *
 * @throws CliUsageError for a malformed URL, an unknown scheme, an adapter that is not installed or
 *   does not load, invalid options, or a store that cannot be opened.
 */
export async function openStore(
  url: string,
  options: MemoryStoreOptions,
  context: OpenStoreContext = {},
): Promise<MemoryStore> {
  const cwd = context.cwd ?? process.cwd();
  const shown = redactStoreUrl(url);
  const match = SCHEME_PATTERN.exec(url);
  if (match === null) {
    throw new CliUsageError(`Invalid store URL ${JSON.stringify(shown)}: expected a URL with a scheme`, {
      hint: `Use ${shown === '***' ? 'file:PATH' : `file:${url.startsWith('/') || url.startsWith('.') ? url : `./${url}`}`} for a folder, memory: for an in-process store, or an adapter's URL (redis://, postgres://, s3://).`,
    });
  }
  const scheme = match[1]!.toLowerCase();
  const registered = registry.get(scheme);
  // Before any adapter sees the URL: it parses, and a first-party URL has only known parameters.
  checkStoreUrl(url, { checkParameters: registered === undefined });
  const opener = registered ?? builtIn(scheme, cwd) ?? (await loadAdapter(scheme, shown, cwd));
  try {
    return await opener(url, options);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    // An adapter's or a server's message may repeat part of the URL: its secrets are taken out.
    const message = scrubSecrets(
      operatorCause(error) ?? (error instanceof Error ? error.message : String(error)),
      [url],
    );
    throw new CliUsageError(`Cannot open store ${shown}: ${message}`, { cause: error });
  }
}

function builtIn(scheme: string, cwd: string): StoreOpener | undefined {
  if (scheme === 'memory') {
    return (url, options) => {
      if (!/^memory:(\/\/)?$/i.test(url)) {
        throw new CliUsageError(
          `Invalid store URL ${redactStoreUrl(url)}: the in-memory store takes no location, use memory:`,
        );
      }
      return createInMemoryStore(options);
    };
  }
  if (scheme === 'file') {
    return async (url, options) => {
      const root = fileUrlToRoot(url, cwd);
      const { createFsStore } = await import('@memdir/fs');
      return createFsStore({ ...options, root });
    };
  }
  return undefined;
}

/** The package that serves `scheme`, and whether it is one of ours. */
function adapterPackage(scheme: string): { name: string; firstParty: boolean } {
  const firstParty = FIRST_PARTY_ADAPTERS[scheme];
  return firstParty === undefined
    ? { name: `memdir-store-${scheme}`, firstParty: false }
    : { name: firstParty, firstParty: true };
}

async function loadAdapter(scheme: string, shown: string, cwd: string): Promise<StoreOpener> {
  const { module: loaded, specifier } = await loadAdapterModule(scheme, shown, cwd);
  const openStore = (loaded as Partial<StoreAdapterModule>).openStore;
  if (typeof openStore !== 'function') {
    throw new CliUsageError(`The adapter ${specifier} does not export an openStore(url, options) function`);
  }
  return openStore;
}

/**
 * The `./cli` module of the adapter a store URL names, for what adapters offer beside `openStore`
 * (`migrate(url, options)`, which `memdir migrate` calls).
 * @throws CliUsageError for a URL without a scheme, or an adapter that is not installed.
 */
export async function loadStoreAdapter(
  url: string,
  context: OpenStoreContext = {},
): Promise<Record<string, unknown>> {
  const match = SCHEME_PATTERN.exec(url);
  const shown = redactStoreUrl(url);
  if (match === null)
    throw new CliUsageError(`Invalid store URL ${JSON.stringify(shown)}: expected a URL with a scheme`);
  checkStoreUrl(url, { checkParameters: true });
  const { module } = await loadAdapterModule(match[1]!.toLowerCase(), shown, context.cwd ?? process.cwd());
  return module as Record<string, unknown>;
}

async function loadAdapterModule(
  scheme: string,
  shown: string,
  cwd: string,
): Promise<{ module: unknown; specifier: string }> {
  const pkg = adapterPackage(scheme);
  const specifier = `${pkg.name}/cli`;
  let loaded: unknown;
  try {
    // The user's project first (a globally installed CLI still finds the adapter next to their
    // code), then the CLI's own dependencies.
    const local = resolveFromDirectory(pkg.name, './cli', cwd);
    loaded = await import(local === undefined ? specifier : pathToFileURL(local).href);
  } catch (error) {
    if (isPackageMissing(error, pkg.name)) {
      const known = Object.keys(FIRST_PARTY_ADAPTERS)
        .map((name) => `${name}:`)
        .join(', ');
      throw new CliUsageError(
        pkg.firstParty
          ? `Unsupported store URL ${shown}: install ${pkg.name}`
          : `Unsupported store URL ${shown}: no adapter for the scheme ${scheme}:`,
        {
          hint: pkg.firstParty
            ? `Run "npm install ${pkg.name}" in this project (or next to a global memdir).`
            : `Built in: file:, memory:. With their package installed: ${known}. A third-party adapter for ${scheme}: would be the package ${pkg.name}.`,
          cause: error,
        },
      );
    }
    throw new CliUsageError(
      `Cannot load the adapter ${specifier} for ${shown}: ${(error as Error).message ?? String(error)}`,
      { cause: error },
    );
  }
  return { module: loaded, specifier };
}

function isPackageMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown }).code;
  const message = String((error as { message?: unknown }).message ?? '');
  if (code === 'ERR_MODULE_NOT_FOUND')
    return message.includes(`'${name}'`) || message.includes(`'${name}/cli'`);
  // The package is there but has no ./cli subpath: an old version, or not an adapter.
  return code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' && message.includes(name);
}

/**
 * The file `subpath` of package `name` resolves to when imported from `fromDir`, following
 * Node's lookup (each ancestor's `node_modules`) and the package's `exports` map. Undefined when
 * the package is not installed there. Needed because Node 20's `import()` resolves from the
 * importing file only, and the CLI may live far from the user's project.
 */
export function resolveFromDirectory(name: string, subpath: string, fromDir: string): string | undefined {
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', name);
    const manifestPath = join(packageDir, 'package.json');
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: unknown };
      const target = exportTarget(manifest.exports, subpath);
      if (target === undefined) {
        const error = new Error(`Package subpath '${subpath}' is not defined by "exports" in ${name}`);
        Object.assign(error, { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
        throw error;
      }
      return join(packageDir, target);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

const CONDITIONS = ['import', 'node', 'default'];

function exportTarget(exports: unknown, subpath: string): string | undefined {
  if (exports === null || typeof exports !== 'object')
    return subpath === '.' ? conditional(exports) : undefined;
  const keys = Object.keys(exports);
  // An exports object without subpath keys is the conditions of ".".
  if (keys.length > 0 && !keys[0]!.startsWith('.')) return subpath === '.' ? conditional(exports) : undefined;
  return conditional((exports as Record<string, unknown>)[subpath]);
}

function conditional(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return undefined;
  for (const condition of CONDITIONS) {
    const resolved = conditional((target as Record<string, unknown>)[condition]);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

/** What the folder of a `file:` store holds, checked before anything opens it. */
export type FileStoreState =
  /** The folder and its `memories/` exist. */
  | { kind: 'present' }
  /**
   * Nothing there yet: `note` says what is missing (the folder, or `memories/` in it), as a line to
   * print; `missing` is the same without the prefix, for a message of its own.
   */
  | { kind: 'missing'; note: string; missing: string };

/** A path as the user would type it: relative to the working directory when inside it. */
function shownFolder(path: string, cwd: string): string {
  const fromCwd = relative(cwd, path);
  if (fromCwd === '') return '.';
  return fromCwd.startsWith('..') || isAbsolute(fromCwd) ? path : `./${fromCwd}`;
}

async function kindOf(path: string): Promise<'directory' | 'other' | 'missing' | 'not-a-directory-above'> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'not-a-directory-above';
    throw error;
  }
}

/**
 * Checks the folder a `file:` URL names without creating anything: the folder (and, with a
 * namespace, `namespaces/{namespace}`) and its `memories/` must be folders where they exist.
 *
 * @returns `present`, or `missing` with a note when the store has never been written to.
 * @throws CliUsageError (exit 2) when a file stands where a folder must be, or the folder cannot be read.
 */
export async function checkFileStore(url: string, cwd: string, namespace?: string): Promise<FileStoreState> {
  const shown = redactStoreUrl(url);
  const root = fileUrlToRoot(url, cwd);
  const base = namespace === undefined ? root : join(root, 'namespaces', namespace);
  const chain = [root, ...(base === root ? [] : [join(root, 'namespaces'), base]), join(base, 'memories')];
  const notAFolder = (path: string) =>
    new CliUsageError(`Cannot open store ${shown}: ${shownFolder(path, cwd)} is a file, not a folder`, {
      hint: 'A file: store is a folder (its files live in {folder}/memories), e.g. file:./memory.',
    });
  for (const path of chain) {
    let kind: Awaited<ReturnType<typeof kindOf>>;
    try {
      kind = await kindOf(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new CliUsageError(`Cannot open store ${shown}: cannot read ${shownFolder(path, cwd)} (${code})`, {
        cause: error,
      });
    }
    if (kind === 'directory') continue;
    if (kind === 'other') throw notAFolder(path);
    // Missing, or something above it is not a folder: find the first ancestor that exists.
    for (let ancestor = dirname(path); dirname(ancestor) !== ancestor; ancestor = dirname(ancestor)) {
      const above = await kindOf(ancestor).catch(() => 'other' as const);
      if (above === 'directory') break;
      if (above === 'other') throw notAFolder(ancestor);
    }
    const missing =
      path === root
        ? `there is no folder ${shownFolder(root, cwd)}`
        : `${shownFolder(root, cwd)} has no ${relative(root, path)} folder`;
    return {
      kind: 'missing',
      note: `memdir: the store ${shown} is empty: ${missing} (nothing was created; create writes the first file)`,
      missing,
    };
  }
  return { kind: 'present' };
}

/** A path no store holds: the probe asks for it to see that the store answers. */
const PROBE_PATH = '/memories/.memdir-cli-probe';

/**
 * Makes sure a store answers before a command runs (adapters may connect lazily): a `view` of a
 * path that is not there. NOT_FOUND, or any answer at all, means the store works.
 * @throws CliUsageError (exit 2) when the store fails (`BACKEND`) or throws something unexpected.
 */
export async function probeStore(store: MemoryStore, url: string): Promise<void> {
  try {
    await store.execute({ command: 'view', path: PROBE_PATH });
  } catch (error) {
    if (isMemoryToolError(error) && error.code !== 'BACKEND') return;
    // The store's own words when it has them (operators fix a password, not "try again").
    const problem = operatorCause(error) ?? errorText(error);
    throw new CliUsageError(`Cannot open store ${redactStoreUrl(url)}: ${scrubSecrets(problem, [url])}`, {
      cause: error,
    });
  }
}
