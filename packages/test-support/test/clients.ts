import { S3Client } from '@aws-sdk/client-s3';
import { Redis, type RedisOptions } from 'ioredis';
import pg from 'pg';
import { s3Server } from '../src/index.js';

/** An ioredis client that fails a command instead of retrying it, so a fault shows at once. */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<Redis> {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
    ...options,
  });
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}

export async function connectPg(connectionString: string, options: pg.ClientConfig = {}): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, ...options });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** An S3 client for `endpoint` (the shared server's, or a proxy's), configured for radosgw. */
export function s3Client(endpoint?: string, maxAttempts = 3): S3Client {
  const { clientConfig } = s3Server();
  return new S3Client({ ...clientConfig, ...(endpoint ? { endpoint } : {}), maxAttempts });
}

/** How long `promise` took to settle, and how. */
export async function timed<T>(
  promise: Promise<T>,
): Promise<{ ms: number; value?: T; error?: Error & { code?: string } }> {
  const started = Date.now();
  try {
    const value = await promise;
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error: error as Error };
  }
}
