import { createHash, randomBytes } from 'node:crypto';
import {
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { ConformanceGroup } from '@memdir/conformance';
import { s3Server } from '@memdir/test-support';
import { TOMBSTONE_ETAG } from '../src/objects.js';

/** The S3 server of the tests' global setup (radosgw from scripts/, or S3_ENDPOINT...). */
export const server = s3Server();
export const bucket = server.bucket;

/** Store options for the test server, without a client (the store builds its own). */
export function storeOptions(prefix: string) {
  const { endpoint, region, credentials } = server.clientConfig;
  return { bucket, prefix, endpoint, region, credentials };
}

/** A prefix no other test uses. */
export function uniquePrefix(label: string): string {
  return `test/${label}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** A client of the test server, outside any store. */
export function rawClient(config: Partial<S3ClientConfig> = {}): S3Client {
  return new S3Client({ ...server.clientConfig, ...config });
}

/** Every object under `prefix`: its key as a person browsing the bucket sees it, and its ETag. */
async function* objectsUnder(
  client: S3Client,
  prefix: string,
): AsyncGenerator<{ key: string; etag: string | undefined }> {
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
    for (const item of page.Contents ?? [])
      yield { key: decodeURIComponent(item.Key!.replaceAll('+', '%20')), etag: item.ETag };
    token = page.NextContinuationToken;
  } while (token);
}

/** Every key under `prefix`, as a person browsing the bucket sees them. */
export async function keysUnder(client: S3Client, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of objectsUnder(client, prefix)) keys.push(key);
  return keys;
}

/** Deletes everything under `prefix`. */
export async function clearPrefix(client: S3Client, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  for (let start = 0; start < keys.length; start += 1000) {
    await client.send(
      new DeleteObjectsCommand({
        Bucket: bucket,
        Delete: { Objects: keys.slice(start, start + 1000).map((Key) => ({ Key })), Quiet: true },
      }),
    );
  }
}

/**
 * What memdir leaves under `prefix` that is not a memory file: a lease, a probe object, a move's
 * stand-in (tombstone). After every command has finished, there must be none. (A namespace's quota
 * totals, `.memdir/totals`, its markers of reads that refresh expiry, `.memdir/touched/`, and its
 * history, `.memdir/history/`, are kept on purpose.)
 */
export async function leftovers(client: S3Client, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const { key, etag } of objectsUnder(client, prefix)) {
    if (key.endsWith('.memdir/totals') || key.includes('.memdir/touched/')) continue;
    // History's version objects are kept on purpose too, and so is the id index (records.ts).
    if (key.includes('.memdir/history/') || key.includes('.memdir/ids/')) continue;
    if (key.includes('/.memdir/') || key.startsWith('.memdir/')) found.push(key);
    else if (etag?.replaceAll('"', '') === TOMBSTONE_ETAG) found.push(`${key} (a move's stand-in)`);
  }
  return found;
}

/** A fixed-length prefix for a backend name: every store of one run has the same maxPathBytes. */
export function backendPrefix(base: string, backend: string): string {
  return `${base}/${createHash('sha256').update(backend).digest('hex').slice(0, 16)}`;
}

// The suite through the driver runs in three files side by side (vitest.config.ts):
// conformance.test.ts has the six commands, concurrency, quotas, history and admin;
// conformance-paths.test.ts the paths group (the longest); conformance-input.test.ts the other
// groups, that refuse input or compare against the reference (tool input, isolation, differential,
// driver). One file took six minutes on radosgw; two halves took four and five on a loaded machine.
export const COMMAND_GROUPS: readonly ConformanceGroup[] = [
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
  'concurrency',
  'quota',
  'history',
  'admin',
];

/** The group of conformance-paths.test.ts. */
export const PATH_GROUPS: readonly ConformanceGroup[] = ['paths'];
