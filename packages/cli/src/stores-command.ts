// `memdir stores list|create|show|archive|delete`: the memory stores of the memory stores API on a
// store URL, for an operator without a server or code. Each verb is one request to the API's own
// handlers (@memdir/server), run in this process with an administration grant, so the CLI and a
// server validate, record and erase a store the same way.
import { createHash, randomBytes } from 'node:crypto';
import { createMemoryAdmin, type MemdirStore, type MemoryStore, storeDriver } from '@memdir/core';
import { createMemdirServer, mountMemoryStores, type StoreEntry, TokenTable } from '@memdir/server';
import { expectPositionals, type Options, parseOrHelp, str } from './args.js';
import { canAsk, confirmed } from './confirm.js';
import { CliUsageError, EXIT_FAILED, EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { STORE_OPTIONS, storeOptions, storeUrl, withStore } from './store-command.js';
import { openStore, redactStoreUrl } from './store-url.js';
import { STORES_HELP } from './stores-help.js';
import { table } from './table.js';

const OPTIONS: Options = {
  store: STORE_OPTIONS.store!,
  description: { type: 'string' },
  metadata: { type: 'string', multiple: true },
  'include-archived': { type: 'boolean' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

const VERBS = ['list', 'create', 'show', 'archive', 'delete'] as const;

/** A memory store as the API answers it: the registry's entry, with memdir's usage when retrieved. */
type StoreObject = Omit<StoreEntry, 'deleting'> & {
  memdir_usage?: { memories: number; bytes: number; versions: number };
};

function usage(message: string): CliUsageError {
  return new CliUsageError(`stores: ${message}`, { hint: 'Run "memdir stores --help" for usage.' });
}

/** `memdir stores ...` with the arguments after `stores`. */
export async function runStores(args: string[], io: CliIo): Promise<number> {
  const parsed = await parseOrHelp('stores', args, OPTIONS, STORES_HELP, io);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const verb = positionals[0];
  if (verb === undefined) throw usage(`give ${VERBS.join(', ')}`);
  if (!(VERBS as readonly string[]).includes(verb)) {
    throw usage(`unknown subcommand ${JSON.stringify(verb)}: give ${VERBS.join(', ')}`);
  }
  expectPositionals('stores', positionals, verb === 'list' ? 1 : 2, verb === 'list' ? 1 : 2);
  const metadata = metadataOf(values.metadata);
  if (verb !== 'create' && (values.description !== undefined || metadata !== undefined)) {
    throw usage('--description and --metadata go with create');
  }
  const json = values.json === true;
  const url = storeUrl(values, io);

  try {
    return await withStore(values, io, 'write', (root) => runVerb(root));
  } catch (error) {
    if (!(error instanceof StoresFailure)) throw error;
    await write(io.stderr, `memdir: stores: ${error.message}\n`);
    return EXIT_FAILED;
  }

  async function runVerb(root: MemoryStore): Promise<number> {
    const api = storesApi(root, url, storeOptions(values, io), io);
    try {
      switch (verb) {
        case 'list': {
          const stores: StoreObject[] = [];
          let page: string | null = null;
          do {
            const query = new URLSearchParams({ limit: '100' });
            if (values['include-archived'] === true) query.set('include_archived', 'true');
            if (page !== null) query.set('page', page);
            const body = (await api.call('GET', `?${query}`)) as {
              data: StoreObject[];
              next_page: string | null;
            };
            stores.push(...body.data);
            page = body.next_page;
          } while (page !== null);
          if (json) await write(io.stdout, stores.map((store) => `${JSON.stringify(store)}\n`).join(''));
          else if (stores.length === 0)
            await write(io.stderr, `memdir: stores: ${redactStoreUrl(url)} has no memory store\n`);
          else
            await write(
              io.stdout,
              table(
                ['ID', 'NAME', 'CREATED', 'ARCHIVED'],
                stores.map((store) => [store.id, store.name, store.created_at, store.archived_at ?? '-']),
              ),
            );
          return EXIT_OK;
        }
        case 'create': {
          const body = {
            name: positionals[1]!,
            ...(values.description === undefined ? {} : { description: str(values, 'description') }),
            ...(metadata === undefined ? {} : { metadata }),
          };
          await print(io, (await api.call('POST', '', body)) as StoreObject, json);
          return EXIT_OK;
        }
        case 'show':
          await print(
            io,
            (await api.call('GET', `/${encodeURIComponent(positionals[1]!)}`)) as StoreObject,
            json,
          );
          return EXIT_OK;
        case 'archive':
          await print(
            io,
            (await api.call('POST', `/${encodeURIComponent(positionals[1]!)}/archive`)) as StoreObject,
            json,
          );
          return EXIT_OK;
        default: {
          const id = positionals[1]!;
          const shown = (await api.call('GET', `/${encodeURIComponent(id)}`)) as StoreObject;
          if (values.yes !== true) {
            if (!canAsk(io)) {
              throw new CliUsageError(
                `stores: deleting memory store ${id} erases its memories and versions for good: give --yes to confirm`,
                { hint: 'On a terminal, stores delete asks instead.' },
              );
            }
            const question = `This erases memory store ${id} (${JSON.stringify(shown.name)}) of ${redactStoreUrl(url)} for good: its memories and versions.\nType the store's id to confirm: `;
            if (!(await confirmed(io, question, id))) {
              await write(io.stderr, 'memdir: stores: not confirmed; nothing was erased\n');
              return EXIT_FAILED;
            }
          }
          const deleted = await api.call('DELETE', `/${encodeURIComponent(id)}`);
          if (json) await write(io.stdout, `${JSON.stringify(deleted)}\n`);
          else
            await write(
              io.stdout,
              `deleted memory store ${id} (${shown.name}): its memories and versions are erased\n`,
            );
          return EXIT_OK;
        }
      }
    } finally {
      await api.close();
    }
  }
}

/** `--metadata KEY=VALUE` flags as an object (a later key wins), or undefined when none. */
function metadataOf(flags: unknown): Record<string, string> | undefined {
  if (!Array.isArray(flags) || flags.length === 0) return undefined;
  const metadata: Record<string, string> = {};
  for (const flag of flags as string[]) {
    const at = flag.indexOf('=');
    if (at <= 0) throw usage(`--metadata expects KEY=VALUE, got ${JSON.stringify(flag)}`);
    metadata[flag.slice(0, at)] = flag.slice(at + 1);
  }
  return metadata;
}

async function print(io: CliIo, store: StoreObject, json: boolean): Promise<void> {
  if (json) {
    await write(io.stdout, `${JSON.stringify(store)}\n`);
    return;
  }
  const rows: [string, string][] = [
    ['id', store.id],
    ['name', store.name],
    ['description', store.description],
    ['created', store.created_at],
    ['updated', store.updated_at],
    ['archived', store.archived_at ?? '-'],
    ...Object.entries(store.metadata).map(([key, value]): [string, string] => [`metadata.${key}`, value]),
    ...(store.memdir_usage === undefined
      ? []
      : ([
          ['memories', String(store.memdir_usage.memories)],
          ['bytes', String(store.memdir_usage.bytes)],
          ['versions', String(store.memdir_usage.versions)],
        ] as [string, string][])),
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  await write(io.stdout, rows.map(([key, value]) => `${key.padEnd(width)}  ${value}\n`).join(''));
}

/** The API's handlers over the store at `url`, reached with a grant of this process's own. */
function storesApi(root: MemoryStore, url: string, options: ReturnType<typeof storeOptions>, io: CliIo) {
  const token = randomBytes(24).toString('base64url');
  const grant = {
    name: 'memdir-cli',
    namespace: '',
    mode: 'read-write' as const,
    sha256: createHash('sha256').update(token, 'utf8').digest('hex'),
    stores: true,
  };
  const server = createMemdirServer({
    tokens: () => new TokenTable([grant]),
    ready: async () => true,
    ratePerSecond: 1_000_000,
    burst: 1_000_000,
  });
  const opened = new Map<string, Promise<MemoryStore>>();
  const open = (namespace: string) => {
    let store = opened.get(namespace);
    if (store === undefined) {
      store = openStore(url, { ...options, namespace }, { cwd: io.cwd });
      opened.set(namespace, store);
    }
    return store as Promise<MemdirStore>;
  };
  mountMemoryStores(server, {
    open,
    erase: async (namespace) => {
      const driver = storeDriver(root);
      if (driver?.dropNamespace === undefined) {
        throw new CliUsageError(
          `stores: ${redactStoreUrl(url)} cannot erase a namespace (its driver has no dropNamespace)`,
        );
      }
      await createMemoryAdmin(driver).dropNamespace(namespace);
      const store = opened.get(namespace);
      opened.delete(namespace);
      await store?.then((s) => s.close()).catch(() => {});
    },
  });
  return {
    async call(method: string, path: string, body?: unknown): Promise<unknown> {
      const response = await server.fetch(
        new Request(`http://localhost/v1/memory_stores${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      const answer = (await response.json()) as { error?: { message?: string } };
      if (!response.ok) {
        throw new StoresFailure(
          answer.error?.message ?? `the API answered ${response.status}`,
          response.status,
        );
      }
      return answer;
    },
    async close() {
      for (const store of opened.values()) await store.then((s) => s.close()).catch(() => {});
    },
  };
}

/** A refusal of the API (a missing store, a bad name): the command fails with its message. */
export class StoresFailure extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}
