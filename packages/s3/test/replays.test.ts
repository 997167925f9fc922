// A reply lost after the change landed: the SDK sends the request again, its condition now fails
// (412), and the store must see that the change is its own (the operation id it wrote), not report
// a conflict or apply it twice. Each request reaches radosgw; only its reply is thrown away.
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { MemoryStore } from '@memdir/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createS3Store } from '../src/index.js';
import {
  bucket,
  clearPrefix,
  keysUnder,
  leftovers,
  rawClient,
  storeOptions,
  uniquePrefix,
} from './helpers.js';
import { kindOf, type LoggedRequest, tap, type Wire } from './wire.js';

const admin = rawClient();
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup) await step();
  cleanup = [];
});

function setUp(): { store: MemoryStore; wire: Wire; prefix: string } {
  const prefix = uniquePrefix('replays');
  const client = rawClient();
  const wire = tap(client, bucket);
  const store = createS3Store({ ...storeOptions(prefix), client });
  cleanup.push(async () => {
    await store.close();
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
    await clearPrefix(admin, `${prefix}/`);
    client.destroy();
  });
  return { store, wire, prefix };
}

async function content(prefix: string, path: string): Promise<string> {
  const reply = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/${path}` }));
  return reply.Body!.transformToString();
}

const putOf = (key: string) => (request: LoggedRequest) =>
  kindOf(request) === 'PUT' && request.key.endsWith(key);

/** The requests of the lost one: it went twice. */
function sentTwice(wire: Wire, matching: (request: LoggedRequest) => boolean): void {
  expect(wire.requests.filter(matching).length).toBe(2);
}

describe('a reply lost after the write landed', () => {
  it('create of a new path (PUT If-None-Match) is not ALREADY_EXISTS', async () => {
    const { store, wire, prefix } = setUp();
    // Warm the store (the probe) first, then lose the file PUT's reply.
    await store.create({ command: 'create', path: '/memories/warm.md', file_text: 'w' });
    wire.loseReplyOnce(putOf('memories/new.md'));
    wire.reset();
    expect(await store.create({ command: 'create', path: '/memories/new.md', file_text: 'once' })).toBe(
      'File created successfully at: /memories/new.md',
    );
    sentTwice(wire, putOf('memories/new.md'));
    expect(await content(prefix, 'new.md')).toBe('once');
  });

  it('create with overwrite: false of a new path is not ALREADY_EXISTS either', async () => {
    const prefix = uniquePrefix('replays-strict');
    const client = rawClient();
    const wire = tap(client, bucket);
    const store = createS3Store({ ...storeOptions(prefix), client, overwrite: false });
    cleanup.push(async () => {
      await store.close();
      expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
      await clearPrefix(admin, `${prefix}/`);
      client.destroy();
    });
    await store.create({ command: 'create', path: '/memories/warm.md', file_text: 'w' });
    wire.loseReplyOnce(putOf('memories/claim.md'));
    expect(await store.create({ command: 'create', path: '/memories/claim.md', file_text: 'mine' })).toBe(
      'File created successfully at: /memories/claim.md',
    );
    expect(await content(prefix, 'claim.md')).toBe('mine');
  });

  it('create over an existing file (PUT If-Match) succeeds once', async () => {
    const { store, wire, prefix } = setUp();
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'old' });
    wire.loseReplyOnce(putOf('memories/a.md'));
    wire.reset();
    expect(await store.create({ command: 'create', path: '/memories/a.md', file_text: 'new' })).toBe(
      'File created successfully at: /memories/a.md',
    );
    sentTwice(wire, putOf('memories/a.md'));
    expect(await content(prefix, 'a.md')).toBe('new');
  });

  it('insert is applied once', async () => {
    const { store, wire, prefix } = setUp();
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'first' });
    wire.loseReplyOnce(putOf('memories/log.md'));
    wire.reset();
    expect(
      await store.insert({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 1,
        insert_text: 'second',
      }),
    ).toBe('The file /memories/log.md has been edited.');
    sentTwice(wire, putOf('memories/log.md'));
    expect(await content(prefix, 'log.md')).toBe('first\nsecond');
  });

  it('str_replace is applied once', async () => {
    const { store, wire, prefix } = setUp();
    await store.create({ command: 'create', path: '/memories/n.md', file_text: 'count: 1' });
    wire.loseReplyOnce(putOf('memories/n.md'));
    await store.str_replace({ command: 'str_replace', path: '/memories/n.md', old_str: '1', new_str: '11' });
    expect(await content(prefix, 'n.md')).toBe('count: 11');
  });

  it("taking the lease (PUT If-None-Match on .memdir/lease) is recognised as the store's own", async () => {
    const { store, wire, prefix } = setUp();
    await store.create({ command: 'create', path: '/memories/warm.md', file_text: 'w' });
    wire.loseReplyOnce(putOf('.memdir/lease'));
    wire.reset();
    await store.create({ command: 'create', path: '/memories/dir/x.md', file_text: 'x' });
    sentTwice(wire, putOf('.memdir/lease'));
    expect(await content(prefix, 'dir/x.md')).toBe('x');
  });

  it("a rename's journal, copy and tombstone are each recognised as the store's own", async () => {
    const { store, wire, prefix } = setUp();
    await store.create({ command: 'create', path: '/memories/d/a.md', file_text: 'a' });
    await store.create({ command: 'create', path: '/memories/d/b.md', file_text: 'b' });
    // The journal: the second PUT of the lease in a rename.
    let leasePuts = 0;
    wire.loseReplyOnce((request) => putOf('.memdir/lease')(request) && ++leasePuts === 2);
    await store.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' });
    // The tombstone: a PUT over the source after its copy.
    wire.loseReplyOnce((request) => putOf('memories/e/a.md')(request) || putOf('memories/e/b.md')(request));
    await store.rename({ command: 'rename', old_path: '/memories/e', new_path: '/memories/f' });
    wire.loseReplyOnce((request) => kindOf(request) === 'COPY');
    await store.rename({ command: 'rename', old_path: '/memories/f/a.md', new_path: '/memories/g.md' });
    expect((await keysUnder(admin, `${prefix}/memories/`)).sort()).toEqual([
      `${prefix}/memories/f/b.md`,
      `${prefix}/memories/g.md`,
    ]);
    expect(await content(prefix, 'g.md')).toBe('a');
    expect(await content(prefix, 'f/b.md')).toBe('b');
  });
});
