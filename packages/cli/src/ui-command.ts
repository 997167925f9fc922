// `memdir ui --store URL`: the inspector (@memdir/server's /ui) on this machine only, for one person:
// a server on loopback with a one-time token, printed once, that sees every namespace of the store.
// Nothing is written to a tokens file; the token ends with the process (SIGINT or SIGTERM).
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createMemoryAdmin, type MemdirStore, type MemoryStore, storeDriver } from '@memdir/core';
import { createMemdirServer, mountInspector, TokenTable } from '@memdir/server';
import { expectPositionals, type Options, parseOrHelp, str } from './args.js';
import { UI_FLAGS } from './command-flags.js';
import { namingSources } from './config.js';
import { CliUsageError, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { isLoopback, parseHttpAddress } from './serve-http-options.js';
import { describeStore, STORE_OPTIONS, storeOptions, storeUrl, withStore } from './store-command.js';
import { openStore } from './store-url.js';
import { UI_HELP } from './ui-help.js';

const UI_OPTIONS = {
  store: STORE_OPTIONS.store,
  namespace: STORE_OPTIONS.namespace,
  ...UI_FLAGS,
  help: STORE_OPTIONS.help,
} satisfies Options;

/** Serves the inspector until SIGINT or SIGTERM. */
export async function runUi(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('ui', args, UI_OPTIONS, UI_HELP, io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals, sources } = parsed;
  expectPositionals('ui', positionals, 0, 0);
  const { host, port } = listenAddress(str(values, 'listen') ?? '127.0.0.1:0', sources);
  const namespace = str(values, 'namespace') ?? 'default';
  const { namespace: _shown, ...backend } = values;
  const options = storeOptions(backend, io);
  const url = storeUrl(backend, io);
  return withStore(backend, io, 'existing', async (healthStore) => {
    const token = `memdir_ui_${randomBytes(24).toString('base64url')}`;
    const sha256 = createHash('sha256').update(token).digest('hex');
    const tokens = new TokenTable([{ name: 'ui', namespace, mode: 'read-write', sha256, stores: true }]);
    const stores = new Map<string, Promise<MemoryStore>>();
    const driver = storeDriver(healthStore);
    const memdir = createMemdirServer({ tokens: () => tokens, ready: async () => true });
    mountInspector(memdir, {
      tokens: () => tokens,
      store: (name) => {
        let opened = stores.get(name);
        if (opened === undefined) {
          opened = openStore(url, { ...options, namespace: name }, { cwd: io.cwd });
          stores.set(name, opened);
          opened.catch(() => stores.delete(name));
        }
        return opened as Promise<MemdirStore>;
      },
      admin: driver?.capabilities.admin === true ? createMemoryAdmin(driver) : undefined,
    });
    const http = createServer(getRequestListener((request) => memdir.fetch(request)));
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => resolve());
    });
    const address = http.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    await write(
      io.stderr,
      `memdir: the inspector of ${describeStore(backend, io)} is on http://${shown}:${address.port}/ui\n` +
        `memdir: sign in with this one-time token (it ends with this process): ${token}\n`,
    );
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    for (const opened of stores.values()) await opened.then((store) => store.close()).catch(() => {});
    await write(io.stderr, `memdir: ${signal}: stopped\n`);
    return EXIT_OK;
  });
}

/** Where to listen: on loopback only; a refused value given by the environment or the file says so. */
function listenAddress(
  listen: string,
  sources: Parameters<typeof namingSources>[1],
): ReturnType<typeof parseHttpAddress> {
  let address: ReturnType<typeof parseHttpAddress>;
  try {
    address = parseHttpAddress(listen);
  } catch {
    throw namingSources(
      new CliUsageError(
        `ui: --listen expects HOST:PORT on loopback (e.g. 127.0.0.1:8080, [::1]:8080), got ${JSON.stringify(listen)}`,
      ),
      sources,
    );
  }
  if (!isLoopback(address.host)) {
    const refused = new CliUsageError(
      `ui: --listen must be on loopback (127.0.0.1, ::1, localhost), got ${address.host}`,
      { hint: 'For a team, use memdir serve --http with a tokens file: it serves the inspector at /ui.' },
    );
    throw namingSources(refused, sources);
  }
  return address;
}
