// The S3 store (@memdir/s3) on radosgw, in one run: HTTP requests and round trips per command,
// latency against the raw S3Client sending the same requests, bytes of a big listing, and a view
// in a namespace of 100 files against one of 100,000.
//
// Requests are counted at the client's request handler (every attempt the SDK sends) and checked
// against test-support's round-trip counter, a loopback proxy the client talks through (each HTTP/1.1
// request is one turn on its connection). Round trips are the longest chain of requests where each
// starts after the one before it answered: requests sent together count once.
import { performance } from 'node:perf_hooks';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { MemoryStore } from '@memdir/core';
import { createS3Store } from '@memdir/s3';
import { type RoundTripCounter, startRoundTripCounter, startServers } from '@memdir/test-support';
import { formatRatio, median } from '../stats.js';
import { contention } from './s3-contention.js';
import type { BenchSection, SectionContext } from './section.js';

type Side = 'memdir' | 'raw';

interface Timed {
  start: number;
  end: number;
}

/** A client whose every request is logged with its start and end (the SDK's retries included). */
function timedClient(config: S3ClientConfig): { client: S3Client; log: Timed[] } {
  const client = new S3Client(config);
  const log: Timed[] = [];
  const handler = client.config.requestHandler as unknown as {
    handle(request: unknown, options?: unknown): Promise<unknown>;
  };
  const handle = handler.handle.bind(handler);
  handler.handle = async (request, options) => {
    const entry: Timed = { start: performance.now(), end: Number.POSITIVE_INFINITY };
    log.push(entry);
    try {
      return await handle(request, options);
    } finally {
      entry.end = performance.now();
    }
  };
  return { client, log };
}

/** The longest chain of requests each sent after the previous one answered. */
function roundTrips(requests: readonly Timed[]): number {
  const sorted = [...requests].sort((a, b) => a.start - b.start);
  const depth: number[] = [];
  sorted.forEach((request, index) => {
    let before = 0;
    for (let previous = 0; previous < index; previous++) {
      if (sorted[previous]!.end <= request.start) before = Math.max(before, depth[previous]!);
    }
    depth.push(before + 1);
  });
  return Math.max(0, ...depth);
}

/** One command of the tables: memdir's way, and the raw client sending the same requests. */
interface Case {
  label: string;
  goal?: { requests: number; text: string };
  /** Untimed work before each run (a file to delete, say), in the side's own prefix. */
  setup?(index: number, side: Side): Promise<void>;
  memdir(index: number): Promise<unknown>;
  raw(index: number): Promise<unknown>;
  /** Untimed work after each run. */
  cleanup?(index: number, side: Side): Promise<void>;
}

async function drain(body: unknown): Promise<Uint8Array> {
  return (
    (await (body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray()) ??
    new Uint8Array()
  );
}

const etagOf = (etag: string | undefined) => (etag ?? '').replaceAll('"', '');

/** Runs `fn` for about `ms`, at least `min` times; resolves to the mean time per run in ms. */
async function block(test: Case, side: Side, counter: { next: number }, ms: number, min: number) {
  let spent = 0;
  let runs = 0;
  while (runs < min || spent < ms) {
    const index = counter.next++;
    await test.setup?.(index, side);
    const started = performance.now();
    await test[side](index);
    spent += performance.now() - started;
    await test.cleanup?.(index, side);
    runs++;
  }
  return spent / runs;
}

async function seed(client: S3Client, bucket: string, keys: readonly string[], log: (line: string) => void) {
  const started = performance.now();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `${key.length}` }));
      done++;
      if (done % 10_000 === 0) log(`[s3]   ${done} of ${keys.length} objects written`);
    }
  };
  await Promise.all(Array.from({ length: 48 }, worker));
  log(`[s3]   ${keys.length} objects in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function clear(client: S3Client, bucket: string, prefix: string) {
  for (;;) {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1000 }),
    );
    const keys = (page.Contents ?? []).map((item) => ({ Key: item.Key! }));
    if (keys.length === 0) return;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
  }
}

export function s3Section(): BenchSection {
  return {
    id: 's3',
    summary:
      'S3 store on radosgw: requests and round trips per command (with and without a quota), latency against the raw S3Client, 100 vs 100,000 files, 4 processes contending',
    run: (context) => runS3(context),
  };
}

async function runS3(context: SectionContext): Promise<string> {
  const { log, quick } = context;
  // memdir runs on Node 20 on purpose; the SDK's notice about its 2027 releases is noise here.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const servers = await startServers(['s3'], { log });
  const env = servers.env;
  let counter: RoundTripCounter | undefined;
  const admin = new S3Client({ ...configOf(env, env['S3_ENDPOINT']!), maxAttempts: 5 });
  const bucket = env['S3_BUCKET']!;
  const base = `bench-s3-${process.pid}-${Date.now().toString(36)}`;
  const stores: MemoryStore[] = [];
  const clients: S3Client[] = [];
  try {
    counter = await startRoundTripCounter(env['S3_ENDPOINT']!);
    // Counted through the proxy; timed without it (a proxy between adds its own delays).
    const { client: countedClient, log: requests } = timedClient(configOf(env, counter.url));
    const client = new S3Client(configOf(env, env['S3_ENDPOINT']!));
    clients.push(countedClient, client);
    const open = (prefix: string, namespace?: string, through = client) => {
      const store = createS3Store({ client: through, bucket, prefix: `${base}/${prefix}`, namespace });
      stores.push(store);
      return store;
    };
    const key = (prefix: string, path: string) => `${base}/${prefix}/memories/${path}`;
    const store = open('main');
    const raw = { client, bucket };

    log('[s3] seeding');
    const files: Array<[string, string]> = [
      ['notes/a.md', 'alpha\nbeta\ngamma\n'],
      ['notes/b.md', 'b'],
      ['notes/c.md', 'c'],
      ['notes/deep/d.md', 'd'],
      ['notes/deep/e.md', 'e'],
      ['top.md', 'top'],
    ];
    for (const [path, text] of files) {
      await store.create({ command: 'create', path: `/memories/${path}`, file_text: text });
      // The raw side works on its own copy of the same files, and the counting on another.
      for (const prefix of ['raw', 'counted']) {
        await admin.send(new PutObjectCommand({ Bucket: bucket, Key: key(prefix, path), Body: text }));
      }
    }
    await seed(
      admin,
      bucket,
      Array.from({ length: 2500 }, (_, index) => key('big', `big/d${index % 25}/f${index}.md`)),
      log,
    );
    const bigStore = open('big');

    const leaseKey = `${base}/raw/.memdir/lease`;
    const cases = buildCases(store, bigStore, raw, key, leaseKey, 'main');

    // --- requests and round trips ---------------------------------------------------------------
    log('[s3] counting requests per command');
    const countedStore = open('counted', undefined, countedClient);
    const countedBig = open('big', undefined, countedClient);
    // The probe of the counted stores' client, before anything is counted.
    await countedStore.create({ command: 'create', path: '/memories/top.md', file_text: 'top' });
    const countedCases = buildCases(countedStore, countedBig, raw, key, leaseKey, 'counted');
    const counted: Array<{ test: Case; requests: number; turns: number; trips: number }> = [];
    for (const test of countedCases) {
      await test.setup?.(0, 'memdir');
      requests.length = 0;
      counter.resetStats();
      await test.memdir(0);
      counted.push({
        test,
        requests: requests.length,
        turns: counter.stats().turns,
        trips: roundTrips(requests),
      });
      await test.cleanup?.(0, 'memdir');
    }
    for (const extra of folderCases(countedStore)) {
      await extra.setup();
      requests.length = 0;
      counter.resetStats();
      await extra.run();
      counted.push({
        test: { label: extra.label, memdir: async () => {}, raw: async () => {} },
        requests: requests.length,
        turns: counter.stats().turns,
        trips: roundTrips(requests),
      });
    }

    // --- the same commands with a quota ------------------------------------------------------------
    log('[s3] counting requests with a quota');
    const quotaStore = createS3Store({
      client: countedClient,
      bucket,
      prefix: `${base}/counted-quota`,
      quota: { maxBytes: 1e9, maxFiles: 1e6 },
    });
    stores.push(quotaStore);
    // The first change of a namespace with a quota reads (here: counts and creates) its totals.
    await quotaStore.create({ command: 'create', path: '/memories/top.md', file_text: 'top' });
    const quotaCounts: Array<{ label: string; without: number; with: number }> = [];
    for (const change of quotaCases()) {
      const sides: number[] = [];
      for (const target of [countedStore, quotaStore]) {
        await change.setup?.(target);
        requests.length = 0;
        await change.run(target);
        sides.push(requests.length);
      }
      quotaCounts.push({ label: change.label, without: sides[0]!, with: sides[1]! });
    }

    // --- cheap tenant handles ----------------------------------------------------------------------
    log('[s3] 1,000 tenant handles on one client, one view each');
    requests.length = 0;
    for (let tenant = 0; tenant < 1_000; tenant++) {
      const handle = createS3Store({
        client: countedClient,
        bucket,
        prefix: `${base}/tenants`,
        namespace: `t${tenant}`,
      });
      await handle.view({ command: 'view', path: '/memories' });
      await handle.close();
    }
    const tenantRequests = requests.length;

    // --- latency against the raw client ----------------------------------------------------------
    log('[s3] timing each command against the raw S3Client (alternating blocks)');
    const rounds = quick ? 3 : 9;
    const blockMs = quick ? 150 : 400;
    const timed: Array<{ test: Case; memdir: number; raw: number }> = [];
    const counters = { memdir: { next: 1000 }, raw: { next: 1000 } };
    for (const test of cases) {
      await block(test, 'memdir', counters.memdir, blockMs / 2, 3);
      await block(test, 'raw', counters.raw, blockMs / 2, 3);
      const memdirTimes: number[] = [];
      const rawTimes: number[] = [];
      for (let round = 0; round < rounds; round++) {
        rawTimes.push(await block(test, 'raw', counters.raw, blockMs, 3));
        memdirTimes.push(await block(test, 'memdir', counters.memdir, blockMs, 3));
      }
      timed.push({ test, memdir: median(memdirTimes), raw: median(rawTimes) });
      log(`[s3]   ${test.label}: ${formatRatio(median(memdirTimes) / median(rawTimes))}`);
    }
    const floor = await block(
      {
        label: 'HeadBucket',
        memdir: async () => {},
        raw: () => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key('raw', 'top.md') })),
      },
      'raw',
      { next: 0 },
      blockMs,
      5,
    );

    // --- the bytes of a big listing ----------------------------------------------------------------
    log('[s3] view /memories of 10,000 files in 100 folders');
    await seed(
      admin,
      bucket,
      Array.from({ length: 10_000 }, (_, index) => key('tree', `d${index % 100}/f${index}.md`)),
      log,
    );
    const tree = open('tree', undefined, countedClient);
    await tree.view({ command: 'view', path: '/memories' });
    requests.length = 0;
    counter.resetStats();
    const listing = await tree.view({ command: 'view', path: '/memories' });
    const listingStats = { ...counter.stats(), requests: requests.length, chars: listing.length };

    // --- a folder in a namespace of 100 files against one of 100,000 ------------------------------
    const total = quick ? 10_000 : 100_000;
    log(`[s3] view of a 100-file folder in a namespace of 100 files and of ${total.toLocaleString('en-US')}`);
    const folderKeys = (prefix: string) =>
      Array.from({ length: 100 }, (_, index) => key(prefix, `folder/f${index}.md`));
    const others = Array.from({ length: total - 100 }, (_, index) =>
      key('huge', `${index % 2 === 0 ? 'a-before' : 'z-after'}/d${index % 500}/f${index}.md`),
    );
    await seed(admin, bucket, [...folderKeys('small'), ...folderKeys('huge'), ...others], log);
    const small = open('small');
    const huge = open('huge');
    const viewFolder = (target: MemoryStore) => target.view({ command: 'view', path: '/memories/folder' });
    if ((await viewFolder(small)) !== (await viewFolder(huge))) {
      throw new Error('the two namespaces list their folder differently');
    }
    const scale: { small: number[]; huge: number[] } = { small: [], huge: [] };
    const viewBlock = async (target: MemoryStore) => {
      const started = performance.now();
      let runs = 0;
      while (runs < 5 || performance.now() - started < blockMs) {
        await viewFolder(target);
        runs++;
      }
      return (performance.now() - started) / runs;
    };
    for (let round = 0; round < rounds + 2; round++) {
      scale.small.push(await viewBlock(small));
      scale.huge.push(await viewBlock(huge));
    }

    const contended = await contention(
      configOf(env, env['S3_ENDPOINT']!),
      { bucket, prefix: `${base}/contention` },
      log,
    );
    return [
      report(counted, timed, floor, listingStats, scale, total),
      ...quotaReport(quotaCounts),
      '',
      `1,000 tenant handles (\`createS3Store({ client, namespace })\`) on one client, one \`view /memories\` each: ${tenantRequests} requests (goal: at most 1,002, no probe or check per handle): ${tenantRequests <= 1_002 ? 'PASS' : 'ABOVE'}.`,
      ...contended,
    ].join('\n');
  } finally {
    for (const store of stores) await store.close().catch(() => {});
    for (const client of clients) client.destroy();
    log('[s3] removing what the bench wrote');
    await clear(admin, bucket, `${base}/`).catch((error: unknown) =>
      log(`[s3] cleanup failed: ${String(error)}`),
    );
    admin.destroy();
    await counter?.close();
    await servers.stop();
  }
}

/** The S3 client's configuration for the servers of `env` (also the history section's). */
export function configOf(env: Record<string, string | undefined>, endpoint: string): S3ClientConfig {
  return {
    endpoint,
    region: env['S3_REGION'] ?? 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: env['S3_ACCESS_KEY_ID']!, secretAccessKey: env['S3_SECRET_ACCESS_KEY']! },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/**
 * The commands, each with the raw client sending what memdir sends for it (as the s3 package's
 * request tests pin it down): the same requests, the same ones together.
 */
function buildCases(
  store: MemoryStore,
  bigStore: MemoryStore,
  raw: { client: S3Client; bucket: string },
  key: (prefix: string, path: string) => string,
  leaseKey: string,
  storePrefix: string,
): Case[] {
  const { client, bucket: Bucket } = raw;
  const own = (side: Side) => (side === 'memdir' ? storePrefix : 'raw');
  const get = async (Key: string) => {
    try {
      const reply = await client.send(new GetObjectCommand({ Bucket, Key }));
      return { body: await drain(reply.Body), etag: etagOf(reply.ETag) };
    } catch {
      return null;
    }
  };
  const head = async (Key: string) => {
    try {
      return etagOf((await client.send(new HeadObjectCommand({ Bucket, Key }))).ETag);
    } catch {
      return null;
    }
  };
  const list = (Prefix: string, MaxKeys = 1000) =>
    client.send(new ListObjectsV2Command({ Bucket, Prefix, MaxKeys, EncodingType: 'url' }));
  const put = (
    Key: string,
    Body: string | Uint8Array,
    condition: { IfMatch?: string; IfNoneMatch?: string },
  ) =>
    client.send(
      new PutObjectCommand({ Bucket, Key, Body, ContentType: 'text/plain; charset=utf-8', ...condition }),
    );
  const takeLease = () =>
    put(leaseKey, JSON.stringify({ memdir: 'lease', at: Date.now() }), { IfNoneMatch: '*' });
  const edit = async (path: string, change: (text: string) => string) => {
    const file = (await get(key('raw', path)))!;
    await put(key('raw', path), change(Buffer.from(file.body).toString('utf8')), { IfMatch: file.etag });
  };
  let toggle = false;
  let topEtag: string | undefined;
  return [
    {
      label: 'view a file',
      goal: { requests: 1, text: '1' },
      memdir: () => store.view({ command: 'view', path: '/memories/notes/a.md' }),
      raw: () => get(key('raw', 'notes/a.md')),
    },
    {
      label: 'view a directory (5 files)',
      goal: { requests: 2, text: '<= 2' },
      memdir: () => store.view({ command: 'view', path: '/memories/notes' }),
      raw: () => Promise.all([list(key('raw', 'notes/')), get(key('raw', 'notes'))]),
    },
    {
      label: 'view a directory of 2,500 files',
      goal: { requests: 4, text: '<= 2 + 1 per 1000 files' },
      memdir: () => bigStore.view({ command: 'view', path: '/memories/big' }),
      raw: async () => {
        const first = list(key('big', 'big/'));
        await get(key('big', 'big'));
        let page = await first;
        while (page.IsTruncated) {
          const last = page.Contents!.at(-1)!.Key!;
          page = await client.send(
            new ListObjectsV2Command({
              Bucket,
              Prefix: key('big', 'big/'),
              StartAfter: decodeURIComponent(last),
              EncodingType: 'url',
            }),
          );
        }
      },
    },
    {
      label: 'view /memories',
      goal: { requests: 1, text: '1' },
      memdir: () => store.view({ command: 'view', path: '/memories' }),
      raw: () => list(key('raw', '')),
    },
    {
      label: 'view a missing path',
      goal: { requests: 2, text: '<= 2' },
      memdir: () => store.view({ command: 'view', path: '/memories/missing.md' }).catch(() => ''),
      raw: async () => {
        await get(key('raw', 'missing.md'));
        await list(key('raw', 'missing.md/'));
      },
    },
    {
      label: 'create over a file it has seen',
      goal: { requests: 1, text: '1' },
      memdir: (index) =>
        store.create({ command: 'create', path: '/memories/top.md', file_text: `top ${index}` }),
      raw: async (index) => {
        // The version the last write returned, as the store remembers it.
        topEtag ??= (await head(key('raw', 'top.md')))!;
        topEtag = etagOf((await put(key('raw', 'top.md'), `top ${index}`, { IfMatch: topEtag })).ETag);
      },
    },
    {
      label: 'str_replace',
      goal: { requests: 2, text: '2' },
      memdir: () => {
        toggle = !toggle;
        const [old_str, new_str] = toggle ? ['beta', 'BETA'] : ['BETA', 'beta'];
        return store.str_replace({ command: 'str_replace', path: '/memories/notes/a.md', old_str, new_str });
      },
      raw: () =>
        edit('notes/a.md', (text) =>
          text.includes('beta') ? text.replace('beta', 'BETA') : text.replace('BETA', 'beta'),
        ),
    },
    {
      label: 'insert',
      goal: { requests: 2, text: '2' },
      memdir: (index) =>
        store.insert({
          command: 'insert',
          path: '/memories/notes/b.md',
          insert_line: 1,
          insert_text: `line ${index}`,
        }),
      raw: (index) => edit('notes/b.md', (text) => `${text}\nline ${index}`),
    },
    {
      label: 'create a new file (depth 2)',
      goal: { requests: 4, text: '<= 4' },
      memdir: (index) =>
        store.create({ command: 'create', path: `/memories/new/n${index}.md`, file_text: 'n' }),
      raw: async (index) => {
        const path = key('raw', `new/n${index}.md`);
        await takeLease();
        await list(key('raw', 'new'), 200);
        await put(path, 'n', { IfNoneMatch: '*' });
        await client.send(new DeleteObjectCommand({ Bucket, Key: leaseKey }));
      },
      cleanup: async (index, side) => {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key(own(side), `new/n${index}.md`) }));
      },
    },
    {
      label: 'delete a file',
      goal: { requests: 3, text: '<= 3' },
      setup: async (index, side) => {
        await put(key(own(side), `del/x${index}.md`), 'x', {});
      },
      memdir: (index) => store.delete({ command: 'delete', path: `/memories/del/x${index}.md` }),
      raw: async (index) => {
        const path = key('raw', `del/x${index}.md`);
        await takeLease();
        await list(path);
        await client.send(
          new DeleteObjectsCommand({
            Bucket,
            Delete: { Objects: [{ Key: path }, { Key: leaseKey }], Quiet: true },
          }),
        );
      },
    },
    {
      label: 'rename a file (same folder)',
      goal: { requests: 6, text: '<= 6' },
      setup: async (index, side) => {
        await put(key(own(side), `mv/s${index}.md`), 'moving', {});
      },
      memdir: (index) =>
        store.rename({
          command: 'rename',
          old_path: `/memories/mv/s${index}.md`,
          new_path: `/memories/mv/t${index}.md`,
        }),
      raw: async (index) => {
        const from = key('raw', `mv/s${index}.md`);
        const to = key('raw', `mv/t${index}.md`);
        await takeLease();
        const [source] = await Promise.all([list(from), list(to, 200)]);
        const etag = etagOf(source.Contents?.[0]?.ETag);
        await client.send(
          new CopyObjectCommand({
            Bucket,
            Key: to,
            CopySource: `${Bucket}/${from}`,
            MetadataDirective: 'REPLACE',
            ContentType: 'text/plain; charset=utf-8',
          }),
        );
        await put(from, new Uint8Array([0xff]), { IfMatch: etag });
        await client.send(
          new DeleteObjectsCommand({
            Bucket,
            Delete: { Objects: [{ Key: from }, { Key: leaseKey }], Quiet: true },
          }),
        );
      },
      cleanup: async (index, side) => {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key(own(side), `mv/t${index}.md`) }));
      },
    },
  ];
}

/** Changes counted with and without a quota (the totals' reservation or release is the difference). */
function quotaCases(): Array<{
  label: string;
  setup?: (store: MemoryStore) => Promise<unknown>;
  run: (store: MemoryStore) => Promise<unknown>;
}> {
  const create = (store: MemoryStore, path: string, file_text: string) =>
    store.create({ command: 'create', path, file_text });
  return [
    { label: 'create a new file (depth 2)', run: (store) => create(store, '/memories/q/new.md', 'new') },
    {
      label: 'create over a file it has seen, longer',
      run: (store) => create(store, '/memories/q/new.md', 'newer'),
    },
    {
      label: 'create over a file it has seen, shorter',
      run: (store) => create(store, '/memories/q/new.md', 'n'),
    },
    {
      label: 'insert',
      run: (store) =>
        store.insert({ command: 'insert', path: '/memories/q/new.md', insert_line: 1, insert_text: 'x' }),
    },
    {
      label: 'rename a file',
      run: (store) =>
        store.rename({ command: 'rename', old_path: '/memories/q/new.md', new_path: '/memories/q/moved.md' }),
    },
    {
      label: 'delete a file',
      run: (store) => store.delete({ command: 'delete', path: '/memories/q/moved.md' }),
    },
  ];
}

function quotaReport(counts: ReadonlyArray<{ label: string; without: number; with: number }>): string[] {
  const lines = [
    '',
    'HTTP requests with a quota (`quota: { maxBytes, maxFiles }`): the totals are one object changed by conditional writes, raised before a change that adds bytes or a file and lowered after one that removes them (a delete first freezes the file at the version whose bytes it gives back); the first change of a namespace in a process reads them once.',
    '',
    '| command | without a quota | with a quota | goal | result |',
    '|---|---:|---:|---|---|',
  ];
  for (const { label, without, with: withQuota } of counts) {
    // A delete under a quota also freezes the file at the version whose bytes it gives back.
    const allowed = label.startsWith('delete') ? 2 : 1;
    lines.push(
      `| ${label} | ${without} | ${withQuota} | <= ${allowed} more | ${withQuota - without <= allowed ? 'PASS' : 'ABOVE'} |`,
    );
  }
  return lines;
}

/** Folder-sized changes, counted but not timed (their cost grows with the folder). */
function folderCases(store: MemoryStore) {
  const files = Array.from({ length: 10 }, (_, index) => `/memories/folder10/f${index}.md`);
  return [
    {
      label: 'rename a folder of 10 files',
      setup: async () => {
        for (const path of files) await store.create({ command: 'create', path, file_text: 'f' });
      },
      run: () =>
        store.rename({ command: 'rename', old_path: '/memories/folder10', new_path: '/memories/moved10' }),
    },
    {
      label: 'delete a folder of 10 files',
      setup: async () => {},
      run: () => store.delete({ command: 'delete', path: '/memories/moved10' }),
    },
  ];
}

function report(
  counted: Array<{ test: Case; requests: number; turns: number; trips: number }>,
  timed: Array<{ test: Case; memdir: number; raw: number }>,
  floor: number,
  listing: { requests: number; bytesToClient: number; chars: number },
  scale: { small: number[]; huge: number[] },
  total: number,
): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const lines = [
    '## S3 (radosgw)',
    '',
    'HTTP requests per command, counted at the S3Client (every attempt) and on the wire (turns through a',
    'loopback proxy), and round trips (the longest chain of requests each sent after the previous answered).',
    'After the startup probe (once per client and bucket, before the first change: 7 requests on radosgw).',
    '',
    '| command | requests | wire turns | round trips | goal (requests) | result |',
    '|---|---:|---:|---:|---|---|',
  ];
  for (const { test, requests, turns, trips } of counted) {
    const goal = test.goal;
    const verdict = goal === undefined ? 'reported' : requests <= goal.requests ? 'PASS' : 'ABOVE';
    lines.push(`| ${test.label} | ${requests} | ${turns} | ${trips} | ${goal?.text ?? '-'} | ${verdict} |`);
  }
  lines.push(
    '',
    `Latency of each command against the raw S3Client sending the same requests (median of alternating blocks; one HEAD: ${ms(floor)}):`,
    '',
    '| command | memdir | raw S3Client | ratio memdir/raw | goal | result |',
    '|---|---:|---:|---:|---:|---|',
  );
  for (const { test, memdir, raw } of timed) {
    const ratio = memdir / raw;
    lines.push(
      `| ${test.label} | ${ms(memdir)} | ${ms(raw)} | ${formatRatio(ratio)} | <= 1.50x | ${ratio <= 1.5 ? 'PASS' : 'ABOVE'} |`,
    );
  }
  const small = median(scale.small);
  const huge = median(scale.huge);
  lines.push(
    '',
    `\`view /memories\` of 10,000 files in 100 folders: ${listing.requests} requests, ${(listing.bytesToClient / 1024).toFixed(0)} KiB from S3, ${listing.chars.toLocaleString('en-US')} characters to the model.`,
    '',
    '| view of a 100-file folder | namespace of 100 files | namespace of ' +
      `${total.toLocaleString('en-US')} files | ratio | goal | result |`,
    '|---|---:|---:|---:|---:|---|',
    `| median latency | ${ms(small)} | ${ms(huge)} | ${formatRatio(huge / small)} | <= 1.20x | ${huge / small <= 1.2 ? 'PASS' : 'ABOVE'} |`,
  );
  return lines.join('\n');
}
