/**
 * The `memdir` command line's entry to this adapter: `memdir --store s3://bucket/prefix ...`.
 * @module
 */
import type { MemoryStore, MemoryStoreOptions } from '@memdir/core';
import { createS3Store, type S3StoreOptions } from './index.js';

const URL_PATTERN = /^s3:\/\/([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i;
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The URL without anything that could be a credential, for messages. */
function shown(url: string): string {
  return url.replace(/^(s3:\/\/)[^/?#]*@/i, '$1***@').replace(/\?.*$/, '');
}

function usage(url: string, problem: string): Error {
  return new Error(
    `Invalid store URL ${shown(url)}: ${problem}. Use s3://bucket or s3://bucket/prefix, with ?endpoint=URL&region=NAME for an S3-compatible server; credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or a profile), never from the URL.`,
  );
}

/**
 * Opens the store an `s3://bucket/prefix` URL names. The endpoint and region come from `options`,
 * the URL's `?endpoint=...&region=...&forcePathStyle=true|false`, or the environment the SDK reads
 * (`AWS_ENDPOINT_URL_S3`, `AWS_REGION`...); credentials from `options` or that environment only.
 *
 * @throws Error with a plain-words message (that never repeats a credential) for a malformed URL.
 */
export function openStore(
  url: string,
  options: MemoryStoreOptions & Partial<Omit<S3StoreOptions, 'bucket' | 'prefix'>> = {},
): MemoryStore {
  const match = URL_PATTERN.exec(url);
  if (match === null) throw usage(url, 'not an s3:// URL');
  const [, host = '', path = '', query = ''] = match;
  if (host.includes('@')) throw usage(url, 'credentials do not belong in the URL');
  if (!BUCKET_PATTERN.test(host))
    throw usage(url, 'the bucket name is missing or not a valid S3 bucket name');
  let prefix: string;
  try {
    prefix = decodeURIComponent(path.replace(/^\/+/, ''));
  } catch {
    throw usage(url, 'the prefix is not valid percent-encoding');
  }
  const parameters = new URLSearchParams(query);
  const known = new Set(['endpoint', 'region', 'forcePathStyle']);
  for (const name of parameters.keys()) {
    if (!known.has(name)) throw usage(url, `unknown parameter ${JSON.stringify(name.slice(0, 40))}`);
  }
  const forcePathStyle = parameters.get('forcePathStyle');
  if (forcePathStyle !== null && forcePathStyle !== 'true' && forcePathStyle !== 'false') {
    throw usage(url, 'forcePathStyle must be true or false');
  }
  return createS3Store({
    ...options,
    bucket: host,
    prefix,
    endpoint: options.endpoint ?? parameters.get('endpoint') ?? undefined,
    region: options.region ?? parameters.get('region') ?? undefined,
    forcePathStyle:
      options.forcePathStyle ?? (forcePathStyle === null ? undefined : forcePathStyle === 'true'),
  });
}
