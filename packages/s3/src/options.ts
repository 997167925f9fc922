// The options of the S3 driver (and so of the store and the admin made from it), their defaults,
// and their checks. The options of the client the driver builds when given none are client.ts's.
import type { S3Client } from '@aws-sdk/client-s3';
import type { MemdirLogger } from '@memdir/core';
import { optionError, positiveInteger } from '@memdir/core/driver';
import type { ClientOptions } from './client.js';
import { KeySpace, normalizePrefix } from './keys.js';

/** Default of {@link S3DriverOptions.leaseTtlMs}. */
const DEFAULT_LEASE_TTL_MS = 10_000;

/** Options of {@link createS3Driver}. */
export interface S3DriverOptions extends ClientOptions {
  /**
   * Your own `S3Client`, used as it is (its retries, timeouts and credentials) and never closed by
   * the store. Without it the store builds one from the options below and the SDK's usual
   * environment (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles...), and closes it in `close()`.
   * Stores made on one client share what they learn (the server's probe, the lease queues).
   * @default a client built by the store
   */
  client?: S3Client | undefined;
  /** The bucket. It must exist; the store creates nothing but objects. */
  bucket: string;
  /**
   * The key prefix under which the store keeps everything (`agents/alice` or `agents/alice/`), so
   * one bucket can hold many stores. Memory files sit at `{prefix}memories/...`.
   * @default '' (the bucket's top)
   */
  prefix?: string | undefined;
  /**
   * How long a store's lock on a namespace (held while it creates a path, deletes or renames)
   * lasts without renewal. A store that crashes while holding it blocks those changes in its
   * namespace for this long; then the next store finishes what the crashed one left half done.
   * @default 10000
   */
  leaseTtlMs?: number | undefined;
  /**
   * Where the driver reports what happens (connections lost and regained, retries, lease waits
   * and repairs, the server's probe): never a key or content.
   * @default `NODE_DEBUG=memdir` output
   */
  logger?: MemdirLogger | undefined;
}

/** The options the driver keeps, checked, with their defaults. */
export interface CheckedOptions {
  readonly bucket: string;
  readonly keys: KeySpace;
  readonly leaseTtlMs: number;
}

/**
 * Checks the options of {@link S3DriverOptions} that the driver keeps.
 * @throws TypeError for a missing bucket or an invalid option.
 */
export function checkOptions(options: S3DriverOptions): CheckedOptions {
  const { bucket, prefix, leaseTtlMs } = options;
  if (typeof bucket !== 'string' || bucket === '') {
    throw optionError('s3', 'bucket', 'name the bucket, e.g. { bucket: "my-agent-memory" }');
  }
  const keys = new KeySpace(normalizePrefix(prefix));
  return { bucket, keys, leaseTtlMs: positiveInteger('s3', 'leaseTtlMs', leaseTtlMs, DEFAULT_LEASE_TTL_MS) };
}
