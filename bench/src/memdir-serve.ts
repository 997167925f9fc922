// `memdir serve --http 127.0.0.1:0` in a child process, as the serve, api and serve-hostile sections
// start it: the workspace's CLI (or another build's, for a baseline), a tokens file, no per-token rate
// in the way of the load, and the access log read and dropped so the pipe never fills. Node flags in
// MEMDIR_BENCH_SERVE_NODE_FLAGS (space-separated, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to
// every server started, to profile it under the bench's load.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** This workspace's built CLI. */
export const MEMDIR_BIN = join(dirname(require.resolve('memdir/package.json')), 'dist', 'bin.js');

export interface ServeProcess {
  readonly child: ChildProcess;
  /** The MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: URL;
  /** What the server wrote on stderr (its first 100,000 characters). */
  stderr(): string;
}

/** Starts the server on `store` with `tokens`; resolves once it listens, rejects if it exits first. */
export async function startServe(
  store: string,
  tokens: string,
  options: {
    readonly bin?: string;
    /** The rate flags. @default `--rate 1000000 --burst 1000000` */
    readonly rate?: readonly string[];
  } = {},
): Promise<ServeProcess> {
  const nodeFlags = (process.env['MEMDIR_BENCH_SERVE_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      options.bin ?? MEMDIR_BIN,
      'serve',
      '--http',
      '127.0.0.1:0',
      '--store',
      store,
      '--tokens',
      tokens,
      // The load is the point: no client is held back by the per-token rate.
      ...(options.rate ?? ['--rate', '1000000', '--burst', '1000000']),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (err.length < 100_000) err += chunk;
      const match = /over MCP on (http:\/\/\S+\/mcp)/.exec(err);
      if (match) resolve(new URL(match[1]!));
    });
    child.once('exit', (code) => reject(new Error(`memdir serve exited (${code}):\n${err}`)));
  });
  return { child, url, stderr: () => err };
}
