// The schema name is the one setting written into SQL text (as a quoted identifier, inside function
// bodies too): a hostile name must neither run as SQL nor reach another store's tables.
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDriver, createPostgresStore } from '../src/index.js';
import { functionBody, quoteIdentifier, statements } from '../src/sql.js';
import { databaseUrl, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());

/** A table name no other run uses, and a schema name that tries to create it from a function body. */
function injection(): { table: string; schema: string } {
  const table = `mdinj_${Math.random().toString(36).slice(2, 8)}`;
  return { table, schema: `s$fn$;CREATE TABLE IF NOT EXISTS ${table}(x int);SELECT $fn$` };
}

describe('the schema option', () => {
  it.each([
    ['a name holding $fn$ (it would end the function bodies)', injection().schema],
    ['a name holding $', 'tenant$1'],
    ['an empty name', ''],
    ['a name over 63 bytes (PostgreSQL would cut it, and two names would share a schema)', 'x'.repeat(64)],
    ['a name holding NUL', 'a\u0000b'],
  ])('%s is refused when the store opens, with the rule', (_, schema) => {
    const rule = `Invalid @memdir/postgres option schema: expected a name of 1 to 63 bytes without "$" or NUL, got ${JSON.stringify(schema)}`;
    expect(() => createPostgresDriver({ connectionString: databaseUrl(), schema })).toThrow(
      new TypeError(rule),
    );
    expect(() => createPostgresStore({ connectionString: databaseUrl(), schema })).toThrow(
      new TypeError(rule),
    );
  });

  it('the function bodies cannot be closed by the name, even with check_function_bodies = off', async () => {
    // The setup statements as they would run for a name the option check refuses: the quoting alone
    // must hold. check_function_bodies = off (used by restores) makes the server take a body as
    // text without parsing it, so a body cut short by the name would run the rest as SQL.
    const { table, schema } = injection();
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL check_function_bodies = off');
      await client.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
      for (const statement of statements(schema).setup) await client.query(statement);
      const { rows } = await client.query('SELECT to_regclass($1) AS found', [table]);
      expect(rows[0].found).toBeNull();
      const bodies = await client.query(
        `SELECT count(*)::int AS n FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = $1 AND p.prosrc LIKE '%' || $1 || '%'`,
        [schema],
      );
      // The name is inside the bodies that use it, whole.
      expect(bodies.rows[0].n).toBeGreaterThan(0);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('a body picks a tag that does not occur in it, nor begins at its end', () => {
    expect(functionBody(' SELECT 1 ')).toBe('$fn$ SELECT 1 $fn$');
    expect(functionBody(' $fn$ ')).toBe('$fn1$ $fn$ $fn1$');
    expect(functionBody(' $fn$ $fn1$ ')).toBe('$fn2$ $fn$ $fn1$ $fn2$');
    expect(functionBody(' x$fn')).toBe('$fn1$ x$fn$fn1$');
  });
});
