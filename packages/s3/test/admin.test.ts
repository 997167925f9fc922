// The admin on S3, where only the bucket can tell: a drop leaves no object under the namespace's base
// and every neighbour's objects as they were, whatever memdir kept there (lease, totals, touched
// reads, history, nested namespaces); listNamespaces gives the names' byte order although S3 lists
// `a.b/` before `a/`; usage is exact whoever wrote the namespace; a sweep keeps a file changed since
// it was found stale and cleans up after itself. The conformance suite's `admin` group checks the rest.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { MemoryStore } from '@memdir/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3Admin, createS3Driver, createS3Store, type S3StoreOptions } from '../src/index.js';
import { bucket, clearPrefix, keysUnder, rawClient, storeOptions, uniquePrefix } from './helpers.js';
import { kindOf, tap } from './wire.js';

const raw = rawClient();
const prefixes: string[] = [];
const stores: MemoryStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  for (const prefix of prefixes) await clearPrefix(raw, `${prefix}/`);
  raw.destroy();
});

function freshPrefix(label: string): string {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  return prefix;
}

function open(prefix: string, namespace: string | undefined, options: Partial<S3StoreOptions> = {}) {
  const store = createS3Store({ ...storeOptions(prefix), namespace, ...options });
  stores.push(store);
  return store;
}

const create = (store: MemoryStore, path: string, file_text: string) =>
  store.create({ command: 'create', path, file_text });

async function put(key: string, body: string): Promise<void> {
  await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

describe('dropNamespace on S3', () => {
  it('leaves no object under the base (files, nested namespaces, lease, totals, touched reads, history) and every neighbour as it was', async () => {
    const prefix = freshPrefix('admin-drop');
    const doomed = open(prefix, 'drop', {
      quota: { maxFiles: 100 },
      expire: { afterDays: 1, refreshOnRead: true },
    });
    for (let index = 0; index < 12; index++) await create(doomed, `/memories/f${index}.md`, `file ${index}`);
    await create(doomed, '/memories/.hidden/h.md', 'h');
    await doomed.view({ command: 'view', path: '/memories/f1.md' });
    // A nested namespace's file, and what a crashed writer and the history leave: put there by hand.
    await put(`${prefix}/namespaces/drop/namespaces/inner/memories/in.md`, 'nested');
    await put(`${prefix}/namespaces/drop/.memdir/lease`, '{"memdir":"lease"}');
    await put(`${prefix}/namespaces/drop/.memdir/history/memver_0000000000000001`, 'v');
    for (const name of ['drop-x', 'dropx', 'dro', 'drop.1', 'drop+']) {
      await create(open(prefix, name, { quota: { maxFiles: 10 } }), '/memories/n.md', name);
    }
    await create(open(prefix, undefined), '/memories/root.md', 'root');
    const everything = await keysUnder(raw, `${prefix}/`);
    const base = `${prefix}/namespaces/drop/`;
    const neighbours = everything.filter((key) => !key.startsWith(base));
    expect(everything.filter((key) => key.startsWith(base)).length).toBeGreaterThan(15);

    // A drop stopped after one batch (a crash), then finished by an admin.
    const driver = createS3Driver(storeOptions(prefix));
    expect(await driver.dropNamespace!('drop', { batch: 4 })).toEqual({ removed: 4, done: false });
    await driver.close();
    const admin = createS3Admin({ ...storeOptions(prefix), batch: 5 });
    const { removed } = await admin.dropNamespace('drop');
    expect(removed + 4).toBe(everything.length - neighbours.length);
    expect(await keysUnder(raw, base)).toEqual([]);
    expect(await keysUnder(raw, `${prefix}/`)).toEqual(neighbours);
    expect((await admin.listNamespaces()).namespaces).toEqual(['dro', 'drop+', 'drop-x', 'drop.1', 'dropx']);
    await admin.close();

    // The store still open on it sees it empty and writes to it again, its quota counted afresh.
    await expect(doomed.view({ command: 'view', path: '/memories/f1.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await create(doomed, '/memories/again.md', 'again');
    expect((await createS3Admin(storeOptions(prefix)).usage('drop')).files).toBe(1);
  });
});

describe('listNamespaces on S3', () => {
  it('gives the names in byte order, a page at a time, where S3 lists a.b/ before a/; namespaces holding only memdir objects are left out; one LIST per namespace looked into', async () => {
    const prefix = freshPrefix('admin-list');
    const names = ['a', 'a+b', 'a-b', 'a.b', 'a.b.c', 'a0', 'ab', 'b'];
    for (const name of names) await create(open(prefix, name), '/memories/n.md', name);
    // Only a leftover lease and quota totals: holds nothing.
    await put(`${prefix}/namespaces/a.c/.memdir/lease`, '{}');
    await put(`${prefix}/namespaces/a.c/.memdir/totals`, '{}');
    // Only a nested namespace that holds a file: holds something.
    await put(`${prefix}/namespaces/c/namespaces/inner/memories/in.md`, 'nested');
    const sorted = [...names, 'c'].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));

    const client = rawClient();
    const wire = tap(client, bucket);
    const admin = createS3Admin({ ...storeOptions(prefix), client });
    for (const limit of [1, 2, 3, 100]) {
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await admin.listNamespaces({ limit, cursor });
        expect(page.namespaces.length).toBeLessThanOrEqual(limit);
        paged.push(...page.namespaces);
        cursor = page.next ?? undefined;
      } while (cursor !== undefined);
      expect(paged).toEqual(sorted);
    }
    expect((await admin.listNamespaces({ prefix: 'a.' })).namespaces).toEqual(['a.b', 'a.b.c']);
    expect((await admin.listNamespaces({ prefix: 'a', cursor: 'a', limit: 2 })).namespaces).toEqual([
      'a+b',
      'a-b',
    ]);

    // A page of 3 out of 10 namespaces: one folder listing, and one look into each name seen.
    wire.reset();
    await admin.listNamespaces({ prefix: 'a', limit: 3 });
    const kinds = wire.requests.map(kindOf);
    expect(kinds.every((kind) => kind === 'LIST')).toBe(true);
    expect(kinds.length).toBeLessThanOrEqual(1 + names.length + 1);
    await admin.close();
    client.destroy();
  });
});

describe('usage on S3', () => {
  it('is exact for a namespace written with and without a quota, in one round trip below 1,000 files and versions', async () => {
    const prefix = freshPrefix('admin-usage');
    const limited = open(prefix, 't', { quota: { maxBytes: 1_000 } });
    const plain = open(prefix, 't');
    await create(limited, '/memories/a.md', 'aaaa');
    await create(plain, '/memories/b.md', 'bb');
    await plain.delete({ command: 'delete', path: '/memories/a.md' });
    await create(plain, '/memories/c/d.md', '\u00e9');
    const client = rawClient();
    const wire = tap(client, bucket);
    const admin = createS3Admin({ ...storeOptions(prefix), client });
    wire.reset();
    // Versions: a.md and b.md created, a.md deleted, c/d.md created.
    expect(await admin.usage('t')).toMatchObject({ files: 2, bytes: 4, versions: 4 });
    // The files' listing and the history's, sent together.
    expect(wire.requests.map(kindOf)).toEqual(['LIST', 'LIST']);
    await admin.close();
    client.destroy();
  });
});

describe('refreshOnRead on S3', () => {
  it('a view of a file sends its marker beside the GET (2 requests, sent together); without the option, the GET alone', async () => {
    const prefix = freshPrefix('admin-touch');
    const client = rawClient();
    const wire = tap(client, bucket);
    const reader = open(prefix, 'r', { client, expire: { afterDays: 1, refreshOnRead: true } });
    const plain = open(prefix, 'r', { client });
    await create(plain, '/memories/a.md', 'a');
    wire.reset();
    await reader.view({ command: 'view', path: '/memories/a.md' });
    expect(wire.requests.map(kindOf).sort()).toEqual(['GET', 'PUT']);
    expect(wire.requests.find((request) => request.method === 'PUT')?.key).toMatch(
      /\/namespaces\/r\/\.memdir\/touched\/[0-9a-f]{32}$/,
    );
    wire.reset();
    await plain.view({ command: 'view', path: '/memories/a.md' });
    expect(wire.requests.map(kindOf)).toEqual(['GET']);
    client.destroy();
  });
});

describe('sweep on S3', () => {
  it('expires in batches, resumes where the last batch stopped, keeps the quota totals true and leaves no marker of a removed file', async () => {
    const prefix = freshPrefix('admin-sweep');
    const store = open(prefix, 's', {
      quota: { maxFiles: 100 },
      expire: { afterDays: 1, refreshOnRead: true },
    });
    // Read early (a marker older than the expiry, of a file and of a missing path), then read late.
    await create(store, '/memories/old0.md', 'old');
    await store.view({ command: 'view', path: '/memories/old0.md' });
    await store.view({ command: 'view', path: '/memories/missing.md' }).catch(() => {});
    for (let index = 1; index < 7; index++) await create(store, `/memories/old${index}.md`, 'old');
    const admin = createS3Admin({ ...storeOptions(prefix), batch: 2 });
    const { lastChangeAt } = await admin.usage('s');
    await new Promise((resolve) => setTimeout(resolve, 40));
    await store.view({ command: 'view', path: '/memories/old3.md' });
    await create(store, '/memories/new.md', 'new');
    const report = await admin.sweep({
      expire: { afterDays: 1 },
      now: Date.parse(lastChangeAt!) + 86_400_000 + 5,
    });
    // Four batches of at most 2; the file read late is kept, and so is its marker, the only one left.
    expect(report.expired).toBe(6);
    const left = await keysUnder(raw, `${prefix}/namespaces/s/`);
    expect(left.filter((key) => key.includes('/memories/'))).toEqual([
      `${prefix}/namespaces/s/memories/new.md`,
      `${prefix}/namespaces/s/memories/old3.md`,
    ]);
    expect(left.filter((key) => key.includes('/.memdir/touched/'))).toHaveLength(1);
    // The totals gave the expired files back: 98 more fit, not 92.
    for (let index = 0; index < 98; index++) await create(store, `/memories/n${index}.md`, 'n');
    await expect(create(store, '/memories/one-too-many.md', 'x')).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    await admin.close();
  });

  it('keeps a file changed after it was found stale (the removal is conditional on the version listed)', async () => {
    const prefix = freshPrefix('admin-sweep-race');
    const store = open(prefix, 'r');
    await create(store, '/memories/a.md', 'one');
    await create(store, '/memories/b.md', 'two');
    const client = rawClient();
    // The file is edited just before the sweep's freeze of it reaches the server.
    const handler = client.config.requestHandler as unknown as {
      handle: (request: { method: string; path: string }, options?: unknown) => Promise<unknown>;
    };
    const original = handler.handle.bind(handler);
    let edits = 0;
    handler.handle = async (request, options) => {
      if (
        request.method === 'PUT' &&
        decodeURIComponent(request.path).endsWith('memories/a.md') &&
        edits++ === 0
      ) {
        await store.str_replace({
          command: 'str_replace',
          path: '/memories/a.md',
          old_str: 'one',
          new_str: 'uno',
        });
      }
      return original(request, options);
    };
    const driver = createS3Driver({ ...storeOptions(prefix), client }).namespace('r');
    const swept = await driver.sweep!({ op: 'sweep-op', expireBefore: Date.now() + 60_000, batch: 10 });
    expect(edits).toBe(1);
    expect(swept).toEqual({ expired: 1, pruned: 0, done: true });
    expect(await store.view({ command: 'view', path: '/memories' })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n3B\t/memories\n3B\t/memories/a.md",
    );
    expect(await store.view({ command: 'view', path: '/memories/a.md' })).toContain('uno');
    await driver.close();
    client.destroy();
  });
});
