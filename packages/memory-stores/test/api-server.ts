// What this package's tests talk to: a real `memdir serve --http` (@memdir/test-support's
// startMemdirServer) serving the memory stores API, a token that may make stores, and new stores made
// through Anthropic's SDK.
import Anthropic from '@anthropic-ai/sdk';
import { MEMDIR_BIN, memdirChildEnv, startMemdirServer } from '@memdir/test-support';

export const BIN = MEMDIR_BIN;
export const childEnv = memdirChildEnv;

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
  const server = await startMemdirServer(store, {
    flags,
    firstToken: { name: 'admin', flags: ['--stores'] },
    folderPrefix: 'memdir-memstore-',
  });
  const key = server.firstToken;
  const client = new Anthropic({ baseURL: server.origin, apiKey: key, maxRetries: 4, logLevel: 'off' });
  return {
    origin: server.origin,
    key,
    client,
    async newStore(name = 'test') {
      return (await client.beta.memoryStores.create({ name })).id;
    },
    url: (id) => `memstore+http://127.0.0.1:${server.port}/${id}`,
    token: server.token,
    stop: server.stop,
  };
}
