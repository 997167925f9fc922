// The HTTP requests each command sends, counted at the client's request handler (every attempt the
// SDK makes), after the startup probe. The bench measures round trips and time; this pins the count.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { copyStore, createInMemoryDriver, createMemoryStore, type MemoryStore } from '@memdir/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store } from '../src/index.js';
import { bucket, clearPrefix, leftovers, rawClient, storeOptions, uniquePrefix } from './helpers.js';
import { kindOf, tap, type Wire } from './wire.js';

const admin = rawClient();
const client = rawClient();
const wire: Wire = tap(client, bucket);
const prefix = uniquePrefix('requests');
let store: MemoryStore;

beforeAll(async () => {
  // History off: these are the counts without it (the block at the end pins those with it).
  store = createS3Store({ ...storeOptions(prefix), client, history: false });
  await store.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\n' });
  await store.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b' });
});
afterAll(async () => {
  await store.close();
  expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  await clearPrefix(admin, `${prefix}/`);
  client.destroy();
  admin.destroy();
});

/** The kinds of request (GET, HEAD, PUT, LIST, COPY, DELETE-MANY...) one command sends, in order. */
async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
  wire.reset();
  await run();
  return wire.requests.map(kindOf);
}

describe('requests per command', () => {
  it('view of a file: 1 (a GET)', async () => {
    expect(await requestsOf(() => store.view({ command: 'view', path: '/memories/notes/a.md' }))).toEqual([
      'GET',
    ]);
  });

  it('view of a directory: 2 in one round trip (a GET beside the listing), 1 for /memories', async () => {
    expect(await requestsOf(() => store.view({ command: 'view', path: '/memories/notes' }))).toEqual([
      'LIST',
      'GET',
    ]);
    expect(await requestsOf(() => store.view({ command: 'view', path: '/memories' }))).toEqual(['LIST']);
  });

  it('view of a missing path: 2', async () => {
    const requests = await requestsOf(() =>
      store.view({ command: 'view', path: '/memories/missing.md' }).catch(() => undefined),
    );
    expect(requests).toEqual(['GET', 'LIST']);
  });

  it('create over a file this store has seen: 1 (PUT If-Match on the version seen)', async () => {
    expect(
      await requestsOf(() =>
        store.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b2' }),
      ),
    ).toEqual(['PUT']);
  });

  // Records: a file written over keeps its id and creation time, so a version only a listing found
  // is read once (a HEAD), as with history; before records this was 4 requests.
  it('create over a file this store has not seen: 5 (lease, one listing, a HEAD for its id, PUT If-Match, release)', async () => {
    await admin.send(
      new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/notes/unseen.md`, Body: 'u' }),
    );
    expect(
      await requestsOf(() =>
        store.create({ command: 'create', path: '/memories/notes/unseen.md', file_text: 'seen now' }),
      ),
    ).toEqual(['PUT', 'LIST', 'HEAD', 'PUT', 'DELETE']);
  });

  it('str_replace and insert: 2 each (GET, PUT If-Match)', async () => {
    expect(
      await requestsOf(() =>
        store.str_replace({
          command: 'str_replace',
          path: '/memories/notes/a.md',
          old_str: 'beta',
          new_str: 'gamma',
        }),
      ),
    ).toEqual(['GET', 'PUT']);
    expect(
      await requestsOf(() =>
        store.insert({ command: 'insert', path: '/memories/notes/a.md', insert_line: 0, insert_text: 'top' }),
      ),
    ).toEqual(['GET', 'PUT']);
  });

  it('a new file: 4 (the lease, one listing for its folder and its name, the PUT, the release)', async () => {
    expect(
      await requestsOf(() =>
        store.create({ command: 'create', path: '/memories/notes/c.md', file_text: 'c' }),
      ),
    ).toEqual(['PUT', 'LIST', 'PUT', 'DELETE']);
    expect(
      await requestsOf(() => store.create({ command: 'create', path: '/memories/top.md', file_text: 't' })),
    ).toEqual(['PUT', 'LIST', 'PUT', 'DELETE']);
    // In a folder that does not exist yet, at depth 3: a HEAD of the grandparent besides.
    expect(
      await requestsOf(() => store.create({ command: 'create', path: '/memories/x/y/z.md', file_text: 'z' })),
    ).toEqual(['PUT', 'LIST', 'HEAD', 'PUT', 'DELETE']);
  });

  it('delete of a file: 3 (the lease, one listing, one DeleteObjects with the lease in it)', async () => {
    const requests = await requestsOf(() =>
      store.delete({ command: 'delete', path: '/memories/notes/c.md' }),
    );
    expect(requests).toEqual(['PUT', 'LIST', 'DELETE-MANY']);
  });

  it('rename of a file within its folder: 6 requests in 5 round trips', async () => {
    const requests = await requestsOf(() =>
      store.rename({
        command: 'rename',
        old_path: '/memories/notes/b.md',
        new_path: '/memories/notes/b2.md',
      }),
    );
    // The lease (its journal names the move); a HEAD of the source (its id and record, which the
    // copy carries) beside one listing of the target; the copy; the tombstone; DeleteObjects of
    // the tombstone and the lease.
    expect(requests.sort()).toEqual(['COPY', 'DELETE-MANY', 'HEAD', 'LIST', 'PUT', 'PUT']);
  });

  it('25 concurrent new files from one store share one acquisition of the lease', async () => {
    await requestsOf(() =>
      Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          store.create({ command: 'create', path: `/memories/batch/f${index}.md`, file_text: `${index}` }),
        ),
      ),
    );
    // The batch is answered before the lease goes, in case its callers go on: wait for the release.
    const leases = () => wire.requests.filter((request) => request.key.endsWith('.memdir/lease'));
    for (let wait = 0; wait < 100 && leases().length < 2; wait++) await new Promise((r) => setTimeout(r, 20));
    expect(leases().map(kindOf)).toEqual(['PUT', 'DELETE']);
    // The lease, one listing of their folder for all, a PUT per file, the release: 28 where 25
    // lone creates take 100.
    expect(wire.requests.length).toBe(28);
  });

  it('stores for 20 tenants on one client: no probe after the first, 1 request per view, 4 per new file', async () => {
    const tenants = Array.from({ length: 20 }, (_, index) =>
      createS3Store({ ...storeOptions(prefix), client, namespace: `tenant-${index}`, history: false }),
    );
    const requests = await requestsOf(async () => {
      for (const tenant of tenants) {
        await tenant.view({ command: 'view', path: '/memories' });
        await tenant.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
      }
    });
    expect(requests.length).toBe(20 * 5);
    for (const tenant of tenants) await tenant.close();
  });

  it('100 concurrent inserts into one file from one store share writes (group commit)', async () => {
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'log' });
    const requests = await requestsOf(() =>
      Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          store.insert({
            command: 'insert',
            path: '/memories/log.md',
            insert_line: 1,
            insert_text: `line ${index}`,
          }),
        ),
      ),
    );
    expect(requests.length).toBeLessThanOrEqual(20);
    const content = await store.view({ command: 'view', path: '/memories/log.md' });
    expect(content.split('\n').length).toBe(1 + 101);
  });

  it('a copy of 30 new files reads none back (it verifies from one listing); run again, it sends 2 listings and nothing else', async () => {
    const source = createMemoryStore(createInMemoryDriver());
    for (let index = 0; index < 30; index++) {
      const path = `/memories/c${index % 3}/f${index}.md`;
      await source.create({ command: 'create', path, file_text: `file ${index} \u{1f600}` });
    }
    const target = createS3Store({ ...storeOptions(prefix), client, history: false, namespace: 'copy' });
    try {
      const first = await requestsOf(async () =>
        expect(await copyStore(source, target)).toMatchObject({ copied: 30, verified: true, mismatches: [] }),
      );
      expect(first.filter((kind) => kind === 'GET')).toEqual([]);
      const again = await requestsOf(async () =>
        expect(await copyStore(source, target)).toMatchObject({ identical: 30, verified: true }),
      );
      expect(again).toEqual(['LIST', 'LIST']);
    } finally {
      await target.close();
    }
  });
});

describe('requests per command with a quota: at most one more', () => {
  let quoted: MemoryStore;
  const quotaPrefix = uniquePrefix('requests-quota');

  beforeAll(async () => {
    quoted = createS3Store({
      ...storeOptions(quotaPrefix),
      client,
      quota: { maxBytes: 10_000, maxFiles: 100 },
      history: false,
    });
    // The first change of a namespace reads its totals (here: counts its files and creates them).
    await quoted.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\n' });
  });
  afterAll(async () => {
    await quoted.close();
    await clearPrefix(admin, `${quotaPrefix}/`);
  });

  it('a new file: 5 (the reservation in the totals before the PUT)', async () => {
    expect(
      await requestsOf(() =>
        quoted.create({ command: 'create', path: '/memories/notes/c.md', file_text: 'c' }),
      ),
    ).toEqual(['PUT', 'LIST', 'PUT', 'PUT', 'DELETE']);
  });

  it('create over a file seen: 2; shorter: the totals after the PUT', async () => {
    expect(
      await requestsOf(() =>
        quoted.create({ command: 'create', path: '/memories/notes/c.md', file_text: 'ccc' }),
      ),
    ).toEqual(['PUT', 'PUT']);
    expect(
      await requestsOf(() =>
        quoted.create({ command: 'create', path: '/memories/notes/c.md', file_text: 'c' }),
      ),
    ).toEqual(['PUT', 'PUT']);
  });

  it('str_replace and insert: 3 (GET, the totals, PUT); one that changes no size: 2', async () => {
    expect(
      await requestsOf(() =>
        quoted.insert({
          command: 'insert',
          path: '/memories/notes/a.md',
          insert_line: 0,
          insert_text: 'top',
        }),
      ),
    ).toEqual(['GET', 'PUT', 'PUT']);
    expect(
      await requestsOf(() =>
        quoted.str_replace({
          command: 'str_replace',
          path: '/memories/notes/a.md',
          old_str: 'beta',
          new_str: 'BETA',
        }),
      ),
    ).toEqual(['GET', 'PUT']);
  });

  it('delete of a file: 5 (the file frozen at the version given back, the totals after the DeleteObjects); rename: 6', async () => {
    expect(
      await requestsOf(() =>
        quoted.rename({
          command: 'rename',
          old_path: '/memories/notes/c.md',
          new_path: '/memories/notes/d.md',
        }),
      ),
    ).toHaveLength(6);
    expect(
      await requestsOf(() => quoted.delete({ command: 'delete', path: '/memories/notes/d.md' })),
    ).toEqual(['PUT', 'LIST', 'PUT', 'DELETE-MANY', 'PUT']);
  });
});

// History on (the default): each change writes its version object (a PUT If-None-Match at the next
// id) before its commit, one request more than without. A delete and a rename read the file (HEAD,
// GET) in place of the listing of its path, so they too cost one more.
describe('requests per command with history: one more', () => {
  let versioned: MemoryStore;
  const historyPrefix = uniquePrefix('requests-history');

  beforeAll(async () => {
    versioned = createS3Store({ ...storeOptions(historyPrefix), client });
    // The first change of a namespace in a process lists its newest version id (one LIST).
    await versioned.create({ command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\n' });
    await versioned.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b' });
  });
  afterAll(async () => {
    await versioned.close();
    await clearPrefix(admin, `${historyPrefix}/`);
  });

  const versionPuts = () =>
    wire.requests.filter((request) => request.key.includes('.memdir/history/') && kindOf(request) === 'PUT');

  it('a new file: 5 (the lease, the listing, the version, the PUT, the release)', async () => {
    expect(
      await requestsOf(() =>
        versioned.create({ command: 'create', path: '/memories/notes/c.md', file_text: 'c' }),
      ),
    ).toEqual(['PUT', 'LIST', 'PUT', 'PUT', 'DELETE']);
    expect(versionPuts()).toHaveLength(1);
  });

  it('create over a file this store has seen: 2 (the version, the PUT If-Match)', async () => {
    expect(
      await requestsOf(() =>
        versioned.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b2' }),
      ),
    ).toEqual(['PUT', 'PUT']);
  });

  it('str_replace and insert: 3 each (GET, the version, PUT If-Match)', async () => {
    expect(
      await requestsOf(() =>
        versioned.str_replace({
          command: 'str_replace',
          path: '/memories/notes/a.md',
          old_str: 'beta',
          new_str: 'gamma',
        }),
      ),
    ).toEqual(['GET', 'PUT', 'PUT']);
    expect(
      await requestsOf(() =>
        versioned.insert({
          command: 'insert',
          path: '/memories/notes/a.md',
          insert_line: 0,
          insert_text: 'top',
        }),
      ),
    ).toEqual(['GET', 'PUT', 'PUT']);
  });

  it('delete of a file: 4 (the lease, a HEAD in place of the listing, the version, DeleteObjects with the lease)', async () => {
    expect(
      await requestsOf(() => versioned.delete({ command: 'delete', path: '/memories/notes/c.md' })),
    ).toEqual(['PUT', 'HEAD', 'PUT', 'DELETE-MANY']);
  });

  it('rename of a file: 7 (a GET of the file in place of its listing, and the version)', async () => {
    const requests = await requestsOf(() =>
      versioned.rename({
        command: 'rename',
        old_path: '/memories/notes/b.md',
        new_path: '/memories/notes/b2.md',
      }),
    );
    expect(requests.sort()).toEqual(['COPY', 'DELETE-MANY', 'GET', 'LIST', 'PUT', 'PUT', 'PUT']);
  });

  it('create over a file this store has not seen: 6 (a HEAD for its history headers, the version)', async () => {
    await admin.send(
      new PutObjectCommand({ Bucket: bucket, Key: `${historyPrefix}/memories/notes/unseen.md`, Body: 'u' }),
    );
    expect(
      await requestsOf(() =>
        versioned.create({ command: 'create', path: '/memories/notes/unseen.md', file_text: 'seen now' }),
      ),
    ).toEqual(['PUT', 'LIST', 'HEAD', 'PUT', 'PUT', 'DELETE']);
  });
});
