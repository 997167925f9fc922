// What the server does with conditional requests, learnt once before the first change rather than
// assumed: S3-compatible servers differ (radosgw 16 matches `If-Match` only without quotes and
// ignores it on DELETE; s3rver and old MinIO ignore conditions altogether, on which no write would
// be safe). Six or seven small requests on a scratch object under the prefix, deleted at the end.
import { createHash, randomBytes } from 'node:crypto';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { storeUnavailable } from '@memdir/core/driver';
import type { Bucket } from './bucket.js';
import type { Call } from './call.js';
import { probeKey } from './keys.js';
import type { ServerBehaviour } from './objects.js';

const BODY = 'memdir probe: safe to delete';
const PROBE_OPS = 'probe';
/**
 * The oldest @aws-sdk/client-s3 memdir works with (the floor of its peer range). Before 3.700 the
 * SDK drops `If-Match` on PutObject without a word (3.620 drops `If-None-Match` too), which looks
 * exactly like a server that ignores them; before 3.917 it sends `Expect: 100-continue` on every
 * request, on which radosgw never answers a DeleteObjects.
 */
export const MINIMUM_SDK_VERSION = '3.917.0';

/** Stops the request in {@link sdkSendsConditions} before it leaves the process. */
const NOT_SENT = Symbol('memdir: not sent');

/**
 * Whether this client's SDK puts `If-Match` and `If-None-Match` on a PutObject, and its version
 * when it says (its user agent). Nothing is sent: the request is looked at once built, then stopped.
 */
async function sdkSendsConditions(
  client: S3Client,
  bucket: string,
): Promise<{ sends: boolean; version?: string }> {
  const command = new PutObjectCommand({
    Bucket: bucket,
    Key: 'memdir-probe',
    Body: '',
    IfMatch: '"0"',
    IfNoneMatch: '*',
  });
  let headers: Record<string, string> = {};
  command.middlewareStack.add(
    () => async (args) => {
      headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
      throw NOT_SENT;
    },
    { step: 'build', priority: 'low', name: 'memdirConditionsCheck' },
  );
  await client.send(command).catch(() => {});
  const sent = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const version = /aws-sdk-js\/(\d+\.\d+\.\d+)/.exec(
    sent.get('x-amz-user-agent') ?? sent.get('user-agent') ?? '',
  )?.[1];
  return {
    sends: sent.has('if-match') && sent.has('if-none-match'),
    ...(version === undefined ? {} : { version }),
  };
}

/**
 * The server seems not to enforce `what`: say so, unless the SDK is what dropped the condition
 * (then name the SDK version memdir needs instead of blaming the server).
 */
async function unsupported(bucket: Bucket, what: string): Promise<Error> {
  const sdk = await sdkSendsConditions(bucket.client, bucket.name);
  if (!sdk.sends) {
    return storeUnavailable(
      `@aws-sdk/client-s3${sdk.version === undefined ? '' : ` ${sdk.version}`} does not send If-Match and If-None-Match on PutObject, which memdir needs to keep files safe: upgrade it to ${MINIMUM_SDK_VERSION} or later`,
      undefined,
      'misconfigured',
    );
  }
  return storeUnavailable(
    `the S3 server does not enforce ${what}, which memdir needs to keep files safe`,
    undefined,
    'misconfigured',
  );
}

/**
 * Probes the server behind `bucket`. Fails with `BACKEND` when it does not enforce
 * `If-None-Match: *` or `If-Match` on PUT.
 */
export async function probeServer(bucket: Bucket, prefix: string, call: Call): Promise<ServerBehaviour> {
  const key = probeKey(prefix, randomBytes(8).toString('hex'));
  const created = await bucket.put(key, BODY, { ifNoneMatch: true, ops: PROBE_OPS }, call);
  if (typeof created !== 'string') throw storeUnavailable('the S3 server refused a new object');
  try {
    const md5Etags = created === createHash('md5').update(BODY).digest('hex');
    if (typeof (await bucket.put(key, BODY, { ifNoneMatch: true, ops: PROBE_OPS }, call)) === 'string') {
      throw await unsupported(bucket, 'conditional writes (If-None-Match)');
    }
    bucket.behaviour = { quotedIfMatch: true, conditionalDelete: false, md5Etags };
    if (
      typeof (await bucket.put(key, BODY, { ifMatch: 'memdir0probe', ops: PROBE_OPS }, call)) === 'string'
    ) {
      throw await unsupported(bucket, 'conditional writes (If-Match)');
    }
    let quotedIfMatch = true;
    let current = await bucket.put(key, `${BODY}.`, { ifMatch: created, ops: PROBE_OPS }, call);
    if (typeof current !== 'string') {
      quotedIfMatch = false;
      bucket.behaviour = { quotedIfMatch, conditionalDelete: false, md5Etags };
      current = await bucket.put(key, `${BODY}.`, { ifMatch: created, ops: PROBE_OPS }, call);
      if (typeof current !== 'string')
        throw await unsupported(bucket, 'conditional writes with ETags (If-Match)');
    }
    bucket.behaviour = { quotedIfMatch, conditionalDelete: false, md5Etags };
    const conditionalDelete = (await bucket.delete(key, 'memdir0probe', call)) === 'precondition';
    return { quotedIfMatch, conditionalDelete, md5Etags };
  } finally {
    // Gone already when the server ignored the condition of the DELETE above.
    await bucket.delete(key, undefined, call).catch(() => {});
  }
}
