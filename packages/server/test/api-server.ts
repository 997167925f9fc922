// `memdir serve --http` in a child process (the CLI built beside this package), its tokens, and
// Anthropic's SDK pointed at it: what the memory stores API tests drive.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';

const BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url));
const run = promisify(execFile);

function env(): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('VITEST') || key === 'MEMDIR_STORE' || key === 'NODE_OPTIONS') continue;
    clean[key] = value;
  }
  return clean;
}

export interface ApiServer {
  readonly origin: string;
  readonly tokensFile: string;
  /** A new token (`memdir token add NAME ...flags`), taken by the server at once (SIGHUP). */
  token(name: string, ...flags: string[]): Promise<string>;
  /** The SDK's client with `token`. */
  client(token: string, options?: { defaultHeaders?: Record<string, string> }): Anthropic;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `memdir serve --http 127.0.0.1:0 --store URL [flags]` with an empty tokens file. */
export async function startApiServer(store: string, flags: readonly string[] = []): Promise<ApiServer> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-api-'));
  const tokensFile = join(dir, 'tokens.json');
  const add = async (name: string, flags: string[]) =>
    (
      await run(process.execPath, [BIN, 'token', 'add', name, ...flags, '--tokens', tokensFile], {
        env: env(),
      })
    ).stdout.trim();
  // The server needs a tokens file to start: one token it never uses.
  await add('boot', ['--namespace', 'boot']);
  const child: ChildProcess = spawn(
    process.execPath,
    // A rate no test reaches: the tests see every answer as it is, with no retry.
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
      '1000',
      '--burst',
      '1000',
      ...flags,
    ],
    { cwd: dir, env: env(), stdio: ['ignore', 'ignore', 'pipe'] },
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
  return {
    origin,
    tokensFile,
    async token(name, ...flags) {
      const token = await add(name, flags);
      const from = err.length;
      child.kill('SIGHUP');
      await waitFor(/reloaded \d+ tokens/, from);
      return token;
    },
    client: (token, options = {}) =>
      new Anthropic({
        baseURL: origin,
        apiKey: token,
        maxRetries: 0,
        defaultHeaders: options.defaultHeaders,
      }),
    stderr: () => err,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The SDK's error of a request that must fail (the test fails when it succeeds or fails otherwise). */
export async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Anthropic.APIError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
