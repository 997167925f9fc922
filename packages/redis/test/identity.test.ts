// Identity on Redis: records kept by every change, listings in UTF-8 byte order, hashes of edits
// made in Lua, updates by id, removes with an expectation, and data written before records were
// kept (wave 3), on the standalone server and on the Cluster.
import { readFileSync } from 'node:fs';
import type { DriverPath, DriverRecord, MemoryHistory, MemoryStore } from '@memdir/core';
import { WAVE3_FILES, WAVE3_VERSIONS } from '@memdir/test-support';
import type { Cluster, Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisDriver, createRedisStore, type RedisDriver } from '../src/index.js';
import { checkLayout, deleteUnder, newCluster, newRedis, sha256Of, uniquePrefix } from './helpers.js';

const p = (path: string) => path as DriverPath;
const op = () => `op-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const record = { actor: null, command: 'create', toolUseId: null, keepVersions: 10, keepDays: 30 } as const;

/** A namespace the wave 3 release wrote (fixtures/make-wave3-namespace.mjs made the file). */
interface Wave3Fixture {
  readonly prefix: string;
  readonly namespace: string;
  readonly keys: readonly {
    readonly key: string;
    readonly type: 'string' | 'hash' | 'zset';
    readonly value: string | readonly (readonly [string, string])[];
  }[];
}
const wave3: Wave3Fixture = JSON.parse(
  readFileSync(new URL('./fixtures/wave3-namespace.json', import.meta.url), 'utf8'),
);

/** Writes the fixture's keys under `prefix` instead of the one they were written under. */
async function loadWave3(client: Redis | Cluster, prefix: string): Promise<void> {
  const bytes = (base64: string) => Buffer.from(base64, 'base64');
  for (const { key, type, value } of wave3.keys) {
    const name = key.replaceAll(wave3.prefix, prefix);
    if (type === 'string') await client.set(name, bytes(value as string));
    else if (type === 'hash') {
      for (const [field, content] of value as [string, string][])
        await client.hset(name, bytes(field), bytes(content));
    } else {
      for (const [member, score] of value as [string, string][])
        await client.zadd(name, score, bytes(member));
    }
  }
}

for (const [name, make] of [
  ['standalone', () => newRedis()],
  ['Cluster', () => newCluster()],
] as const) {
  describe(`identity (${name})`, () => {
    const client: Redis | Cluster = make();
    let prefix = '';
    let driver: RedisDriver;
    beforeAll(() => client.connect());
    afterAll(() => client.quit());
    afterEach(async () => {
      await checkLayout(client, prefix);
      await deleteUnder(client, prefix);
    });
    const open = () => {
      prefix = uniquePrefix('id');
      driver = createRedisDriver({ client, keyPrefix: prefix });
      return driver;
    };

    it('write returns the record; content changes and renames keep the id; an edit in Lua gets its hash on read', async () => {
      open();
      const { record: made } = await driver.write(p('a/x.md'), 'one', { op: op(), record });
      expect(made).toMatchObject({ kind: 'file', path: 'a/x.md', sha256: sha256Of('one'), size: 3 });
      expect(made!.versionId).not.toBeNull();
      await driver.edit(
        p('a/x.md'),
        { kind: 'str_replace', oldStr: 'one', newStr: 'two' },
        {
          op: op(),
          maxFileBytes: 1000,
        },
      );
      await driver.move(p('a'), p('b'), { op: op() });
      const moved = (await driver.readRecord!(p('b/x.md'), { content: true })) as DriverRecord;
      expect(moved).toMatchObject({ fileId: made!.fileId, sha256: sha256Of('two'), content: 'two' });
      expect(moved.createdAt).toBe(made!.createdAt);
      expect(await driver.locate!(made!.fileId)).toMatchObject({ path: 'b/x.md', sha256: sha256Of('two') });
      expect(await driver.locate!('mem_not_a_real_file_id_here')).toBeNull();
      expect(await driver.locate!('nonsense')).toBeNull();
      // Another namespace never finds it.
      expect(await driver.namespace('other').locate!(made!.fileId)).toBeNull();
    });

    it('listRecords: UTF-8 byte order (U+E000 before U+1F600), depth markers, keyset pages', async () => {
      open();
      const paths = ['a.md', 'a-b.md', 'a/x.md', 'a/y/z.md', '\u{1F600}.md', '\uE000.md', 'b/c/d/e.md'];
      for (const path of paths) await driver.write(p(path), path, { op: op() });
      const all = await driver.listRecords!({ limit: 100 });
      expect(all.items.map((item) => item.path)).toEqual(
        [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
      );
      expect(all.next).toBeNull();
      const top = await driver.listRecords!({ depth: 1, limit: 100 });
      expect(top.items.map((item) => `${item.kind}:${item.path}`)).toEqual([
        'file:a-b.md',
        'file:a.md',
        'folder:a',
        'folder:b',
        'file:\uE000.md',
        'file:\u{1F600}.md',
      ]);
      const keys: string[] = [];
      let after: string | null = null;
      do {
        const page = await driver.listRecords!({ depth: 1, limit: 2, after });
        keys.push(...page.items.map((item) => item.path));
        after = page.next;
      } while (after !== null);
      expect(keys).toEqual(top.items.map((item) => item.path));
      const skipped = await driver.listRecords!({ limit: 100, after: 'a/' });
      expect(skipped.items.map((item) => item.path)).toEqual(['b/c/d/e.md', '\uE000.md', '\u{1F600}.md']);
      const under = await driver.listRecords!({ under: p('a'), depth: 1, limit: 100 });
      expect(under.items.map((item) => `${item.kind}:${item.path}`)).toEqual(['file:a/x.md', 'folder:a/y']);
    });

    it('updateById: content, path, both; expectSha256; refusals', async () => {
      open();
      const { record: made } = await driver.write(p('n.md'), 'v1', { op: op(), record });
      const id = made!.fileId;
      const base = { op: op(), maxFileBytes: 100, record: { ...record, command: 'update' as const } };
      const same = await driver.updateById!(id, { content: 'v1' }, base);
      expect(same.changed).toBe(false);
      const updated = await driver.updateById!(
        id,
        { content: 'v2', path: p('m/n.md') },
        {
          ...base,
          op: op(),
          expectSha256: sha256Of('v1'),
        },
      );
      expect(updated).toMatchObject({
        changed: true,
        record: { path: 'm/n.md', fileId: id, sha256: sha256Of('v2') },
      });
      await expect(
        driver.updateById!(id, { content: 'v3' }, { ...base, op: op(), expectSha256: sha256Of('v1') }),
      ).rejects.toMatchObject({ code: 'CONFLICT', path: 'm/n.md' });
      await driver.write(p('o.md'), 'o', { op: op() });
      await expect(driver.updateById!(id, { path: p('o.md') }, { ...base, op: op() })).rejects.toMatchObject({
        code: 'ALREADY_EXISTS',
      });
      await expect(
        driver.updateById!(id, { path: p('m/n.md/q') }, { ...base, op: op() }),
      ).rejects.toMatchObject({
        code: 'PATH_CONFLICT',
        path: 'm/n.md',
      });
      await expect(
        driver.updateById!(id, { content: 'x'.repeat(101) }, { ...base, op: op() }),
      ).rejects.toMatchObject({
        code: 'TOO_LARGE',
      });
      await expect(
        driver.updateById!('mem_0000000000000000', { content: 'x' }, { ...base, op: op() }),
      ).rejects.toMatchObject({
        code: 'NOT_FOUND',
        path: '',
      });
      // After an edit made in Lua (hash unknown), expectSha256 still holds.
      await driver.edit(p('m/n.md'), { kind: 'insert', line: 1, text: 'w' }, { op: op(), maxFileBytes: 100 });
      const afterEdit = await driver.updateById!(
        id,
        { content: 'v4' },
        {
          ...base,
          op: op(),
          expectSha256: sha256Of('v2\nw'),
        },
      );
      expect(afterEdit.record.sha256).toBe(sha256Of('v4'));
    });

    it('remove with expect: mismatch or a directory refuses, a match removes, nothing there is false', async () => {
      open();
      const { record: made } = await driver.write(p('d/r.md'), 'r', { op: op() });
      await expect(
        driver.remove(p('d/r.md'), { op: op(), expect: { sha256: sha256Of('x') } }),
      ).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      await expect(
        driver.remove(p('d'), { op: op(), expect: { fileId: made!.fileId } }),
      ).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      await driver.edit(p('d/r.md'), { kind: 'insert', line: 0, text: 'e' }, { op: op(), maxFileBytes: 100 });
      expect(
        await driver.remove(p('d/r.md'), {
          op: op(),
          expect: { fileId: made!.fileId, sha256: sha256Of('e\nr') },
        }),
      ).toBe(true);
      expect(await driver.remove(p('d/r.md'), { op: op(), expect: { fileId: made!.fileId } })).toBe(false);
    });

    it('a namespace the wave 3 release wrote (its own keys, fixtures/wave3-namespace.json): files, history and ids as they were, records at first use', async () => {
      open();
      await loadWave3(client, prefix);
      const store = createRedisStore({
        client,
        keyPrefix: prefix,
        namespace: wave3.namespace,
      }) as MemoryStore & MemoryHistory;
      const space = driver.namespace(wave3.namespace);
      const expected = WAVE3_FILES;
      // The ids and newest versions wave 3's history gives each file.
      const newest = new Map<string, { fileId: string; id: string }>();
      for (const path of expected.keys()) {
        const [version] = (await store.history({ path: `/memories/${path}`, limit: 1 })).versions;
        newest.set(path, { fileId: version!.fileId, id: version!.id });
      }
      expect((await store.history({ limit: 100 })).versions).toHaveLength(WAVE3_VERSIONS);
      // A page in UTF-8 byte order of the paths, each record from the files as wave 3 left them.
      const page = await space.listRecords!({ limit: 10 });
      expect(page.items.map((item) => item.path)).toEqual([...expected.keys()]);
      for (const item of page.items as DriverRecord[]) {
        const content = expected.get(item.path)!;
        expect(item).toMatchObject({
          kind: 'file',
          fileId: newest.get(item.path)!.fileId,
          sha256: sha256Of(content),
          size: Buffer.byteLength(content),
          versionId: newest.get(item.path)!.id,
        });
        expect(await space.locate!(item.fileId)).toMatchObject({
          path: item.path,
          sha256: sha256Of(content),
        });
      }
      // The memory tool reads what wave 3 wrote, and a change by id is one more version.
      expect(await store.execute({ command: 'view', path: '/memories/notes.md' })).toBe(
        "Here's the content of /memories/notes.md with line numbers:\n     1\tsecond\n     2\t",
      );
      const notes = newest.get('notes.md')!;
      const updated = await space.updateById!(
        notes.fileId,
        { content: 'third\n', path: p('kept/notes.md') },
        {
          op: op(),
          record: { ...record, command: 'update' },
          expectSha256: sha256Of('second\n'),
          maxFileBytes: 1_000_000,
        },
      );
      expect(updated.record).toMatchObject({
        path: 'kept/notes.md',
        fileId: notes.fileId,
        sha256: sha256Of('third\n'),
      });
      const versions = (await store.history({ path: '/memories/kept/notes.md', limit: 10 })).versions;
      expect(versions.map((version) => version.fileId)).toEqual(Array(versions.length).fill(notes.fileId));
      expect(versions[0]!.id).toBe(updated.record.versionId);
      await store.close();
    });

    it('data written the way wave 3 did (entries without records) gets ids, hashes and indexes at first use', async () => {
      open();
      await driver.write(p('w/a.md'), 'alpha', { op: op(), record });
      await driver.write(p('w/b.md'), 'beta', { op: op() });
      // Back to the wave 3 form: entries `{content key}\t{file id}`, no record indexes, no mark.
      const base = `${prefix}{${prefix}/}`;
      for (const [path, value] of Object.entries(await client.hgetall(`${base}:v`))) {
        await client.hset(`${base}:v`, path, value.split('\t').slice(0, 2).join('\t'));
      }
      await client.del(`${base}:k`, `${base}:d`);
      await client.hdel(`${base}:t`, 'rk');
      const page = await driver.listRecords!({ limit: 10 });
      expect(page.items).toMatchObject([
        { path: 'w/a.md', sha256: sha256Of('alpha'), size: 5 },
        { path: 'w/b.md', sha256: sha256Of('beta'), size: 4 },
      ]);
      const first = page.items[0] as DriverRecord;
      expect(first.versionId).not.toBeNull();
      expect(await driver.locate!(first.fileId)).toMatchObject({ path: 'w/a.md' });
    });
  });
}
