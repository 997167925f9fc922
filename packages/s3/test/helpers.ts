import { randomBytes } from 'node:crypto';
import {
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';

/** The S3 server the tests use: S3_ENDPOINT, S3_BUCKET and credentials, as scripts/ set them. */
export interface TestServer {
  bucket: string;
  config: S3ClientConfig & {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
}

function required(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: these tests need an S3 server (see the README's Tests section)`);
  return value;
}

export function testServer(): TestServer {
  return {
    bucket: required('S3_BUCKET'),
    config: {
      endpoint: required('S3_ENDPOINT'),
      region: process.env['S3_REGION'] || 'us-east-1',
      forcePathStyle: true,
      credentials: {
        accessKeyId: required('S3_ACCESS_KEY_ID'),
        secretAccessKey: required('S3_SECRET_ACCESS_KEY'),
      },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
  };
}

/** Store options for the test server, without a client (the store builds its own). */
export function storeOptions(server: TestServer, prefix: string) {
  return {
    bucket: server.bucket,
    prefix,
    endpoint: server.config.endpoint,
    region: server.config.region,
    credentials: server.config.credentials,
  };
}

/** A prefix no other test uses. */
export function uniquePrefix(label: string): string {
  return `test/${label}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** Every key under `prefix`, raw (the tests look at the layout as a person would). */
export async function keysUnder(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        ContinuationToken: token,
        EncodingType: 'url',
      }),
    );
    for (const item of page.Contents ?? []) keys.push(decodeURIComponent(item.Key!.replaceAll('+', '%20')));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

/** Deletes everything under `prefix`. */
export async function clearPrefix(client: S3Client, bucket: string, prefix: string): Promise<void> {
  const keys = await keysUnder(client, bucket, prefix);
  for (let start = 0; start < keys.length; start += 1000) {
    await client.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: keys.slice(start, start + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
  }
}

export function rawClient(server: TestServer): S3Client {
  return new S3Client({ ...server.config, maxAttempts: 1 });
}
