// The two-folder tests on Redis, PostgreSQL and S3: a namespace of its own per test, under a key
// prefix, a schema and an object prefix of this run's, removed at the end.
import { randomBytes } from 'node:crypto';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { createS3Store } from '@memdir/s3';
import { databaseUrl, redisUrl, s3Server } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll } from 'vitest';
import { twoFolderSuite } from './two-folders-suite.js';

const RUN = randomBytes(4).toString('hex');
const KEY_PREFIX = `memdir-sync-test-${RUN}:`;
const SCHEMA = `memdir_sync_test_${RUN}`;
const S3_PREFIX = `test/memdir-sync-${RUN}`;
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

twoFolderSuite({
  name: 's3',
  open: async (on) => {
    const { bucket, clientConfig } = s3Server();
    const { endpoint, region, credentials } = clientConfig;
    return createS3Store({
      bucket,
      prefix: S3_PREFIX,
      endpoint,
      region,
      credentials,
      namespace: namespace(),
      ...history(on),
    });
  },
});

afterAll(async () => {
  const { bucket, clientConfig } = s3Server();
  const s3 = new S3Client(clientConfig);
  try {
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: S3_PREFIX, ContinuationToken: token }),
      );
      const keys = (page.Contents ?? []).map((item) => ({ Key: item.Key! }));
      if (keys.length > 0)
        await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
      token = page.NextContinuationToken;
    } while (token);
  } finally {
    s3.destroy();
  }

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
