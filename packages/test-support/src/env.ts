// Where the servers are, read from the variables the setup put in the environment (REDIS_URL,
// REDIS_CLUSTER_URLS, DATABASE_URL, S3_*): one function per server, throwing with the variable's
// name when it is unset, so that a test never runs without its server.
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { type Endpoint, endpointOf } from './net.js';
import type { ServerName } from './server-names.js';

function required(name: string, server: ServerName, env: NodeJS.ProcessEnv): string {
  const value = env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: list '${server}' in this package's servers setup (serversSetup in ` +
        `@memdir/test-support), or set ${name} to a running server`,
    );
  }
  return value;
}

/** The standalone Redis the setup provides (REDIS_URL). Throws, naming the variable, when unset. */
export function redisUrl(env: NodeJS.ProcessEnv = process.env): string {
  return required('REDIS_URL', 'redis', env);
}

/** The Redis Cluster's masters (REDIS_CLUSTER_URLS), as ioredis `Cluster` startup nodes. */
export function redisClusterNodes(env: NodeJS.ProcessEnv = process.env): Endpoint[] {
  return required('REDIS_CLUSTER_URLS', 'redis-cluster', env)
    .split(',')
    .map((url) => endpointOf(url.trim(), 6379));
}

/** The PostgreSQL database the setup provides (DATABASE_URL). */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return required('DATABASE_URL', 'postgres', env);
}

/** The S3 server the setup provides: its bucket, and a configuration for `new S3Client(...)`. */
export interface S3Server {
  bucket: string;
  /**
   * Endpoint, region, credentials, path-style addressing, and checksums only when an operation
   * requires them: radosgw refuses the SDK's default streaming checksums (411 on uploads).
   */
  clientConfig: S3ClientConfig & {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
}

/** The S3 server the setup provides (S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID...). */
export function s3Server(env: NodeJS.ProcessEnv = process.env): S3Server {
  const endpoint = required('S3_ENDPOINT', 's3', env);
  return {
    bucket: required('S3_BUCKET', 's3', env),
    clientConfig: {
      endpoint,
      region: env['S3_REGION'] || env['AWS_REGION'] || 'us-east-1',
      forcePathStyle: (env['S3_FORCE_PATH_STYLE'] ?? 'true') !== 'false',
      credentials: {
        accessKeyId: env['S3_ACCESS_KEY_ID'] || required('AWS_ACCESS_KEY_ID', 's3', env),
        secretAccessKey: env['S3_SECRET_ACCESS_KEY'] || required('AWS_SECRET_ACCESS_KEY', 's3', env),
      },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
  };
}
