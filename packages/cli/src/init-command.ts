// `memdir init [DIR]`: memdir as the memory of Claude Code in a project, in one command: the
// project's `.mcp.json` gets a "memdir" server, a file: store's folder is made and kept out of git.
// Every file is read whole before anything is written, and written in one rename (atomic-file.ts), so a refusal
// (a malformed `.mcp.json`, another "memdir" server) changes nothing.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { validateNamespace } from '@memdir/core';
import { expectPositionals, type Options, parseOrHelp, str } from './args.js';
import { writeFileAtomically } from './atomic-file.js';
import { CliUsageError, EXIT_OK } from './errors.js';
import { INIT_HELP } from './init-help.js';
import { type CliIo, write } from './io.js';
import { DEFAULT_STORE_URL, fileUrlToRoot, redactStoreUrl } from './store-url.js';

const OPTIONS: Options = {
  store: { type: 'string', short: 's' },
  namespace: { type: 'string' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** The name of the server memdir init adds to `.mcp.json`. */
const SERVER = 'memdir';

/** What `memdir init` did, as `--json` prints it. */
export interface InitResult {
  /** The project folder. */
  dir: string;
  /** `.mcp.json`: added, replaced (with --force) or unchanged. */
  mcp: 'added' | 'replaced' | 'unchanged';
  /** The store's folder, for a file: store: made now or already there. */
  folder?: { path: string; made: boolean };
  /** The line added to `.gitignore`, if one was. */
  gitignore?: string;
  /** True when the store URL is read from $MEMDIR_STORE (it holds a secret). */
  storeFromEnvironment: boolean;
}

function usage(message: string): CliUsageError {
  return new CliUsageError(`init: ${message}`, { hint: 'Run "memdir init --help" for usage.' });
}

/** `memdir init ...` with the arguments after `init`. */
export async function runInit(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('init', args, OPTIONS, INIT_HELP, io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  expectPositionals('init', positionals, 0, 1);
  const dir = resolve(io.cwd, positionals[0] ?? '.');
  if (!(await isDirectory(dir))) throw usage(`${dir} is not a folder`);

  const url = str(values, 'store') ?? DEFAULT_STORE_URL;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined)
    throw usage(`--store expects a store URL (file:./memory, redis://..., postgres://...)`);
  if (scheme === 'memory')
    throw usage('a memory: store lives only as long as its process: give a store that keeps its files');
  const namespace = str(values, 'namespace');
  if (namespace !== undefined) {
    try {
      validateNamespace(namespace);
    } catch (error) {
      throw usage((error as Error).message.replace(/^Invalid @memdir\/core option namespace/, '--namespace'));
    }
  }
  // A URL memdir would not print in full holds a secret: .mcp.json is usually committed.
  const secret = redactStoreUrl(url) !== url;
  const entry = {
    command: 'npx',
    args: [
      '-y',
      'memdir',
      'serve',
      ...(secret ? [] : ['--store', url]),
      ...(namespace === undefined ? [] : ['--namespace', namespace]),
    ],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code expands ${VAR} in .mcp.json.
    ...(secret ? { env: { MEMDIR_STORE: '${MEMDIR_STORE}' } } : {}),
  };

  // Read and decide everything first.
  const mcpPath = join(dir, '.mcp.json');
  const mcpText = await readIfExists(mcpPath);
  let config: Record<string, unknown> = {};
  if (mcpText !== undefined) {
    try {
      config = JSON.parse(mcpText) as Record<string, unknown>;
    } catch (error) {
      throw usage(
        `${mcpPath} is not valid JSON (${(error as Error).message}); fix it, and run memdir init again`,
      );
    }
    if (!isObject(config) || (config.mcpServers !== undefined && !isObject(config.mcpServers))) {
      throw usage(`${mcpPath} is not an MCP configuration (an object whose "mcpServers" is an object)`);
    }
  }
  const servers = (config.mcpServers ?? {}) as Record<string, unknown>;
  const existing = servers[SERVER];
  let mcp: InitResult['mcp'] = 'added';
  if (existing !== undefined) {
    if (JSON.stringify(existing) === JSON.stringify(entry)) mcp = 'unchanged';
    else if (values.force === true) mcp = 'replaced';
    else
      throw new CliUsageError(`init: ${mcpPath} already has a "${SERVER}" server, configured otherwise`, {
        hint: 'Run memdir init --force to replace it, or edit the file.',
      });
  }

  let folder: InitResult['folder'];
  let ignoreLine: string | undefined;
  let gitignore: string | undefined;
  const gitignorePath = join(dir, '.gitignore');
  if (scheme === 'file') {
    const root = fileUrlToRoot(url, dir);
    folder = { path: root, made: !(await isDirectory(root)) };
    const inside = relative(dir, root);
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) {
      const line = `/${inside.split(sep).join('/')}/`;
      gitignore = (await readIfExists(gitignorePath)) ?? '';
      const lines = gitignore.split(/\r?\n/).map((text) => text.trim());
      const bare = line.slice(1, -1);
      if (![line, bare, `/${bare}`, `${bare}/`].some((form) => lines.includes(form))) ignoreLine = line;
    }
  }

  // Then write: the folder, .gitignore, .mcp.json (each file in one rename).
  if (folder?.made) await mkdir(folder.path, { recursive: true });
  if (ignoreLine !== undefined) {
    const separator = gitignore === '' || gitignore!.endsWith('\n') ? '' : '\n';
    await writeFileAtomically(
      gitignorePath,
      `${gitignore}${separator}# memdir's memory (memdir init): share memories through a store, not git\n${ignoreLine}\n`,
    );
  }
  if (mcp !== 'unchanged') {
    const next = { ...config, mcpServers: { ...servers, [SERVER]: entry } };
    await writeFileAtomically(mcpPath, `${JSON.stringify(next, null, 2)}\n`);
  }

  const result: InitResult = {
    dir,
    mcp,
    ...(folder === undefined ? {} : { folder }),
    ...(ignoreLine === undefined ? {} : { gitignore: ignoreLine }),
    storeFromEnvironment: secret,
  };
  await write(
    io.stdout,
    values.json === true ? `${JSON.stringify(result)}\n` : summary(result, url, mcpPath),
  );
  return EXIT_OK;
}

function summary(result: InitResult, url: string, mcpPath: string): string {
  const lines: string[] = [];
  const shown = redactStoreUrl(url);
  if (result.mcp === 'unchanged')
    lines.push(`memdir init: ${mcpPath} already has the "${SERVER}" server (${shown}): nothing to change`);
  else
    lines.push(
      `memdir init: ${result.mcp} the "${SERVER}" server in ${mcpPath} (memdir serve --store ${shown})`,
    );
  if (result.folder?.made) lines.push(`memdir init: made the store's folder ${result.folder.path}`);
  if (result.gitignore !== undefined)
    lines.push(`memdir init: added ${result.gitignore} to ${join(result.dir, '.gitignore')}`);
  if (result.storeFromEnvironment)
    lines.push(
      'memdir init: the store URL holds a secret, so .mcp.json does not: the server reads it from $MEMDIR_STORE (export it where Claude Code starts)',
    );
  lines.push('Next: start Claude Code in this folder and approve the "memdir" server; /mcp shows it.');
  return `${lines.join('\n')}\n`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw usage(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
