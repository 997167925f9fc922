// The two-folder tests on Redis and PostgreSQL: a namespace of its own per test, under a key prefix
// and a schema of this run's, removed at the end.
import { randomBytes } from 'node:crypto';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { databaseUrl, redisUrl } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll } from 'vitest';
import { twoFolderSuite } from './two-folders-suite.js';

const RUN = randomBytes(4).toString('hex');
const KEY_PREFIX = `memdir-sync-test-${RUN}:`;
const SCHEMA = `memdir_sync_test_${RUN}`;
let made = 0;
const namespace = () => `t${made++}`;
const history = (on: boolean) => (on ? {} : { history: false as const });

twoFolderSuite({
  name: 'redis',
  open: async (on) =>
    createRedisStore({ url: redisUrl(), keyPrefix: KEY_PREFIX, namespace: namespace(), ...history(on) }),
});

twoFolderSuite({
  name: 'postgres',
  open: async (on) =>
    createPostgresStore({
      connectionString: databaseUrl(),
      schema: SCHEMA,
      namespace: namespace(),
      ...history(on),
    }),
});

afterAll(async () => {
  const redis = new Redis(redisUrl());
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${KEY_PREFIX}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  } finally {
    await client.end();
  }
});
