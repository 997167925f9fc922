// What only the Redis driver does: replays answered from receipts, the fence on late changes, the
// bound on large moves, the cut listing in JavaScript's order, and names taken literally.
import {
  createInMemoryStore,
  createMemoryStore,
  type DriverListing,
  type DriverPath,
  isMemoryToolError,
} from '@memdir/core';
import { type PrivateServer, startPrivateRedis } from '@memdir/test-support';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisDriver, type RedisDriver } from '../src/index.js';
import { checkLayout, deleteUnder, newRedis, uniquePrefix } from './helpers.js';

const client = newRedis();
beforeAll(() => client.connect());
afterAll(() => client.quit());

let prefix = '';
let driver: RedisDriver;
let current: Redis = client;
function open(options: Parameters<typeof createRedisDriver>[0] = {}, on: Redis = client): RedisDriver {
  prefix = uniquePrefix('d');
  current = on;
  driver = createRedisDriver({ client: on, keyPrefix: prefix, ...options });
  return driver;
}
afterEach(async () => {
  await checkLayout(current, prefix);
  await deleteUnder(current, prefix);
});

const p = (path: string) => path as DriverPath;
const op = () => `op-${Math.random().toString(36).slice(2)}-${Date.now()}`;

function entryPaths(listing: Awaited<ReturnType<RedisDriver['describe']>>): string[] {
  expect(listing?.kind).toBe('directory');
  return (listing as DriverListing).entries.map((entry) => entry.path);
}

async function paths(target: RedisDriver): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for await (const entry of target.list(p(''))) {
    const node = await target.read(entry.path);
    files[entry.path] = node?.kind === 'file' ? node.content : '?';
  }
  return files;
}

describe('replays (the same operation id sent again)', () => {
  it('a write replayed after another change returns its first version and applies nothing', async () => {
    open();
    const id = op();
    const first = await driver.write(p('a.md'), 'one', { op: id });
    await driver.write(p('a.md'), 'two', { op: op() });
    const replay = await driver.write(p('a.md'), 'one', { op: id });
    expect(replay).toEqual(first);
    expect(await driver.read(p('a.md'))).toMatchObject({ kind: 'file', content: 'two' });
  });

  it('a compare-and-swap replayed after it applied succeeds instead of reporting a conflict', async () => {
    open();
    const { version } = await driver.write(p('log.md'), 'a', { op: op() });
    const id = op();
    const applied = await driver.write(p('log.md'), 'a\nb', { op: id, expect: { version } });
    // The same request again: its expectation no longer holds, but its receipt does.
    await expect(driver.write(p('log.md'), 'a\nb', { op: id, expect: { version } })).resolves.toEqual(
      applied,
    );
    expect(await driver.read(p('log.md'))).toMatchObject({ content: 'a\nb' });
  });

  it('a remove replayed returns true (its first outcome), not "nothing there"', async () => {
    open();
    await driver.write(p('dir/x.md'), 'x', { op: op() });
    const id = op();
    expect(await driver.remove(p('dir'), { op: id })).toBe(true);
    expect(await driver.remove(p('dir'), { op: id })).toBe(true);
    expect(await driver.remove(p('dir'), { op: op() })).toBe(false);
  });

  it('a move replayed succeeds again without moving anything', async () => {
    open();
    await driver.write(p('from/x.md'), 'x', { op: op() });
    const id = op();
    await driver.move(p('from'), p('to'), { op: id });
    await driver.write(p('from/y.md'), 'y', { op: op() });
    await expect(driver.move(p('from'), p('to'), { op: id })).resolves.toBeUndefined();
    expect(await paths(driver)).toEqual({ 'from/y.md': 'y', 'to/x.md': 'x' });
  });

  it('a refused change records nothing: the same id may apply once the refusal is gone', async () => {
    open({});
    await driver.write(p('taken.md'), 'x', { op: op() });
    const id = op();
    await expect(
      driver.write(p('taken.md'), 'y', { op: id, expect: { absent: true } }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      path: 'taken.md',
    });
    await driver.remove(p('taken.md'), { op: op() });
    await driver.write(p('taken.md'), 'y', { op: id, expect: { absent: true } });
    expect(await driver.read(p('taken.md'))).toMatchObject({ content: 'y' });
  });

  it('receipts older than 10 minutes are dropped by later changes (one in 8 trims)', async () => {
    open();
    const id = op();
    await driver.write(p('a.md'), 'a', { op: id });
    const base = `${prefix}{${prefix}/}`;
    await client.zadd(`${base}:q`, Date.now() - 11 * 60_000, id);
    const kept = op();
    await driver.write(p('b.md'), 'b', { op: kept });
    for (let index = 0; index < 200 && (await client.hexists(`${base}:r`, id)) === 1; index++) {
      await driver.write(p('c.md'), String(index), { op: op() });
    }
    expect(await client.hexists(`${base}:r`, id)).toBe(0);
    expect(await client.zscore(`${base}:q`, id)).toBeNull();
    expect(await client.hexists(`${base}:r`, kept)).toBe(1);
  });
});

describe('the fence: a change that reaches Redis too late is never applied', () => {
  // DEBUG SLEEP stops the whole server: these tests use one of their own.
  let server: PrivateServer;
  let own: Redis;
  let sleeper: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    own = newRedis(server.url);
    sleeper = newRedis(server.url);
    await own.connect();
    await sleeper.connect();
  });
  afterAll(async () => {
    own.disconnect();
    sleeper.disconnect();
    await server.close();
  });

  it('a write held up behind DEBUG SLEEP past its deadline: BACKEND timeout, and the fence keeps the file from ever appearing', async () => {
    open({}, own);
    await driver.ready();
    const sleeping = sleeper.call('DEBUG', 'SLEEP', '1.6');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const write = driver.write(p('late.md'), 'late', { op: op(), deadline: Date.now() + 1_000 });
    const error = await write.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(Date.now() - started).toBeLessThan(1_250);
    expect(isMemoryToolError(error) && error.code).toBe('BACKEND');
    expect(error).toMatchObject({ reason: 'timeout', outcome: 'unknown' });
    // The request was on the wire: Redis runs it once the sleep ends, past its fence, and refuses it.
    await sleeping;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await driver.read(p('late.md'))).toBeNull();
  });

  it('through the store: the command fails at its deadline as "may or may not have been saved", and stays unsaved', async () => {
    open({}, own);
    const store = createMemoryStore(driver, { timeoutMs: 1_000 });
    await driver.ready();
    const sleeping = sleeper.call('DEBUG', 'SLEEP', '2');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await expect(
      store.create({ command: 'create', path: '/memories/late.md', file_text: 'late' }),
    ).rejects.toMatchObject({
      code: 'BACKEND',
      message:
        'The memory store is unavailable: it did not answer within 1 second. The change may or may not have been saved: view the path before you try again.',
    });
    expect(Date.now() - started).toBeLessThan(1_900);
    await sleeping;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(store.view({ command: 'view', path: '/memories/late.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('when this machine\u2019s clock falls behind the server\u2019s, the driver learns the offset and the change applies', async () => {
    open({}, own);
    await driver.ready();
    const realNow = Date.now.bind(Date);
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 60_000);
    try {
      await driver.write(p('skew.md'), 'applied', { op: op() });
      await driver.write(p('skew.md'), 'again', { op: op() });
    } finally {
      spy.mockRestore();
    }
    expect(await driver.read(p('skew.md'))).toMatchObject({ content: 'again' });
  });
});

describe('moves and removes of large folders', () => {
  it('a folder of more than maxSubtreeEntries entries is refused whole, and nothing changes', async () => {
    open({ maxSubtreeEntries: 5 });
    for (const name of ['a', 'b', 'c', 'e/f', 'e/g'])
      await driver.write(p(`big/${name}`), name, { op: op() });
    const before = await paths(driver);
    for (const attempt of [
      () => driver.remove(p('big'), { op: op() }),
      () => driver.move(p('big'), p('elsewhere'), { op: op() }),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(isMemoryToolError(error) && error.code).toBe('BACKEND');
      expect((error as Error).message).toBe(
        'The memory store cannot move or delete 6 files and folders in one step (at most 5): move or delete its subfolders one at a time.',
      );
    }
    expect(await paths(driver)).toEqual(before);
    // Its subfolder fits.
    await driver.move(p('big/e'), p('e'), { op: op() });
    await driver.remove(p('big'), { op: op() });
    expect(await paths(driver)).toEqual({ 'e/f': 'e/f', 'e/g': 'e/g' });
  });
});

describe('listings', () => {
  it('describe sends back at most `limit` entries, and still counts them all', async () => {
    open();
    for (let index = 0; index < 30; index++) {
      await driver.write(p(`dir/${String(index).padStart(2, '0')}.md`), 'x', { op: op() });
    }
    await driver.write(p('dir/sub/deep.md'), 'xy', { op: op() });
    const listing = await driver.describe(p('dir'), { limit: 5 });
    expect(listing).toEqual({
      kind: 'directory',
      size: 32,
      count: 32,
      entries: ['00.md', '01.md', '02.md', '03.md', '04.md'].map((path) => ({
        path,
        directory: false,
        size: 1,
      })),
    });
  });

  it('a cut listing follows JavaScript\u2019s order, where U+1F600 comes before U+E000 (not Redis\u2019s byte order)', async () => {
    open();
    const names = ['\uE000 private', '\u{1F600} smile', '\uFFFD', '\u{10FFFF}', 'z', '\uD7FF'];
    for (const name of names) await driver.write(p(`mix/${name}`), name, { op: op() });
    await driver.write(p(`mix/\u{1F600} dir/\uE000`), 'in', { op: op() });
    const sorted = [...names, '\u{1F600} dir'].sort();
    for (let limit = 1; limit <= sorted.length + 1; limit++) {
      const listing = await driver.describe(p('mix'), { limit });
      expect(listing?.kind).toBe('directory');
      const shown = entryPaths(listing);
      const expected: string[] = [];
      for (const name of sorted) {
        expected.push(name);
        if (name === '\u{1F600} dir') expected.push('\u{1F600} dir/\uE000');
      }
      expect(shown).toEqual(expected.slice(0, limit));
    }
    // And through the whole engine, against the reference, with a listing cut to a few lines.
    const redisStore = createMemoryStore(driver, { maxViewChars: 80 });
    const reference = createInMemoryStore({ maxViewChars: 80 });
    for (const name of names) {
      await reference.create({ command: 'create', path: `/memories/mix/${name}`, file_text: name });
    }
    await reference.create({
      command: 'create',
      path: '/memories/mix/\u{1F600} dir/\uE000',
      file_text: 'in',
    });
    for (const path of ['/memories', '/memories/mix']) {
      expect(await redisStore.view({ command: 'view', path })).toBe(
        await reference.view({ command: 'view', path }),
      );
    }
  });

  it('hidden entries are skipped as a block, and a hidden folder lists what is visible inside it', async () => {
    open();
    for (let index = 0; index < 300; index++) await driver.write(p(`.cache/${index}`), 'xx', { op: op() });
    await driver.write(p('node_modules/pkg/index.js'), 'x', { op: op() });
    await driver.write(p('visible.md'), 'abc', { op: op() });
    await driver.write(p('.cache/sub/.secret'), 'x', { op: op() });
    expect(await driver.describe(p(''), { limit: 100 })).toEqual({
      kind: 'directory',
      size: 3,
      count: 1,
      entries: [{ path: 'visible.md', directory: false, size: 3 }],
    });
    const hidden = await driver.describe(p('.cache'), { limit: 2 });
    expect(hidden).toMatchObject({ kind: 'directory', size: 600, count: 301 });
  });
});

describe('names and contents', () => {
  it('names with _ % * ? [ ] { } \u2019 " : and spaces are literal, and never reach a key name', async () => {
    open();
    const names = ['a_b', 'aXb', 'a%b', 'a*', 'ab', 'a?', '[x]', '{tag}', "it's", '"q"', 'c:d', 'two words'];
    for (const name of names) await driver.write(p(`n/${name}/f`), name, { op: op() });
    const listing = await driver.describe(p('n'), { limit: 100 });
    expect(entryPaths(listing).filter((path) => !path.includes('/'))).toEqual([...names].sort());
    expect(await driver.remove(p('n/a*'), { op: op() })).toBe(true);
    expect(await driver.read(p('n/ab/f'))).toMatchObject({ content: 'ab' });
    await driver.move(p('n/{tag}'), p('{other}'), { op: op() });
    expect((await client.keys(`${prefix}*`)).sort()).toEqual(
      ['d', 'e', 'f', 'i', 'k', 'q', 'r', 's', 't', 'v'].map((key) => `${prefix}{${prefix}/}:${key}`),
    );
  });

  it('content with NUL, CR, invalid-looking bytes and astral characters comes back exactly', async () => {
    open();
    const content = 'a\u0000b\r\n\u0001\u007f\u{1F600}\uFFFF\uE000 end\n';
    const { version } = await driver.write(p('bytes.bin'), content, { op: op() });
    expect(await driver.read(p('bytes.bin'))).toEqual({ kind: 'file', content, version });
    expect(await driver.describe(p(''), { limit: 10 })).toMatchObject({
      size: Buffer.byteLength(content),
    });
  });
});
