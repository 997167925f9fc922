// The memory stores API tests' server: a real `memdir serve --http` (@memdir/test-support's
// startMemdirServer) and Anthropic's SDK pointed at it.
import Anthropic from '@anthropic-ai/sdk';
import { startMemdirServer } from '@memdir/test-support';

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

/** Starts `memdir serve --http 127.0.0.1:0 --store URL [flags]` with no token the tests use yet. */
export async function startApiServer(store: string, flags: readonly string[] = []): Promise<ApiServer> {
  const server = await startMemdirServer(store, {
    flags,
    // The server needs a tokens file to start: one token it never uses.
    firstToken: { name: 'boot', flags: ['--namespace', 'boot'] },
    folderPrefix: 'memdir-api-',
  });
  return {
    origin: server.origin,
    tokensFile: server.tokensFile,
    token: server.token,
    client: (token, options = {}) =>
      new Anthropic({
        baseURL: server.origin,
        apiKey: token,
        maxRetries: 0,
        defaultHeaders: options.defaultHeaders,
      }),
    stderr: server.stderr,
    stop: server.stop,
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
