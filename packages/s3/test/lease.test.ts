// The namespace's lease: a holder makes others wait; an expired one is taken over and the journal it
// carries is finished; a store takes back a lease it abandoned without waiting for it to expire.
// The leases and half-done states here are written by hand, as a crashed store would leave them.
import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { isMemoryToolError, type MemoryStore } from '@memdir/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Store, type S3StoreOptions } from '../src/index.js';
import {
  bucket,
  clearPrefix,
  keysUnder,
  leftovers,
  rawClient,
  storeOptions,
  uniquePrefix,
} from './helpers.js';
import { kindOf, tap } from './wire.js';

const admin = rawClient();
afterAll(() => admin.destroy());
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

function setUp(options: Partial<S3StoreOptions> = {}): { store: MemoryStore; prefix: string } {
  const prefix = uniquePrefix('lease');
  const store = createS3Store({ ...storeOptions(prefix), ...options });
  cleanup.push(async () => {
    await store.close();
    await clearPrefix(admin, `${prefix}/`);
  });
  return { store, prefix };
}

const put = (Key: string, Body: string, Metadata?: Record<string, string>) =>
  admin.send(new PutObjectCommand({ Bucket: bucket, Key, Body, Metadata }));

/** A lease as another store would hold it: its journal, and its TTL. */
function leaseBody(journal: unknown[], ttlMs: number): string {
  return JSON.stringify({
    memdir: 'lease',
    owner: 'another-store',
    op: 'op-of-another-store',
    ttlMs,
    renewal: 0,
    journal,
  });
}

async function read(prefix: string, path: string): Promise<string> {
  const reply = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/${path}` }));
  return reply.Body!.transformToString();
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('the lease', () => {
  it('held by a live store: a new path waits, and fails with BACKEND at the deadline; edits in place do not wait', async () => {
    const { store, prefix } = setUp({ timeoutMs: 1_500 });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await put(`${prefix}/.memdir/lease`, leaseBody([], 60_000));
    const started = Date.now();
    const error = await store
      .create({ command: 'create', path: '/memories/b.md', file_text: 'b' })
      .catch((e) => e);
    expect(isMemoryToolError(error) && error.code).toBe('BACKEND');
    expect(error).toMatchObject({ reason: 'busy', outcome: 'not-applied' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(
      await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'x' }),
    ).toBe('The file /memories/a.md has been edited.');
    expect(await store.create({ command: 'create', path: '/memories/a.md', file_text: 'over' })).toBe(
      'File created successfully at: /memories/a.md',
    );
    // The holder releases it.
    await clearPrefix(admin, `${prefix}/.memdir/`);
    expect(await store.create({ command: 'create', path: '/memories/b.md', file_text: 'b' })).toBe(
      'File created successfully at: /memories/b.md',
    );
  });

  it('changing hands: a new path waits past timeoutMs while other stores take turns; renewed by one holder, it does not', async () => {
    const { store, prefix } = setUp({ timeoutMs: 1_000 });
    /** Writes the lease every 200 ms for `ms`, as one holder renewing it or as holders taking turns. */
    const holders = async (ms: number, turns: boolean) => {
      const until = Date.now() + ms;
      for (let turn = 0; Date.now() < until; turn++) {
        const body = JSON.parse(leaseBody([], 60_000)) as Record<string, unknown>;
        await put(
          `${prefix}/.memdir/lease`,
          JSON.stringify({ ...body, op: turns ? `turn-${turn}` : body.op, renewal: turn }),
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await clearPrefix(admin, `${prefix}/.memdir/lease`);
    };
    // One holder that keeps renewing (a stalled change): no progress, the deadline stays.
    const renewing = holders(2_500, false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let started = Date.now();
    const error = await store
      .create({ command: 'create', path: '/memories/a.md', file_text: 'a' })
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'BACKEND', reason: 'busy', outcome: 'not-applied' });
    expect(Date.now() - started).toBeLessThan(1_100);
    await renewing;
    // Holders taking turns: each new holder is progress, so the create waits for its own turn.
    const turns = holders(2_500, true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    started = Date.now();
    expect(await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' })).toBe(
      'File created successfully at: /memories/a.md',
    );
    expect(Date.now() - started).toBeGreaterThan(2_000);
    await turns;
  });

  it('expired, with a rename half done in its journal: the next structural change finishes it first', async () => {
    const { store, prefix } = setUp({ timeoutMs: 10_000 });
    // d/a.md was copied to e/a.md (and edited since at its old path), d/b.md not yet copied.
    await put(`${prefix}/memories/d/a.md`, 'a, edited after the copy');
    await put(`${prefix}/memories/e/a.md`, 'a', { 'memdir-op': 'the-move', 'memdir-source': md5('a') });
    await put(`${prefix}/memories/d/b.md`, 'b');
    await put(
      `${prefix}/.memdir/lease`,
      leaseBody([{ kind: 'move', op: 'the-move', from: 'd', to: 'e', phase: 'copying', folder: true }], 500),
    );
    await store.create({ command: 'create', path: '/memories/new.md', file_text: 'new' });
    expect((await keysUnder(admin, `${prefix}/memories/`)).sort()).toEqual(
      ['e/a.md', 'e/b.md', 'new.md'].map((path) => `${prefix}/memories/${path}`),
    );
    // The edit that landed between the copy and the crash is not lost: the source changed, so it
    // was copied again.
    expect(await read(prefix, 'e/a.md')).toBe('a, edited after the copy');
    expect(await read(prefix, 'e/b.md')).toBe('b');
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  });

  it("expired, a file's rename whose copy landed before the journal said so: finished", async () => {
    const { store, prefix } = setUp({ timeoutMs: 10_000 });
    await put(`${prefix}/memories/one.md`, 'one');
    await put(`${prefix}/memories/two.md`, 'one', { 'memdir-op': 'the-move', 'memdir-source': md5('one') });
    await put(
      `${prefix}/.memdir/lease`,
      leaseBody([{ kind: 'move', op: 'the-move', from: 'one.md', to: 'two.md', phase: 'intent' }], 500),
    );
    expect(await store.delete({ command: 'delete', path: '/memories/two.md' })).toBe(
      'Successfully deleted /memories/two.md',
    );
    // The rename was finished first (one.md gone with it), then the delete ran.
    expect(await keysUnder(admin, `${prefix}/memories/`)).toEqual([]);
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  });

  it('expired, a rename that never got past its checks: nothing is moved, the lease is taken over', async () => {
    const { store, prefix } = setUp({ timeoutMs: 10_000 });
    await put(`${prefix}/memories/one.md`, 'one');
    await put(`${prefix}/memories/two.md`, 'an unrelated file that was already there');
    await put(
      `${prefix}/.memdir/lease`,
      leaseBody([{ kind: 'move', op: 'the-move', from: 'one.md', to: 'two.md', phase: 'intent' }], 500),
    );
    await store.create({ command: 'create', path: '/memories/three.md', file_text: 'three' });
    expect(await read(prefix, 'one.md')).toBe('one');
    expect(await read(prefix, 'two.md')).toBe('an unrelated file that was already there');
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  });

  it('expired, with a delete in its journal: finished', async () => {
    const { store, prefix } = setUp({ timeoutMs: 10_000 });
    await put(`${prefix}/memories/gone/a.md`, 'a');
    await put(`${prefix}/memories/kept.md`, 'kept');
    await put(
      `${prefix}/.memdir/lease`,
      leaseBody([{ kind: 'remove', op: 'the-delete', path: 'gone' }], 500),
    );
    await store.create({ command: 'create', path: '/memories/new.md', file_text: 'new' });
    expect((await keysUnder(admin, `${prefix}/memories/`)).sort()).toEqual(
      ['kept.md', 'new.md'].map((path) => `${prefix}/memories/${path}`),
    );
  });

  it('unreadable (not a lease at all): held until its age passes the TTL of the store that finds it', async () => {
    const { store, prefix } = setUp({ timeoutMs: 10_000, leaseTtlMs: 500 });
    await put(`${prefix}/.memdir/lease`, 'not json');
    await store.create({ command: 'create', path: '/memories/new.md', file_text: 'new' });
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  });

  it("abandoned by this store at its deadline: taken back after a second, not after the lease's TTL", async () => {
    const prefix = uniquePrefix('lease-abandoned');
    const client = rawClient();
    const wire = tap(client, bucket);
    const store = createS3Store({ ...storeOptions(prefix), client, leaseTtlMs: 60_000, timeoutMs: 2_000 });
    cleanup.push(async () => {
      await store.close();
      await clearPrefix(admin, `${prefix}/`);
      client.destroy();
    });
    for (const name of ['a', 'b', 'c']) {
      await store.create({ command: 'create', path: `/memories/d/${name}.md`, file_text: name });
    }
    // The rename's copies stop answering after the first: its deadline passes in the middle.
    wire.holdFrom(
      (request) => kindOf(request) === 'COPY',
      1,
      () => {},
    );
    const error = await store
      .rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' })
      .catch((caught: unknown) => caught);
    expect(isMemoryToolError(error) && error.code).toBe('BACKEND');
    expect((error as Error).message).toMatch(/may or may not have been saved/);
    wire.release();
    const started = Date.now();
    await store.create({ command: 'create', path: '/memories/after.md', file_text: 'after' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await keysUnder(admin, `${prefix}/memories/`)).sort()).toEqual(
      ['after.md', 'e/a.md', 'e/b.md', 'e/c.md'].map((path) => `${prefix}/memories/${path}`),
    );
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  });
});
