// The S3Client the store builds when the application gives none: set up for S3-compatible servers
// when an endpoint is given, with no timeouts or retries of its own. The store bounds every request
// by the command's deadline (an abort signal at the time left) and sends it again itself after a
// passing failure while that deadline allows (bucket.ts), so a `timeoutMs` of 1 s or 12 s holds.
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** Options for the client the store builds (ignored when you pass your own `client`). */
export interface ClientOptions {
  /**
   * An S3-compatible endpoint (`https://<account>.r2.cloudflarestorage.com`,
   * `http://127.0.0.1:7480`...). With one, the client uses path-style addressing and sends
   * checksums only when an operation requires them, as such servers expect.
   * @default AWS S3 (or the SDK's `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` from the environment)
   */
  endpoint?: string | undefined;
  /**
   * The region.
   * @default the SDK's (`AWS_REGION`, the profile), else `us-east-1` with an `endpoint`
   */
  region?: string | undefined;
  /**
   * Access keys.
   * @default the SDK's default chain (environment, profile, instance or container role)
   */
  credentials?: S3ClientConfig['credentials'];
  /**
   * Path-style URLs (`endpoint/bucket/key`) instead of virtual-hosted ones (`bucket.endpoint/key`).
   * @default true with an `endpoint`, else false
   */
  forcePathStyle?: boolean | undefined;
}

/** The endpoint the SDK itself would take from the environment. */
function environmentEndpoint(): string | undefined {
  return process.env['AWS_ENDPOINT_URL_S3'] || process.env['AWS_ENDPOINT_URL'] || undefined;
}

export function createClient(options: ClientOptions): S3Client {
  const compatible = options.endpoint !== undefined || environmentEndpoint() !== undefined;
  const region =
    options.region ?? (process.env['AWS_REGION'] || process.env['AWS_DEFAULT_REGION'] || undefined);
  return new S3Client({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(region === undefined && compatible
      ? { region: 'us-east-1' }
      : region === undefined
        ? {}
        : { region }),
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    forcePathStyle: options.forcePathStyle ?? compatible,
    // S3-compatible servers reject the checksums the SDK adds by default to every upload (radosgw
    // answers 411 to a streamed one); send them only where the operation requires one.
    ...(compatible
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
    // The store's own retries (bucket.ts) know the deadline and the operation ids; the SDK's would
    // resend blindly, with waits of their own.
    maxAttempts: 1,
  });
}
