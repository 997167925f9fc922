import pg from 'pg';

/**
 * The PostgreSQL the tests run against (DATABASE_URL). A test that needs it fails without it; it
 * never skips.
 */
export function databaseUrl(): string {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL is not set: point it at a PostgreSQL 13+ database the tests may write to');
  return url;
}

/** A pool for the tests' own queries (with the error listener pg asks for). */
export function testPool(options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: 4, ...options });
  pool.on('error', () => {});
  return pool;
}

/** A schema name no other test uses. */
export function freshSchema(prefix = 'mdt'): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
