// A real `memdir serve --http` process (the CLI built beside this package) serving the memory
// stores API on a store URL, a token that may make stores, and new stores made through Anthropic's
// SDK: what this package's tests talk to. The same steps as @memdir/server's test/api-server.ts,
// kept here because a package's tests import nothing from another package's test folder.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';

export const BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const run = promisify(execFile);

/** The environment of a child process: this one's, without vitest's variables or a store. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('VITEST') || key === 'MEMDIR_STORE' || key === 'NODE_OPTIONS') continue;
    if (key === 'MEMDIR_MEMORY_STORES_KEY' || key === 'ANTHROPIC_API_KEY') continue;
    clean[key] = value;
  }
  return { ...clean, ...extra };
}

export interface ApiServer {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** A token that may make and manage every store (`memdir token add --stores`). */
  readonly key: string;
  /** The SDK's client with {@link key}. */
  readonly client: Anthropic;
  /** A new, empty memory store's id. */
  newStore(name?: string): Promise<string>;
  /** The store URL of store `id` on this server. */
  url(id: string): string;
  /** A new token (`memdir token add NAME ...flags`), taken by the server at once. */
  token(name: string, ...flags: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Starts `memdir serve --http 127.0.0.1:0 --store STORE [flags]` with a token that may make stores. */
export async function startApiServer(store: string, flags: readonly string[] = []): Promise<ApiServer> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-memstore-'));
  const tokensFile = join(dir, 'tokens.json');
  const add = async (name: string, flags: string[]) =>
    (
      await run(process.execPath, [BIN, 'token', 'add', name, ...flags, '--tokens', tokensFile], {
        env: childEnv(),
      })
    ).stdout.trim();
  const key = await add('admin', ['--stores']);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--http',
      '127.0.0.1:0',
      '--store',
      store,
      '--tokens',
      tokensFile,
      '--rate',
      '100000',
      '--burst',
      '100000',
      ...flags,
    ],
    { cwd: dir, env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const waiters = new Set<() => void>();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const wake of [...waiters]) wake();
  });
  const waitFor = (pattern: RegExp, from: number) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(look);
        reject(new Error(`no ${pattern} on the server's stderr:\n${err}`));
      }, 20_000);
      const look = () => {
        const found = pattern.exec(err.slice(from));
        if (found !== null) {
          clearTimeout(timer);
          waiters.delete(look);
          resolve(found);
        }
      };
      waiters.add(look);
      look();
    });
  const port = (await waitFor(/on http:\/\/127\.0\.0\.1:(\d+)\/mcp/, 0))[1]!;
  const origin = `http://127.0.0.1:${port}`;
  const client = new Anthropic({ baseURL: origin, apiKey: key, maxRetries: 4, logLevel: 'off' });
  return {
    origin,
    key,
    client,
    async newStore(name = 'test') {
      return (await client.beta.memoryStores.create({ name })).id;
    },
    url: (id) => `memstore+http://127.0.0.1:${port}/${id}`,
    async token(name, ...flags) {
      const token = await add(name, flags);
      const from = err.length;
      child.kill('SIGHUP');
      await waitFor(/reloaded \d+ tokens/, from);
      return token;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
