// Servers and checks the Redis tests share. The servers come from @memdir/test-support's setup
// (test/servers.ts: REDIS_URL, and REDIS_CLUSTER_URLS for the Cluster's masters); a missing server
// fails the run, never skips it.

import { createHash } from 'node:crypto';
import type { DriverPath, MemoryDriver, MemoryHistory, MemoryStore, MemoryVersion } from '@memdir/core';
import { redisClusterNodes, redisUrl } from '@memdir/test-support';
import { Cluster, Redis } from 'ioredis';
import { expect } from 'vitest';

export { redisUrl } from '@memdir/test-support';

/** The Cluster's masters (REDIS_CLUSTER_URLS). */
export function clusterNodes(): Array<{ host: string; port: number }> {
  return redisClusterNodes();
}

/** The URL of one Cluster node (the store reaches the whole Cluster through it). */
export function clusterUrl(): string {
  const [first] = clusterNodes();
  return `redis://${first!.host}:${first!.port}`;
}

export function newRedis(url = redisUrl()): Redis {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  client.on('error', () => {});
  return client;
}

export function newCluster(): Cluster {
  const cluster = new Cluster(clusterNodes(), { lazyConnect: true });
  cluster.on('error', () => {});
  return cluster;
}

/** A key prefix no other test uses. */
export function uniquePrefix(label = 't'): string {
  return `mdt:${label}${Math.random().toString(36).slice(2, 10)}:`;
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Every key under `prefix`, from every master. */
export async function keysUnder(client: Redis | Cluster, prefix: string): Promise<string[]> {
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  // The masters side by side: this runs after every conformance test.
  const perNode = await Promise.all(
    nodes.map(async (node) => {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', `${globEscape(prefix)}*`, 'COUNT', 1000);
        keys.push(...found);
        cursor = next;
      } while (cursor !== '0');
      return keys;
    }),
  );
  return perNode.flat();
}

export async function deleteUnder(client: Redis | Cluster, prefix: string): Promise<void> {
  await Promise.all((await keysUnder(client, prefix)).map((key) => client.del(key)));
}

function isHidden(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

function member(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? `\0${path}` : `${path.slice(0, slash)}\0${path.slice(slash + 1)}`;
}

/**
 * A file's entry in the versions hash: its content key, its file id, and its record (SHA-256 in
 * base64 or '', times, version sequence), absent in an entry written before records were kept.
 */
function entryOf(value: string): [key: string, fileId: string | undefined, record: string[]] {
  const [key, fileId, ...record] = value.split('\t');
  return [key!, fileId, record];
}

/** The stored form's path (layout.ts's fromStored, written again here). */
function originalOf(stored: string): string {
  let path = '';
  for (const character of stored) {
    const point = character.codePointAt(0)!;
    if (point >= 0x10e000) path += String.fromCodePoint(point - 0x100000);
    else if (point >= 0xe000) path += String.fromCodePoint(point + 0x2000);
    else path += character;
  }
  return path;
}

// For each version record (cmsgpack, unpacked on the server): its sequence number, file id, path,
// previous path and content key ('' for none: a deletion, or redacted).
const VERSION_RECORDS = String.raw`
local out = {}
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local rec = cmsgpack.unpack(member)
  local key = ''
  if not rec[13] and rec[5] ~= 4 then key = rec[15] or string.format('%d', rec[1]) end
  out[#out + 1] = { string.format('%d', rec[1]), rec[2], rec[3] or '', rec[4] or '', key }
end
return out
`;

/**
 * Checks every namespace under `prefix` against the layout's invariants: each live file's content
 * there, every content referenced by a live file or a kept version (and counted so), each file's
 * size, the namespace's total bytes; the index exactly the files, their ancestors, and the ancestors
 * again in the directory region; each directory's size the total of the files visible from it;
 * receipts and their times in step; versions in their per-file and per-path indexes; the registry
 * listing exactly the namespaces that hold something; on a Cluster, every key of a namespace in one
 * slot.
 */
export async function checkLayout(client: Redis | Cluster, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  const chains = new Map<string, string[]>();
  const registries: string[] = [];
  for (const key of keys) {
    if (/^.*?\{[^}]*#\d*\}:g$/.test(key)) {
      registries.push(key);
      continue;
    }
    const match = /^(.*?)\{([^}]*)\}:([fvisrqtnopekd]|h:mem_[A-Za-z0-9_-]+)$/.exec(key);
    expect(match, `unexpected key ${key}`).not.toBeNull();
    expect(match![1]).toBe(prefix);
    expect(match![2]!.startsWith(`${prefix}/`), `the tag of ${key} starts with the prefix`).toBe(true);
    const chain = match![2]!.slice(prefix.length);
    const list = chains.get(chain) ?? [];
    list.push(key);
    chains.set(chain, list);
  }
  const registered = new Set<string>();
  for (const key of registries) {
    for (const entry of await client.zrange(key, 0, -1)) registered.add(entry.split('\u0000')[2]!);
  }
  const holding = new Set<string>();
  for (const [chain, chainKeys] of chains) {
    const base = `${prefix}{${prefix}${chain}}`;
    // All at once (one round trip): this runs after every conformance test.
    const [
      files,
      entries,
      sizes,
      index,
      receipts,
      receiptTimes,
      totalBytes,
      references,
      records,
      paths,
      recordKeys,
      recordIds,
      recordsMade,
    ] = await Promise.all([
      client.hgetall(`${base}:f`),
      client.hgetall(`${base}:v`),
      client.hgetall(`${base}:s`),
      client.zrange(`${base}:i`, 0, -1),
      client.hkeys(`${base}:r`),
      client.zrange(`${base}:q`, 0, -1),
      client.hget(`${base}:t`, 'bytes'),
      client.hgetall(`${base}:n`),
      client.eval(VERSION_RECORDS, 1, `${base}:o`) as Promise<string[][]>,
      client.zrange(`${base}:p`, 0, -1),
      client.zrange(`${base}:k`, 0, -1),
      client.hgetall(`${base}:d`),
      client.hget(`${base}:t`, 'rk'),
    ]);
    if (Object.keys(entries).length > 0 || records.length > 0) holding.add(chain);
    const versions: Record<string, string> = {};
    const counts = new Map<string, number>();
    const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    const expectedKeys: string[] = [];
    const expectedIds: Record<string, string> = {};
    const seqs = new Set(records.map((record) => record[0]));
    for (const [path, value] of Object.entries(entries)) {
      const [key, fileId, record] = entryOf(value);
      versions[path] = key;
      expect(files[key], `the content of ${path} in ${chain}`).toBeDefined();
      count(key);
      expectedKeys.push(originalOf(path));
      if (fileId !== undefined) expectedIds[fileId] = path;
      if (record.length === 0) continue;
      // The record: the hash of the content (or '' until the driver computes it), times, and the
      // version holding the content, when one is kept.
      expect(record.length, `the record of ${path} in ${chain}`).toBe(4);
      const [sha, created, changed, seq] = record as [string, string, string, string];
      if (sha !== '') {
        expect(sha, `the hash of ${path} in ${chain}`).toBe(
          createHash('sha256')
            .update(files[key] ?? '', 'utf8')
            .digest('base64')
            .slice(0, 43),
        );
      }
      expect(Number(created) <= Number(changed), `the times of ${path} in ${chain}`).toBe(true);
      if (seq !== '') expect(seqs.has(seq), `the version of ${path} in ${chain}`).toBe(true);
    }
    // The indexes of records: every file's path and id once they are made complete (rk), and
    // before that, only files (a namespace written before records were kept is missing some).
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    if (recordsMade !== null) {
      expect(recordKeys, `paths of ${chain}'s records, in byte order`).toEqual(expectedKeys.sort(byBytes));
      expect(recordIds, `ids of ${chain}'s records`).toEqual(expectedIds);
    } else {
      for (const path of recordKeys) expect(expectedKeys, `a record's path in ${chain}`).toContain(path);
      for (const [id, path] of Object.entries(recordIds)) {
        expect(expectedIds[id], `the path of file ${id} in ${chain}`).toBe(path);
      }
    }
    const expectedPaths: string[] = [];
    const perFile = new Map<string, string[]>();
    for (const [seq, fileId, path, previous, key] of records) {
      if (key !== '') count(key!);
      const seq16 = seq!.padStart(16, '0');
      if (path !== '') expectedPaths.push(`${path}\u0000${seq16}`);
      if (previous !== '') expectedPaths.push(`${previous}\u0000${seq16}`);
      const list = perFile.get(fileId!) ?? [];
      list.push(seq!);
      perFile.set(fileId!, list);
    }
    expect(Object.keys(files).sort(), `contents of ${chain}: those of files and versions`).toEqual(
      [...counts.keys()].sort(),
    );
    for (const [key, n] of counts) {
      expect(Number(references[key] ?? 0), `references to content ${key} in ${chain}`).toBe(n - 1);
    }
    expect(paths.sort(), `version paths of ${chain}`).toEqual(expectedPaths.sort());
    for (const key of chainKeys.filter((name) => name.startsWith(`${base}:h:`))) {
      const fileId = key.slice(base.length + 3);
      expect((await client.zrange(key, 0, -1)).sort(), `versions of file ${fileId} in ${chain}`).toEqual(
        (perFile.get(fileId) ?? []).sort(),
      );
      perFile.delete(fileId);
    }
    expect([...perFile.keys()], `files of ${chain} with versions but no version index`).toEqual([]);
    expect(receipts.sort(), `receipts of ${chain}`).toEqual(receiptTimes.sort());

    const expectedIndex = new Set<string>();
    const directories = new Set<string>();
    const expectedSizes = new Map<string, number>([['', 0]]);
    for (const [path, version] of Object.entries(versions)) {
      const bytes = Buffer.byteLength(files[version] ?? '');
      expect(Number(sizes[path]), `size of the file ${path} in ${chain}`).toBe(bytes);
      const segments = path.split('/');
      expectedIndex.add(member(path));
      for (let depth = 1; depth < segments.length; depth++) {
        const ancestor = segments.slice(0, depth).join('/');
        directories.add(ancestor);
        expectedIndex.add(member(ancestor));
        expectedIndex.add(`\u0001${member(ancestor)}`);
      }
      let hiddenAt = 0;
      segments.forEach((segment, position) => {
        if (isHidden(segment)) hiddenAt = position + 1;
      });
      for (let depth = hiddenAt; depth < segments.length; depth++) {
        const ancestor = segments.slice(0, depth).join('/');
        expectedSizes.set(ancestor, (expectedSizes.get(ancestor) ?? 0) + bytes);
      }
    }
    for (const path of Object.keys(versions)) {
      expect(directories.has(path), `${path} is both a file and a directory in ${chain}`).toBe(false);
    }
    // The namespace's total, which quotas are judged by: every file's bytes, hidden ones too.
    const allBytes = Object.values(versions).reduce(
      (sum, version) => sum + Buffer.byteLength(files[version] ?? ''),
      0,
    );
    if (Object.keys(versions).length > 0 || totalBytes !== null) {
      expect(Number(totalBytes), `total bytes of ${chain}`).toBe(allBytes);
    }
    expect(index.sort(), `index of ${chain}`).toEqual([...expectedIndex].sort());
    for (const [path, size] of Object.entries(sizes)) {
      if (path in versions) continue;
      expect(path === '' || directories.has(path), `size kept for a missing path ${path}`).toBe(true);
      expect(Number(size), `size of ${JSON.stringify(path)} in ${chain}`).toBe(expectedSizes.get(path) ?? 0);
    }
    for (const [dir, size] of expectedSizes) {
      if (size !== 0)
        expect(Number(sizes[dir] ?? 0), `size of ${JSON.stringify(dir)} in ${chain}`).toBe(size);
    }
    if (client instanceof Cluster) {
      const slots = new Set(await Promise.all(chainKeys.map((key) => client.cluster('KEYSLOT', key))));
      expect(slots.size, `keys of ${chain} in one slot`).toBe(1);
    }
  }
  // Every namespace that holds something is registered (the root is no namespace), and only those.
  holding.delete('/');
  expect([...registered].sort(), `the registry under ${prefix}`).toEqual([...holding].sort());
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, computed here, not by the code under test. */
export function sha256Of(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * History never shows a change that did not happen and never misses one that did: every live file
 * under /memories (`contents`: path -> content) has as its newest version (of those at its path,
 * or leaving it by a rename) one at that path with the hash of its content, and every path with
 * versions but no file has as its newest a deletion there or a rename away from it.
 */
export async function expectHistoryMatches(
  store: MemoryStore & MemoryHistory,
  contents: ReadonlyMap<string, string>,
): Promise<void> {
  const versions: MemoryVersion[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.history({ limit: 1_000, cursor });
    versions.push(...page.versions);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  const newest = new Map<string, MemoryVersion>();
  for (const version of versions) {
    for (const path of [version.path, version.previousPath]) {
      if (path !== null && !newest.has(path)) newest.set(path, version);
    }
  }
  for (const [path, content] of contents) {
    const version = newest.get(path);
    expect(version, `a version of ${path}`).toBeDefined();
    expect(version!.path, `the newest version of ${path} is at it`).toBe(path);
    expect(version!.operation, `the newest version of ${path}`).not.toBe('deleted');
    expect(version!.sha256, `the newest version of ${path} has its content`).toBe(sha256Of(content));
  }
  for (const [path, version] of newest) {
    if (contents.has(path)) continue;
    const gone =
      (version.operation === 'deleted' && version.path === path) ||
      (version.operation === 'renamed' && version.previousPath === path);
    expect(gone, `${path} is gone, and its newest version says so (${version.operation})`).toBe(true);
  }
}

/** Every file of a namespace and its content, by store path (read through the driver). */
export async function filesOf(driver: MemoryDriver): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of driver.list('' as DriverPath)) {
    const file = await driver.read(entry.path);
    if (file?.kind === 'file') files.set(`/memories/${entry.path}`, file.content);
  }
  return files;
}
