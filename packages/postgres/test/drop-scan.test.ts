// Erasure leaves no trace of the tenant's name: after a drop, no row of any table in the schema
// (files, versions, totals, receipts, whatever a later layout adds) names the dropped namespace or
// one nested in it. Tenant names may be a person's identifier.
import { createMemoryStore, type MemoryStore } from '@memdir/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresAdmin, createPostgresDriver, createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const NAME = 'alice-1zq';
const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
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

/** The rows of every table of `schema` that mention `name`, as `table: row`. */
async function rowsNaming(schema: string, name: string): Promise<string[]> {
  const tables = await admin.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
    [schema],
  );
  const found: string[] = [];
  for (const { table_name: table } of tables.rows as Array<{ table_name: string }>) {
    const { rows } = await admin.query(`SELECT t::text AS row FROM "${schema}"."${table}" t`);
    for (const { row } of rows as Array<{ row: string }>)
      if (row.includes(name)) found.push(`${table}: ${row}`);
  }
  return found;
}

describe('a drop on PostgreSQL', () => {
  it('leaves no row naming the dropped namespace or one nested in it; the neighbour keeps its own', async () => {
    const schema = freshSchema('mdt_scan');
    cleanups.push(() => dropSchema(admin, schema));
    const options = { connectionString: databaseUrl(), schema, actor: { type: 'user' as const, id: 'u' } };
    const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
    const stores = [
      createPostgresStore({
        ...options,
        namespace: NAME,
        quota: { maxFiles: 100 },
        expire: { afterDays: 30, refreshOnRead: true },
      }),
      createPostgresStore({ ...options, namespace: 'bob' }),
      createMemoryStore(driver.namespace(NAME).namespace('inner')),
    ];
    cleanups.push(async () => {
      for (const store of stores) await store.close();
      await driver.close();
    });
    for (const store of stores) await tenantSession(store);
    expect((await rowsNaming(schema, NAME)).length).toBeGreaterThan(5);
    const memoryAdmin = createPostgresAdmin({ connectionString: databaseUrl(), schema });
    cleanups.push(() => memoryAdmin.close());
    await memoryAdmin.dropNamespace(NAME);
    expect(await rowsNaming(schema, NAME)).toEqual([]);
    expect((await rowsNaming(schema, 'bob')).length).toBeGreaterThan(5);
  });
});
