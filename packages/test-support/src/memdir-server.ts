// A real `memdir serve --http` in a child process (the CLI built in this workspace, packages/cli), with
// its own tokens file: what the tests of the memory stores API (@memdir/server) and of the driver that
// speaks it (@memdir/memory-stores) talk to. Tokens are added with the CLI's own `memdir token add`
// and taken by the running server at once (SIGHUP). Each package wraps it with Anthropic's SDK.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The workspace's built CLI (`packages/cli/dist/bin.js`). */
export const MEMDIR_BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));

const run = promisify(execFile);

/**
 * The environment of a memdir child process: this one's, without vitest's variables, a store, Node
 * options or an API key (a child finds only what `extra` gives it).
 */
export function memdirChildEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('VITEST') || key === 'MEMDIR_STORE' || key === 'NODE_OPTIONS') continue;
    if (key === 'MEMDIR_MEMORY_STORES_KEY' || key === 'ANTHROPIC_API_KEY') continue;
    clean[key] = value;
  }
  return { ...clean, ...extra };
}

export interface MemdirServerOptions {
  /** More flags of `memdir serve`. */
  readonly flags?: readonly string[];
  /** The first token (`memdir token add NAME ...flags`), needed for the server to start. */
  readonly firstToken: { readonly name: string; readonly flags: readonly string[] };
  /** `--rate` and `--burst`: by default a rate no test reaches, so every answer is seen as it is. */
  readonly rate?: number;
  /** The prefix of the temporary folder that holds the tokens file. */
  readonly folderPrefix?: string;
}

export interface MemdirServer {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly port: number;
  readonly tokensFile: string;
  /** The first token, as `memdir token add` printed it. */
  readonly firstToken: string;
  /** A new token (`memdir token add NAME ...flags`), taken by the server before this resolves. */
  token(name: string, ...flags: string[]): Promise<string>;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, the exit awaited, the temporary folder removed. */
  stop(): Promise<void>;
}

/** Starts `memdir serve --http 127.0.0.1:0 --store STORE [flags]`; resolves once it listens. */
export async function startMemdirServer(store: string, options: MemdirServerOptions): Promise<MemdirServer> {
  const dir = await mkdtemp(join(tmpdir(), options.folderPrefix ?? 'memdir-serve-'));
  const tokensFile = join(dir, 'tokens.json');
  const add = async (name: string, flags: readonly string[]) =>
    (
      await run(process.execPath, [MEMDIR_BIN, 'token', 'add', name, ...flags, '--tokens', tokensFile], {
        env: memdirChildEnv(),
      })
    ).stdout.trim();
  const firstToken = await add(options.firstToken.name, options.firstToken.flags);
  const rate = String(options.rate ?? 100_000);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      MEMDIR_BIN,
      'serve',
      '--http',
      '127.0.0.1:0',
      '--store',
      store,
      '--tokens',
      tokensFile,
      '--rate',
      rate,
      '--burst',
      rate,
      ...(options.flags ?? []),
    ],
    { cwd: dir, env: memdirChildEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const waiters = new Set<() => void>();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const wake of [...waiters]) wake();
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
    for (const wake of [...waiters]) wake();
  });
  const waitFor = (pattern: RegExp, from: number) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        waiters.delete(look);
        reject(new Error(`${why} ${pattern} on the server's stderr:\n${err}`));
      };
      const timer = setTimeout(() => fail('no'), 20_000);
      const look = () => {
        const found = pattern.exec(err.slice(from));
        if (found !== null) {
          clearTimeout(timer);
          waiters.delete(look);
          resolve(found);
        } else if (exited) fail('the server exited before');
      };
      waiters.add(look);
      look();
    });
  const port = Number((await waitFor(/on http:\/\/127\.0\.0\.1:(\d+)\/mcp/, 0))[1]);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    tokensFile,
    firstToken,
    async token(name, ...flags) {
      const token = await add(name, flags);
      const from = err.length;
      child.kill('SIGHUP');
      await waitFor(/reloaded \d+ tokens/, from);
      return token;
    },
    stderr: () => err,
    async stop() {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
