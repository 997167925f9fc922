// The memory stores API section (issue 31): on PostgreSQL and Redis, 2,000 memories listed with
// view=basic, 20 pages of 100, through the API (the server's fetch handler in process, JSON and all)
// against the driver's own record listing of the same pages, interleaved in the same run. Goal: at
// most 2x. Then Anthropic's `SessionMemoryStores` on the same store: a download and a sync that finds
// nothing changed (api-sync.ts; goal: it moves no content); and the doors' changes (api-doors.ts).
import { createHash } from 'node:crypto';
import { createMemoryAdmin, type MemdirStore, storeDriver } from '@memdir/core';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { createMemdirServer, mountMemoryStores, TokenTable } from '@memdir/server';
import { startServers } from '@memdir/test-support';
import pg from 'pg';
import { compare } from '../interleave.js';
import { doorRows } from './api-doors.js';
import { quietSyncRows } from './api-sync.js';
import type { BenchSection, SectionContext } from './section.js';

const MEMORIES = 2_000;
const PAGE = 100;
const TOKEN = 'memdir_bench_api';

/** The API on `root` (a store without namespace), and a store made through it holding 2,000 memories. */
async function setUp(root: MemdirStore, open: (namespace: string) => MemdirStore) {
  const opened = new Map<string, MemdirStore>();
  const backend = {
    open: async (namespace: string) => {
      let store = opened.get(namespace);
      if (store === undefined) {
        store = open(namespace);
        opened.set(namespace, store);
      }
      return store;
    },
    erase: async (namespace: string) => {
      await createMemoryAdmin(storeDriver(root)!).dropNamespace(namespace);
    },
  };
  const tokens = new TokenTable([
    {
      name: 'bench',
      namespace: '=stores',
      mode: 'read-write',
      stores: true,
      sha256: createHash('sha256').update(TOKEN).digest('hex'),
    },
  ]);
  const server = createMemdirServer({
    tokens: () => tokens,
    ready: async () => true,
    ratePerSecond: 1e6,
    burst: 1e6,
  });
  mountMemoryStores(server, backend);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await server.fetch(
      new Request(`http://memdir.bench${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    if (response.status !== 200)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const made = await call('POST', '/v1/memory_stores', { name: 'bench' });
  const id = made['id'] as string;
  const store = await backend.open(id);
  for (let index = 0; index < MEMORIES; index++) {
    await store.records.create(
      `/memories/m/${String(index).padStart(5, '0')}.md`,
      `memory ${index}\n`.repeat(4),
    );
  }
  const handler = (request: Request) => server.fetch(request);
  return {
    id,
    store,
    call,
    handler,
    close: () => Promise.all([...opened.values()].map((opened) => opened.close())),
  };
}

/** 20 pages of 100 through the API, and through `records.list`, interleaved. */
async function measure(context: SectionContext, label: string, setup: Awaited<ReturnType<typeof setUp>>) {
  const apiPages = async () => {
    let page: string | null = null;
    let pages = 0;
    do {
      const query: string = page === null ? '' : `&page=${page}`;
      const body = await setup.call('GET', `/v1/memory_stores/${setup.id}/memories?limit=${PAGE}${query}`);
      page = body['next_page'] as string | null;
      pages++;
    } while (page !== null);
    return pages;
  };
  const recordPages = async () => {
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await setup.store.records.list({ path: '/memories', limit: PAGE, cursor });
      cursor = page.next ?? undefined;
      pages++;
    } while (cursor !== undefined);
    return pages;
  };
  context.log(
    `[api] ${label}: ${await apiPages()} API pages, ${await recordPages()} record pages per listing`,
  );
  const rounds = context.quick ? 2 : 5;
  const count = context.quick ? 2 : 5;
  const result = await compare({ api: apiPages, records: recordPages }, rounds, count);
  const ratio = result.api.p50 / result.records.p50;
  return `| ${label} | ${(result.api.p50 / 1000).toFixed(1)} | ${(result.records.p50 / 1000).toFixed(1)} | ${ratio.toFixed(2)}x | ${ratio <= 2 ? 'PASS' : 'ABOVE'} |`;
}

/** What each store's run gives the report. */
interface StoreRows {
  listing: string;
  sync: string[];
  doors: string[];
}

async function postgres(context: SectionContext): Promise<StoreRows> {
  const servers = await startServers(['postgres'], { log: context.log });
  const schema = `memdir_bench_api_${process.pid}`;
  const pool = new pg.Pool({ connectionString: servers.env['DATABASE_URL']!, max: 4 });
  pool.on('error', () => {});
  const root = createPostgresStore({ pool, schema });
  let setup: Awaited<ReturnType<typeof setUp>> | undefined;
  try {
    await root.setup();
    context.log('[api] PostgreSQL: seeding 2,000 memories');
    setup = await setUp(root, (namespace) => createPostgresStore({ pool, schema, namespace }));
    const listing = await measure(context, 'PostgreSQL', setup);
    const sync = await quietSyncRows(context, 'PostgreSQL', setup.id, TOKEN, setup.handler);
    const url = new URL(servers.env['DATABASE_URL']!);
    url.searchParams.set('schema', `${schema}_doors`);
    const doors = await doorRows(context, 'PostgreSQL', url.href).finally(() =>
      pool.query(`DROP SCHEMA IF EXISTS "${schema}_doors" CASCADE`).catch(() => {}),
    );
    return { listing, sync, doors };
  } finally {
    await setup?.close().catch(() => {});
    await root.close().catch(() => {});
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await pool.end().catch(() => {});
    await servers.stop();
  }
}

async function redis(context: SectionContext): Promise<StoreRows> {
  const servers = await startServers(['redis'], { log: context.log });
  const url = servers.env['REDIS_URL']!;
  const keyPrefix = `memdir-bench-api-${process.pid}:`;
  const root = createRedisStore({ url, keyPrefix });
  let setup: Awaited<ReturnType<typeof setUp>> | undefined;
  try {
    context.log('[api] Redis: seeding 2,000 memories');
    setup = await setUp(root, (namespace) => createRedisStore({ url, keyPrefix, namespace }));
    const listing = await measure(context, 'Redis', setup);
    const sync = await quietSyncRows(context, 'Redis', setup.id, TOKEN, setup.handler);
    const doors = await doorRows(context, 'Redis', `${url}?keyPrefix=${keyPrefix}doors:`);
    return { listing, sync, doors };
  } finally {
    await setup?.close().catch(() => {});
    await root.close().catch(() => {});
    const { Redis } = await import('ioredis');
    const admin = new Redis(url);
    admin.on('error', () => {});
    const keys = await admin.keys(`${keyPrefix}*`);
    for (let index = 0; index < keys.length; index += 500) await admin.del(...keys.slice(index, index + 500));
    admin.disconnect();
    await servers.stop();
  }
}

export function apiSection(): BenchSection {
  return {
    id: 'api',
    summary:
      "the memory stores API: 2,000 memories listed, 20 pages of 100, against the driver record listing; Anthropic's SessionMemoryStores download and quiet sync; a create and an update against the memory tool over MCP",
    async run(context) {
      const results = [await postgres(context), await redis(context)];
      return [
        '## The memory stores API',
        '',
        `${MEMORIES} memories listed with \`view=basic\`, ${MEMORIES / PAGE} pages of ${PAGE}: through the API (the server's fetch handler in process: routing, authentication, the registry read, JSON) against \`store.records.list\` of the same pages, interleaved; ms per whole listing.`,
        '',
        '| store | API p50 (ms) | records p50 (ms) | ratio | goal: at most 2x |',
        '|---|---:|---:|---:|---|',
        ...results.map((result) => result.listing),
        '',
        `Anthropic's \`SessionMemoryStores\` (\`@anthropic-ai/sdk\` 1.17.0) on the same store of ${MEMORIES} memories: its download, then a sync with nothing changed on either side; every request of its client counted on the way into the server's fetch handler (in process). Content: requests whose body or answer holds memory content, and those bytes.`,
        '',
        '| store | step | requests | with content | content bytes | bytes sent | bytes received | ms | requests by route | goal: no content when nothing changed |',
        '|---|---|---:|---:|---:|---:|---:|---:|---|---|',
        ...results.flatMap((result) => result.sync),
        '',
        'A create (8 lines) and an update of one memory through the API against the same change through the memory tool over MCP (`create`, `str_replace`), on one `memdir serve --http` process, HTTP and all; ms per call, interleaved.',
        '',
        '| store | change | API p50 (ms) | memory tool p50 (ms) | ratio | goal: at most 1.5x |',
        '|---|---|---:|---:|---:|---|',
        ...results.flatMap((result) => result.doors),
        '',
      ].join('\n');
    },
  };
}
