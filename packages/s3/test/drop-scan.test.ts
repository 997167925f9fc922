// Erasure leaves no trace of the tenant's name: after a drop, no object under the store's prefix
// names the dropped namespace or one nested in it, by its key or in its body (lease, totals,
// touched reads, history, files). Tenant names may be a person's identifier.
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createMemoryStore, type MemoryStore } from '@memdir/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3Admin, createS3Driver, createS3Store } from '../src/index.js';
import { bucket, clearPrefix, keysUnder, rawClient, storeOptions, uniquePrefix } from './helpers.js';

const NAME = 'alice-1zq';
const raw = rawClient();
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await clearPrefix(raw, `${prefix}/`);
  raw.destroy();
});

/** What a tenant leaves behind: files, a folder, edits, a move, a delete, reads. */
async function tenantSession(store: MemoryStore): Promise<void> {
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
  await store.create({ command: 'create', path: '/memories/d/b.md', file_text: 'b' });
  await store.str_replace({ command: 'str_replace', path: '/memories/a.md', old_str: 'a', new_str: 'A' });
  await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'z' });
  await store.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' });
  await store.create({ command: 'create', path: '/memories/e/c.md', file_text: 'c' });
  await store.delete({ command: 'delete', path: '/memories/e/b.md' });
  await store.view({ command: 'view', path: '/memories/a.md' });
}

/** The keys under `prefix` whose key or body mentions `name`. */
async function objectsNaming(prefix: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const key of await keysUnder(raw, `${prefix}/`)) {
    const body = await (
      await raw.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
    ).Body!.transformToString();
    if (key.includes(name) || body.includes(name)) found.push(key);
  }
  return found;
}

describe('a drop on S3', () => {
  it('leaves no object naming the dropped namespace or one nested in it; the neighbour keeps its own', async () => {
    const prefix = uniquePrefix('drop-scan');
    prefixes.push(prefix);
    const options = { ...storeOptions(prefix), actor: { type: 'user' as const, id: 'u' } };
    const driver = createS3Driver(storeOptions(prefix));
    const stores = [
      createS3Store({
        ...options,
        namespace: NAME,
        quota: { maxFiles: 100 },
        expire: { afterDays: 30, refreshOnRead: true },
      }),
      createS3Store({ ...options, namespace: 'bob' }),
      createMemoryStore(driver.namespace(NAME).namespace('inner')),
    ];
    try {
      for (const store of stores) await tenantSession(store);
      for (const store of stores) await store.close();
      expect((await objectsNaming(prefix, NAME)).length).toBeGreaterThan(5);
      const admin = createS3Admin(storeOptions(prefix));
      await admin.dropNamespace(NAME);
      await admin.close();
      expect(await objectsNaming(prefix, NAME)).toEqual([]);
      expect((await objectsNaming(prefix, 'bob')).length).toBeGreaterThan(3);
    } finally {
      for (const store of stores) await store.close();
      await driver.close();
    }
  });
});
