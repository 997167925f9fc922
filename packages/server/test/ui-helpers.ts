// What the inspector's browser tests share: a real memdir server with the inspector on a real HTTP
// listener (127.0.0.1, a free port), over a real store, and Debian's Chromium.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import type { MemdirStore, MemoryAdmin } from '@memdir/core';
import { createFsAdmin, createFsStore } from '@memdir/fs';
import { createPostgresAdmin, createPostgresStore } from '@memdir/postgres';
import { databaseUrl } from '@memdir/test-support';
import pg from 'pg';
import { type Browser, chromium } from 'playwright-core';
import { createMemdirServer, mountInspector, TokenTable } from '../src/index.js';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');

/** The tokens of the tests: a writer and a reader of one namespace, and a `--stores` operator. */
export const TOKENS = {
  alice: 'memdir_alice_0123456789',
  reader: 'memdir_reader_0123456789',
  ops: 'memdir_ops_0123456789',
};

export type Backend = 'fs' | 'postgres';

export interface Inspector {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** The store of a namespace, as the inspector sees it. */
  store(namespace: string): Promise<MemdirStore>;
  close(): Promise<void>;
}

/** A server with the inspector over a fresh `backend` store whose namespace for alice is `namespace`. */
export async function startInspector(backend: Backend, namespace: string): Promise<Inspector> {
  const tokens = new TokenTable([
    { name: 'alice', namespace, mode: 'read-write', sha256: sha(TOKENS.alice) },
    { name: 'reader', namespace, mode: 'read-only', sha256: sha(TOKENS.reader) },
    { name: 'ops', namespace, mode: 'read-write', sha256: sha(TOKENS.ops), stores: true },
  ]);
  let root: string | undefined;
  let open: (name: string) => MemdirStore;
  let admin: MemoryAdmin;
  const schema = `ui_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  if (backend === 'fs') {
    const folder = await mkdtemp(join(tmpdir(), 'memdir-ui-'));
    root = folder;
    open = (name) => createFsStore({ root: folder, namespace: name });
    admin = createFsAdmin({ root: folder });
  } else {
    const connectionString = databaseUrl();
    open = (name) => createPostgresStore({ connectionString, schema, namespace: name });
    admin = createPostgresAdmin({ connectionString, schema });
  }
  const stores = new Map<string, MemdirStore>();
  const store = async (name: string) => {
    let found = stores.get(name);
    if (found === undefined) {
      found = open(name);
      stores.set(name, found);
    }
    return found;
  };
  const server = createMemdirServer({ tokens: () => tokens, ready: async () => true });
  mountInspector(server, { tokens: () => tokens, store, admin });
  const http = createServer(getRequestListener((request) => server.fetch(request)));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    store,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      for (const [name, opened] of stores) {
        await admin.dropNamespace(name);
        await opened.close();
      }
      await admin.close();
      if (root !== undefined) await rm(root, { recursive: true, force: true });
      if (backend === 'postgres') {
        const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      }
    },
  };
}

/** Debian's Chromium, headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}

/** The headers every page of the inspector carries, exactly. */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};
