// Each BACKEND reason against the real servers: a wrong or missing password and a missing database
// or schema permission are `misconfigured` (the model is not told to try again, and the server's own
// words stay on `cause` for operators), a closed port is `unavailable`, a closed store `closed`.
import { isMemoryToolError, type MemoryToolError } from '@memdir/core';
import { freePort, startPrivatePostgres } from '@memdir/test-support';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, otherDatabase, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const MISCONFIGURED =
  /^The memory store is unavailable: .+\. Trying again will not help until the store's configuration is fixed\.$/;

/** What a view on a store at `connectionString` fails with. */
async function failure(connectionString: string, schema = freshSchema()): Promise<MemoryToolError> {
  const store = createPostgresStore({ connectionString, schema });
  cleanups.push(() => store.close());
  try {
    await store.view({ command: 'view', path: '/memories' });
  } catch (error) {
    if (isMemoryToolError(error)) return error;
    throw error;
  }
  throw new Error('the view succeeded');
}

const causeOf = (error: MemoryToolError) => String((error.cause as Error | undefined)?.message);

describe('BACKEND reasons', () => {
  it("a wrong password and a missing one are misconfigured, with the server's words on cause; the right one works", async () => {
    // A server of its own that asks every role but its superuser for a password.
    const server = await startPrivatePostgres({
      hba: ['host all postgres 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 scram-sha-256'],
    });
    cleanups.push(() => server.close());
    const superuser = testPool({ connectionString: server.url, max: 1 });
    await superuser.query("CREATE ROLE app LOGIN PASSWORD 'right-password'");
    await superuser.query('GRANT CREATE ON DATABASE postgres TO app');
    await superuser.end();
    const as = (password?: string) => {
      const url = new URL(server.url);
      url.username = 'app';
      if (password) url.password = password;
      return url.toString();
    };
    const wrong = await failure(as('wrong-password'));
    expect(wrong).toMatchObject({ code: 'BACKEND', reason: 'misconfigured', outcome: 'not-applied' });
    expect(wrong.message).toMatch(MISCONFIGURED);
    expect(wrong.message).not.toContain('wrong-password');
    expect(causeOf(wrong)).toContain('password authentication failed for user "app"');
    const missing = await failure(as());
    expect(missing).toMatchObject({ code: 'BACKEND', reason: 'misconfigured' });
    const store = createPostgresStore({ connectionString: as('right-password'), schema: 'app' });
    cleanups.push(() => store.close());
    expect(await store.view({ command: 'view', path: '/memories' })).toContain('0B\t/memories');
  }, 60_000);

  it('a missing database is misconfigured', async () => {
    const error = await failure(otherDatabase(`mdt_missing_${process.pid}`));
    expect(error).toMatchObject({ code: 'BACKEND', reason: 'misconfigured' });
    expect(error.message).toMatch(MISCONFIGURED);
    expect(causeOf(error)).toContain('does not exist');
  });

  it('a role that may neither create the schema nor use it is misconfigured', async () => {
    const role = `mdt_none_${process.pid}_${Date.now()}`;
    const schema = freshSchema();
    await admin.query(`CREATE ROLE "${role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await admin.query(`CREATE SCHEMA "${schema}"`);
    cleanups.push(async () => {
      await dropSchema(admin, schema);
      await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    });
    const url = new URL(databaseUrl());
    url.username = role;
    const error = await failure(url.toString(), schema);
    expect(error).toMatchObject({ code: 'BACKEND', reason: 'misconfigured' });
    expect(error.message).toMatch(MISCONFIGURED);
    expect(causeOf(error)).toContain('permission denied');
  });

  it('a port nothing listens on is unavailable', async () => {
    const url = new URL(databaseUrl());
    url.port = String(await freePort());
    const error = await failure(url.toString());
    expect(error).toMatchObject({
      code: 'BACKEND',
      reason: 'unavailable',
      message: 'The memory store is unavailable: cannot connect to PostgreSQL. Try again.',
    });
  });

  it('a closed store is closed', async () => {
    const store = createPostgresStore({ connectionString: databaseUrl(), schema: freshSchema() });
    await store.close();
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'closed',
    });
  });
});
