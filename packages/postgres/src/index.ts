/**
 * Claude's memory tool (`memory_20250818`) in PostgreSQL: every command one transaction and one
 * round trip (edits applied on the server), quotas judged in the same step, names taken literally,
 * content exact.
 *
 * ```ts
 * import pg from 'pg';
 * import { createPostgresStore } from '@memdir/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = createPostgresStore({ pool, namespace: 'user-42' });
 * await store.create({ command: 'create', path: '/memories/notes.md', file_text: 'Likes tea.' });
 * ```
 * @module
 */
export {
  createPostgresAdmin,
  createPostgresDriver,
  createPostgresStore,
  DEFAULT_CONNECTION_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_SCHEMA,
  type PostgresAdminOptions,
  type PostgresDriver,
  type PostgresDriverOptions,
  type PostgresMemoryStore,
  type PostgresStoreOptions,
} from './store.js';
