// The vitest global setup: DATABASE_URL when it is set (your own server), else a private
// PostgreSQL started from the installed binaries for this run and stopped after it.
import pg from 'pg';
import { type PrivatePostgres, startPrivatePostgres } from './support.js';

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env['DATABASE_URL']) return async () => {};
  let server: PrivatePostgres;
  try {
    server = await startPrivatePostgres();
  } catch (error) {
    throw new Error(
      `DATABASE_URL is not set and no private PostgreSQL could be started (${(error as Error).message}): set DATABASE_URL to a PostgreSQL 13+ database the tests may write to`,
    );
  }
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('CREATE DATABASE memdir_test');
  await admin.end();
  const url = new URL(server.url);
  url.pathname = '/memdir_test';
  process.env['DATABASE_URL'] = url.toString();
  return () => server.close();
}
