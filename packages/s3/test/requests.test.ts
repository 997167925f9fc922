// The HTTP requests each command sends, counted at the client's request handler (every attempt the
// SDK makes), after the startup probe. The bench measures round trips and time; this pins the count.
import type { MemoryStore } from '@memdir/core';
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
  store = createS3Store({ ...storeOptions(prefix), client });
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

  it('create over an existing file: 2 (HEAD, PUT If-Match)', async () => {
    expect(
      await requestsOf(() =>
        store.create({ command: 'create', path: '/memories/notes/b.md', file_text: 'b2' }),
      ),
    ).toEqual(['HEAD', 'PUT']);
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

  it('a new path: a HEAD (no file to write over), the lease, the checks (a HEAD per ancestor, a listing), the PUT, the release', async () => {
    const requests = await requestsOf(() =>
      store.create({ command: 'create', path: '/memories/notes/c.md', file_text: 'c' }),
    );
    expect(requests).toEqual(['HEAD', 'PUT', 'HEAD', 'LIST', 'PUT', 'DELETE']);
  });

  it('delete of a file: the lease, HEAD and listing, then one DeleteObjects with the lease in it', async () => {
    const requests = await requestsOf(() =>
      store.delete({ command: 'delete', path: '/memories/notes/c.md' }),
    );
    expect(requests.sort()).toEqual(['DELETE-MANY', 'HEAD', 'LIST', 'PUT']);
  });

  it('rename of a file within its folder: 9 requests in 5 round trips', async () => {
    const requests = await requestsOf(() =>
      store.rename({
        command: 'rename',
        old_path: '/memories/notes/b.md',
        new_path: '/memories/notes/b2.md',
      }),
    );
    // lease; HEAD + LIST of the source, HEAD + LIST of the target; journal beside the copy;
    // the tombstone; DeleteObjects of the tombstone and the lease.
    expect(requests.sort()).toEqual([
      'COPY',
      'DELETE-MANY',
      'HEAD',
      'HEAD',
      'LIST',
      'LIST',
      'PUT',
      'PUT',
      'PUT',
    ]);
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
});
