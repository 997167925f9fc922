// What only this adapter does: where objects go in the bucket, what the startup probe learns of
// radosgw, names that S3 and its XML make hard, the key limit, and the listing's hidden-subtree jump.
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { type MemoryStore, MemoryToolError } from '@memdir/core';
import { driverLog } from '@memdir/core/driver';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Bucket } from '../src/bucket.js';
import { Call } from '../src/call.js';
import { createS3Store, type S3StoreOptions } from '../src/index.js';
import { probeServer } from '../src/probe.js';
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
const opened: MemoryStore[] = [];
const prefixes: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const prefix of prefixes.splice(0)) {
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
    await clearPrefix(admin, `${prefix}/`);
  }
});
afterAll(() => admin.destroy());

function open(prefix: string, options: Partial<S3StoreOptions> = {}): MemoryStore {
  if (!prefixes.includes(prefix)) prefixes.push(prefix);
  const store = createS3Store({ ...storeOptions(prefix), ...options });
  opened.push(store);
  return store;
}

const create = (store: MemoryStore, path: string, file_text: string) =>
  store.create({ command: 'create', path, file_text });
const view = (store: MemoryStore, path: string) => store.view({ command: 'view', path });

describe('the layout in the bucket', () => {
  it('keeps each file at a readable key under the prefix, namespaces in namespaces/{name}/, and nothing else once idle', async () => {
    const prefix = uniquePrefix('layout');
    const store = open(prefix);
    const team = open(prefix, { namespace: 'team' });
    await create(store, '/memories/notes/today.md', 'remember the milk\n');
    await create(store, '/memories/.archive/old.md', 'old');
    await create(team, '/memories/plan.md', 'ship it');
    await store.rename({ command: 'rename', old_path: '/memories/notes', new_path: '/memories/journal' });
    // History (on by default): a version object per change, newest first under .memdir/history/.
    expect((await keysUnder(admin, `${prefix}/`)).sort()).toEqual([
      `${prefix}/.memdir/history/9999999999999996-memver_0000000000000003`,
      `${prefix}/.memdir/history/9999999999999997-memver_0000000000000002`,
      `${prefix}/.memdir/history/9999999999999998-memver_0000000000000001`,
      `${prefix}/memories/.archive/old.md`,
      `${prefix}/memories/journal/today.md`,
      `${prefix}/namespaces/team/.memdir/history/9999999999999998-memver_0000000000000001`,
      `${prefix}/namespaces/team/memories/plan.md`,
    ]);
    const version = await admin.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: `${prefix}/.memdir/history/9999999999999996-memver_0000000000000003`,
      }),
    );
    const [line, content] = (await version.Body!.transformToString()).split('\n');
    expect(JSON.parse(line!)).toMatchObject({
      memdir: 'version',
      operation: 'renamed',
      path: 'journal/today.md',
      previousPath: 'notes/today.md',
      command: 'rename',
    });
    expect(content).toBe('remember the milk');
    const object = await admin.send(
      new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/journal/today.md` }),
    );
    expect(await object.Body!.transformToString()).toBe('remember the milk\n');
    expect(object.ContentType).toBe('text/plain; charset=utf-8');
  });

  it('stores content byte for byte: NUL, a byte-order mark, CR LF, any Unicode', async () => {
    const prefix = uniquePrefix('bytes');
    const store = open(prefix);
    const text = '\uFEFFa\u0000b\r\nc\u{1F600}\uFFFF\u0085';
    await create(store, '/memories/raw.txt', text);
    const object = await admin.send(
      new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/raw.txt` }),
    );
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(Buffer.from(text, 'utf8'));
    await store.insert({ command: 'insert', path: '/memories/raw.txt', insert_line: 0, insert_text: 'top' });
    const viewed = await view(store, '/memories/raw.txt');
    expect(viewed).toContain('     2\t\uFEFFa\u0000b\r');
  });

  it('ignores objects other tools put under memories/ whose keys are no memory path', async () => {
    const prefix = uniquePrefix('foreign');
    const store = open(prefix);
    await create(store, '/memories/a/real.md', 'x');
    for (const key of ['memories/a/', 'memories/a//double', 'memories/a/./dot', `memories/a/e\u0301`]) {
      await admin.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}`, Body: 'foreign' }));
    }
    expect(await view(store, '/memories/a')).toBe(
      "Here're the files and directories up to 2 levels deep in /memories/a, excluding hidden items and node_modules:\n1B\t/memories/a\n1B\t/memories/a/real.md",
    );
  });
});

describe('the startup probe', () => {
  it("learns radosgw's conditional writes: If-Match without quotes, DELETE If-Match ignored, MD5 ETags; and leaves nothing", async () => {
    const prefix = uniquePrefix('probe');
    prefixes.push(prefix);
    const client = rawClient();
    try {
      const behaviour = await probeServer(
        new Bucket(client, bucket, false),
        `${prefix}/`,
        new Call(driverLog('s3')),
      );
      expect(behaviour).toEqual({ quotedIfMatch: false, conditionalDelete: false, md5Etags: true });
      expect(await keysUnder(admin, `${prefix}/`)).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('runs once per client and bucket, before the first change, and never before a read', async () => {
    const prefix = uniquePrefix('probe-once');
    const client = rawClient();
    const wire = tap(client, bucket);
    const store = open(prefix, { client });
    const team = open(prefix, { client, namespace: 'team' });
    const elsewhere = open(`${prefix}/elsewhere`, { client });
    await view(store, '/memories');
    expect(
      wire.requests.map((request) => request.key).filter((key) => key.includes('.memdir/probe')),
    ).toEqual([]);
    await create(store, '/memories/a.md', 'a');
    await create(store, '/memories/b.md', 'b');
    await create(team, '/memories/c.md', 'c');
    await create(elsewhere, '/memories/d.md', 'd');
    // Stores on one client share the probe: seven requests on one scratch object on radosgw (the
    // quoted If-Match is refused, the unquoted one taken; the conditional DELETE deletes anyway).
    const probes = wire.requests.filter((request) => request.key.includes('.memdir/probe'));
    expect(new Set(probes.map((request) => request.key)).size).toBe(1);
    expect(probes.length).toBe(7);
    client.destroy();
  });

  it('blames an SDK that drops the conditions, not the server, and names the version memdir needs', async () => {
    // What @aws-sdk/client-s3 before 3.700 does to a PutObject (3.620 drops If-None-Match as well),
    // done to this client's requests; the server is the real one. The real old SDK (3.600) is
    // checked by scripts/check-peer-ranges.mjs.
    const prefix = uniquePrefix('old-sdk');
    prefixes.push(prefix);
    const client = rawClient();
    client.middlewareStack.add(
      (next) => async (args) => {
        const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
        for (const name of Object.keys(headers)) {
          if (/^if-(none-)?match$/i.test(name)) delete headers[name];
        }
        return next(args);
      },
      { step: 'build', priority: 'high', name: 'dropConditions' },
    );
    const store = open(prefix, { client });
    const error = await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(MemoryToolError);
    expect((error as MemoryToolError).code).toBe('BACKEND');
    expect((error as MemoryToolError).reason).toBe('misconfigured');
    expect((error as MemoryToolError).message).toMatch(
      /^The memory store is unavailable: @aws-sdk\/client-s3 3\.\d+\.\d+ does not send If-Match and If-None-Match on PutObject, which memdir needs to keep files safe: upgrade it to 3\.917\.0 or later\. Trying again will not help until the store's configuration is fixed\.$/,
    );
    client.destroy();
  });
});

describe('names', () => {
  // Characters special in URLs, in S3's encodings, in XML, in globs, or in JavaScript's ordering.
  const names = [
    'a_b',
    'a%b',
    'a*b?',
    '[x]{y}',
    `q'u"o:te`,
    'sp ace+plus',
    'hash#frag?q=1&r',
    'x\uFFFFy\uFFFE',
    '\u00e9t\u00e9',
  ];

  it('keeps names literal through create, view, rename of their folder, and delete', async () => {
    const prefix = uniquePrefix('names');
    const store = open(prefix);
    for (const name of names) await create(store, `/memories/dir/${name}`, name);
    await create(store, '/memories/dir/aXb', 'not a_b');
    const listing = await view(store, '/memories/dir');
    for (const name of names) expect(listing).toContain(`\t/memories/dir/${name}\n`.trimEnd());
    expect(await view(store, '/memories/dir/a_b')).toContain('     1\ta_b');
    await store.rename({ command: 'rename', old_path: '/memories/dir', new_path: '/memories/moved dir+' });
    for (const name of names) {
      expect(await view(store, `/memories/moved dir+/${name}`)).toBe(
        `Here's the content of /memories/moved dir+/${name} with line numbers:\n     1\t${name}`,
      );
    }
    await store.delete({ command: 'delete', path: '/memories/moved dir+/a*b?' });
    expect(await view(store, '/memories/moved dir+/aXb')).toContain('not a_b');
    await store.delete({ command: 'delete', path: '/memories/moved dir+' });
    expect(await keysUnder(admin, `${prefix}/memories/`)).toEqual([]);
  });

  it('orders U+E000 after U+1F600 (UTF-16), unlike S3 (UTF-8), when the listing is cut', async () => {
    const prefix = uniquePrefix('order');
    // S3 lists these in UTF-8 byte order: a, U+E000, U+1F600. The listing shows a, U+1F600 first,
    // and 50 characters leave room for two entries: a cut in S3's order would show U+E000.
    const store = open(prefix, { maxViewChars: 50 });
    for (const name of ['\uE000.md', '\u{1F600}.md', 'a.md']) await create(store, `/memories/${name}`, 'x');
    expect((await view(store, '/memories')).split('\n').slice(1)).toEqual([
      '3B\t/memories',
      '1B\t/memories/a.md',
      '1B\t/memories/\u{1F600}.md',
      '[Listing truncated: 2 of 3 entries shown. View a subdirectory to see the rest.]',
    ]);
  });
});

describe("S3's 1024-byte keys", () => {
  it('leave maxPathBytes = 1025 minus the bytes of prefix and namespaces, and refuse a longer path before any request', async () => {
    const prefix = uniquePrefix('limit');
    const store = open(prefix);
    const nested = open(prefix, { namespace: 'n' });
    const base = `${prefix}/`;
    expect(store.capabilities?.maxPathBytes).toBe(1025 - Buffer.byteLength(base));
    expect(nested.capabilities?.maxPathBytes).toBe(1025 - Buffer.byteLength(`${base}namespaces/n/`));
    const limit = store.capabilities!.maxPathBytes!;
    let longest = '/memories';
    while (Buffer.byteLength(longest) + 201 < limit) longest += `/${'d'.repeat(200)}`;
    longest += `/${'e'.repeat(limit - Buffer.byteLength(longest) - 1)}`;
    expect(Buffer.byteLength(longest)).toBe(limit);
    await create(store, longest, 'fits');
    expect(await view(store, longest)).toContain('     1\tfits');
    const key = `${prefix}/memories/${longest.slice('/memories/'.length)}`;
    expect(Buffer.byteLength(key)).toBe(1024);
    await admin.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    const error = await create(store, `${longest}x`, 'too long').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemoryToolError);
    expect((error as MemoryToolError).code).toBe('INVALID_PATH');
    expect((error as MemoryToolError).message).toContain(String(limit));
  });

  it('refuse a prefix that leaves no room for a memory path', () => {
    expect(() => createS3Store({ ...storeOptions('p'.repeat(800)) })).toThrow(/too little for memory paths/);
  });
});

describe('listings', () => {
  it('jump over a hidden subtree that runs past a page instead of reading it page by page', async () => {
    const prefix = uniquePrefix('hidden');
    const client = rawClient();
    const wire = tap(client, bucket);
    // Deleting the 4,501 files at the end takes a dozen requests: more than 5 s on a loaded machine.
    // Without history, which would read each file and write its deletion version (2 requests a file).
    const store = open(prefix, { client, timeoutMs: 30_000, history: false });
    // 4,500 files under .git and node_modules sort before the visible one ('.' and 'n' < 'z').
    const hidden = [
      ...Array.from({ length: 3000 }, (_, index) => `memories/repo/.git/objects/${index}`),
      ...Array.from({ length: 1500 }, (_, index) => `memories/repo/node_modules/m${index}/index.js`),
    ];
    for (let start = 0; start < hidden.length; start += 50) {
      await Promise.all(
        hidden
          .slice(start, start + 50)
          .map((key) =>
            admin.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}`, Body: 'h' })),
          ),
      );
    }
    await create(store, '/memories/repo/zz.md', 'visible');
    wire.reset();
    expect(await view(store, '/memories/repo')).toBe(
      "Here're the files and directories up to 2 levels deep in /memories/repo, excluding hidden items and node_modules:\n7B\t/memories/repo\n7B\t/memories/repo/zz.md",
    );
    // A GET beside the first page, then one jump past .git and one past node_modules: 4 requests,
    // where reading the 4,501 keys page by page takes 1 + 5.
    const lists = wire.requests.filter((request) => kindOf(request) === 'LIST');
    expect(lists.length).toBe(3);
    expect(wire.requests.length).toBe(4);
    await store.delete({ command: 'delete', path: '/memories/repo' });
    client.destroy();
  }, 120_000);
});
