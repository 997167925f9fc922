// The S3Client the store builds when the application gives none: bounded in time (the SDK's
// defaults wait on a silent endpoint for minutes), retrying what S3 asks to retry, and set up for
// S3-compatible servers when an endpoint is given.
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

/** Connect within this, and get a whole answer within that: short, so retries fit in 5 s. */
const CONNECTION_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 3_000;
/** One try and two retries (with jittered backoff; throttling waits longer, as the SDK knows). */
const MAX_ATTEMPTS = 3;

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
    maxAttempts: MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: {
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Without this the SDK only logs a warning when requestTimeout passes, and keeps waiting.
      throwOnRequestTimeout: true,
    },
  });
}
