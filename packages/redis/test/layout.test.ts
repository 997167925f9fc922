// The layout on the server: key names, hash tags and slots, the stored form of paths, and the
// invariant check the other tests run after every test (shown here to catch what it should).
import { compareNames } from '@memdir/core/driver';
import fc from 'fast-check';
import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/index.js';
import { fromStored, toStored } from '../src/layout.js';
import {
  checkLayout,
  clusterUrl,
  deleteUnder,
  keysUnder,
  newCluster,
  newRedis,
  uniquePrefix,
} from './helpers.js';

const client = newRedis();
const cluster = newCluster();
beforeAll(async () => {
  await client.connect();
  await cluster.connect();
});
afterAll(async () => {
  await client.quit();
  await cluster.quit();
});

const create = (path: string, file_text = 'x') => ({ command: 'create' as const, path, file_text });

describe('keys', () => {
  it('each namespace has its own hash tag under the key prefix, nested namespaces included', async () => {
    const prefix = uniquePrefix('k');
    const root = createRedisStore({ client, keyPrefix: prefix });
    const tenant = createRedisStore({ client, keyPrefix: prefix, namespace: 'tenant-1' });
    await root.create(create('/memories/a.md'));
    await tenant.create(create('/memories/a.md'));
    await tenant.delete({ command: 'delete', path: '/memories/a.md' });
    // History is on by default: each file's versions (`h:` and its file id), every version and its
    // paths, shared contents; the tenant keeps its versions (and the content of the first) after
    // the delete. The registry of namespaces (`#`) is a key of its own. The root's file has its
    // path (`k`) and id (`d`) in the indexes of records.
    const named = (await keysUnder(client, prefix)).map((key) => key.replace(/:h:mem_[\w-]+$/, ':h:*'));
    expect(named.sort()).toEqual(
      [
        `${prefix}{${prefix}#}:g`,
        ...['d', 'e', 'f', 'h:*', 'i', 'k', 'n', 'o', 'p', 'q', 'r', 's', 't', 'v'].map(
          (key) => `${prefix}{${prefix}/}:${key}`,
        ),
        ...['f', 'h:*', 'o', 'p', 'q', 'r', 's', 't'].map((key) => `${prefix}{${prefix}/tenant-1}:${key}`),
      ].sort(),
    );
    await deleteUnder(client, prefix);
  });

  it('the default prefix is memdir:', async () => {
    const store = createRedisStore({ client, namespace: `layout-${Date.now()}` });
    await store.create(create('/memories/a.md'));
    const keys = await keysUnder(client, 'memdir:{memdir:/layout-');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith('memdir:{memdir:/layout-'))).toBe(true);
    await store.delete({ command: 'delete', path: '/memories/a.md' });
    for (const key of keys) await client.del(key);
  });

  it('a keyPrefix holding { or }, a glob character, whitespace or a control character is refused with the rule, on the store and on the client', () => {
    const rule =
      'it must not contain "{" or "}" (memdir puts each namespace in its own hash tag), the glob characters * ? [ ] \\ (so the pattern {prefix}* of SCAN and of ACL key rules names the store\'s keys and no others), whitespace or control characters';
    for (const keyPrefix of [
      'memdir{',
      'a}b',
      '{x}:',
      'app*:',
      'a?:',
      'a[1]:',
      'a\\:',
      'my app:',
      'a\n:',
      'a\u0000',
    ]) {
      expect(() => createRedisStore({ client, keyPrefix })).toThrow(
        new TypeError(`Invalid @memdir/redis option keyPrefix: ${JSON.stringify(keyPrefix)}: ${rule}`),
      );
    }
    for (const keyPrefix of ['', 'memdir:', 'tenant-1:', 'app/ü.x:']) {
      expect(() => createRedisStore({ client, keyPrefix })).not.toThrow();
    }
    const braced = newRedis();
    braced.options.keyPrefix = 'app{1}:';
    expect(() => createRedisStore({ client: braced })).toThrow(/contains "\{" or "\}"/);
    braced.disconnect();
    expect(() => createRedisStore({ client, url: 'redis://127.0.0.1:1' })).toThrow(
      'Invalid @memdir/redis option client: give either client or url, not both',
    );
  });

  it('stores with different prefixes share no key, also when one prefix begins the other', async () => {
    const base = uniquePrefix('share');
    const stores = [`${base}t1`, `${base}t10`, `${base}t1:`].map((keyPrefix) =>
      createRedisStore({ client, keyPrefix }),
    );
    for (const [index, store] of stores.entries())
      await store.create(create('/memories/a.md', `store ${index}`));
    for (const [index, store] of stores.entries()) {
      expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
        `Here's the content of /memories/a.md with line numbers:\n     1\tstore ${index}`,
      );
    }
    await deleteUnder(client, base);
  });

  it('on a Cluster, every key of a namespace is in one slot, and namespaces spread over the masters', async () => {
    const prefix = uniquePrefix('c');
    const stores = Array.from({ length: 12 }, (_, index) =>
      createRedisStore({ client: cluster, keyPrefix: prefix, namespace: `n${index}` }),
    );
    for (const store of stores) await store.create(create('/memories/dir/a.md'));
    const masters = new Set<string>();
    for (const node of (cluster as Cluster).nodes('master')) {
      const keys = await keysUnder(node, prefix);
      if (keys.length > 0) masters.add(`${node.options.host}:${node.options.port}`);
    }
    expect(masters.size).toBeGreaterThan(1);
    await checkLayout(cluster, prefix);
    await deleteUnder(cluster, prefix);
  });

  it('stores with different key prefixes and no namespace land in different slots', async () => {
    const prefixes = ['a', 'b', 'c', 'd', 'e'].map((label) => uniquePrefix(label));
    const slots = new Set<number>();
    for (const prefix of prefixes) {
      const store = createRedisStore({ client: cluster, keyPrefix: prefix });
      await store.create(create('/memories/a.md'));
      for (const key of await keysUnder(cluster, prefix)) {
        slots.add((await cluster.call('CLUSTER', 'KEYSLOT', key)) as number);
      }
      await deleteUnder(cluster, prefix);
    }
    expect(slots.size).toBe(prefixes.length);
  });

  it('a URL naming one Cluster node reaches the whole Cluster', async () => {
    const prefix = uniquePrefix('u');
    const store = createRedisStore({ url: clusterUrl(), keyPrefix: prefix });
    const namespaced = Array.from({ length: 6 }, (_, index) =>
      createRedisStore({ url: clusterUrl(), keyPrefix: prefix, namespace: `n${index}` }),
    );
    for (const each of [store, ...namespaced]) {
      await each.create(create('/memories/a.md', 'cluster'));
      expect(await each.view({ command: 'view', path: '/memories/a.md' })).toContain('cluster');
      await each.close();
    }
    await checkLayout(cluster, prefix);
    await deleteUnder(cluster, prefix);
  });
});

describe('the stored form of paths', () => {
  it('keeps every character below U+E000 and round-trips every string', () => {
    expect(toStored('notes/a_b %*?[]{}.md')).toBe('notes/a_b %*?[]{}.md');
    expect(toStored('\uD7FF')).toBe('\uD7FF');
    expect(toStored('\uE000')).toBe('\u{10E000}');
    expect(toStored('\uFFFF')).toBe('\u{10FFFF}');
    expect(toStored('\u{10000}')).toBe('\uE000');
    expect(toStored('\u{1F600}')).toBe('\u{1D600}');
    expect(toStored('\u{10FFFF}')).toBe('\u{10DFFF}');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(fromStored(toStored(text))).toBe(text);
      }),
    );
  });

  it('orders stored forms by UTF-8 bytes exactly as JavaScript orders the paths', () => {
    const character = fc.oneof(
      fc.constantFrom('a', '/', '.', '\uD7FF', '\uE000', '\uFFFF', '\u{10000}', '\u{1F600}', '\u{10FFFF}'),
      fc
        .integer({ min: 0x20, max: 0x10ffff })
        .filter((point) => point < 0xd800 || point > 0xdfff)
        .map((point) => String.fromCodePoint(point)),
    );
    const name = fc.array(character, { maxLength: 6 }).map((characters) => characters.join(''));
    fc.assert(
      fc.property(name, name, (a, b) => {
        const bytes = Buffer.compare(Buffer.from(toStored(a)), Buffer.from(toStored(b)));
        expect(bytes).toBe(compareNames(a, b));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the layout check', () => {
  it('catches a missing index entry, wrong sizes, a stray version or content, and a receipt out of step', async () => {
    const prefix = uniquePrefix('x');
    const store = createRedisStore({ client, keyPrefix: prefix });
    await store.create(create('/memories/dir/a.md', 'abc'));
    await checkLayout(client, prefix);
    const base = `${prefix}{${prefix}/}`;
    const breakages: Array<[() => Promise<unknown>, () => Promise<unknown>]> = [
      [
        () => client.zrem(`${base}:i`, '\u0001\u0000dir'),
        () => client.zadd(`${base}:i`, 0, '\u0001\u0000dir'),
      ],
      [() => client.hset(`${base}:s`, 'dir', '4'), () => client.hset(`${base}:s`, 'dir', '3')],
      [() => client.hset(`${base}:v`, 'ghost', 'v'), () => client.hdel(`${base}:v`, 'ghost')],
      [() => client.hset(`${base}:f`, 'orphan', 'x'), () => client.hdel(`${base}:f`, 'orphan')],
      [() => client.hset(`${base}:s`, 'dir/a.md', '4'), () => client.hset(`${base}:s`, 'dir/a.md', '3')],
      [() => client.hset(`${base}:r`, 'lonely', 'ok'), () => client.hdel(`${base}:r`, 'lonely')],
    ];
    for (const [breakIt, repair] of breakages) {
      await breakIt();
      await expect(checkLayout(client, prefix)).rejects.toThrow();
      await repair();
      await checkLayout(client, prefix);
    }
    await deleteUnder(client, prefix);
  });
});
