// `memdir serve --http` in a child process, and MCP clients that reach it with the MCP SDK's own
// StreamableHTTPClientTransport.
import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, cliEnv, runCli } from './helpers.js';

export interface HttpServerProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: URL;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** Waits until stderr holds a line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL if it has not ended within 10 s. */
  stop(): Promise<number | string>;
}

/**
 * Starts `memdir serve --http 127.0.0.1:0 ...args` in `cwd` and waits until it listens. With
 * `address: false`, `memdir serve ...args`: the address comes from the config file or environment.
 */
export async function startHttpServer(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; address?: boolean } = {},
): Promise<HttpServerProcess> {
  const address = options.address === false ? [] : ['--http', '127.0.0.1:0'];
  const child = spawn(process.execPath, [BIN, 'serve', ...address, ...args], {
    cwd: options.cwd,
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const waiters = new Set<() => void>();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const wake of [...waiters]) wake();
  });
  child.stdout!.resume();
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
      for (const wake of [...waiters]) wake();
    }),
  );
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  const waitFor = (pattern: RegExp, timeoutMs = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(look);
        reject(new Error(`no line matching ${pattern} on stderr within ${timeoutMs} ms:\n${err}`));
      }, timeoutMs);
      const look = () => {
        const line = err.split('\n').find((candidate) => pattern.test(candidate));
        if (line !== undefined || ended) {
          clearTimeout(timer);
          waiters.delete(look);
          if (line !== undefined) resolve(line);
          else reject(new Error(`the server exited before ${pattern}:\n${err}`));
        }
      };
      waiters.add(look);
      look();
    });
  const line = await waitFor(/serving .* over MCP on http:\/\//);
  const origin = /http:\/\/[^/\s]+/.exec(line)![0];
  return {
    child,
    origin,
    url: new URL(`${origin}/mcp`),
    stderr: () => err,
    exited,
    waitFor,
    async stop() {
      if (!ended) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** An MCP client of `server` sending `token` as its bearer token. */
export async function httpClient(
  server: { url: URL },
  token: string | undefined,
  name = 'memdir-test',
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(server.url, {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** `memdir token add NAME --namespace NS [--read-only]` with `--tokens file`: the new token. */
export async function addToken(
  file: string,
  name: string,
  namespace: string,
  readOnly = false,
): Promise<string> {
  const result = await runCli([
    'token',
    'add',
    name,
    '--namespace',
    namespace,
    '--tokens',
    file,
    ...(readOnly ? ['--read-only'] : []),
  ]);
  if (result.code !== 0) throw new Error(`token add failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content[0]!.text;
}
