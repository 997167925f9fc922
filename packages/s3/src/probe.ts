// What the server does with conditional requests, learnt once before the first change rather than
// assumed: S3-compatible servers differ (radosgw 16 matches `If-Match` only without quotes and
// ignores it on DELETE; s3rver and old MinIO ignore conditions altogether, on which no write would
// be safe). Six or seven small requests on a scratch object under the prefix, deleted at the end.
import { createHash, randomBytes } from 'node:crypto';
import { storeUnavailable } from '@memdir/core/driver';
import type { Bucket } from './bucket.js';
import type { Call } from './call.js';
import { probeKey } from './keys.js';
import type { ServerBehaviour } from './objects.js';

const BODY = 'memdir probe: safe to delete';
const PROBE_OPS = 'probe';

function unsupported(what: string): Error {
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
      throw unsupported('conditional writes (If-None-Match)');
    }
    bucket.behaviour = { quotedIfMatch: true, conditionalDelete: false, md5Etags };
    if (
      typeof (await bucket.put(key, BODY, { ifMatch: 'memdir0probe', ops: PROBE_OPS }, call)) === 'string'
    ) {
      throw unsupported('conditional writes (If-Match)');
    }
    let quotedIfMatch = true;
    let current = await bucket.put(key, `${BODY}.`, { ifMatch: created, ops: PROBE_OPS }, call);
    if (typeof current !== 'string') {
      quotedIfMatch = false;
      bucket.behaviour = { quotedIfMatch, conditionalDelete: false, md5Etags };
      current = await bucket.put(key, `${BODY}.`, { ifMatch: created, ops: PROBE_OPS }, call);
      if (typeof current !== 'string') throw unsupported('conditional writes with ETags (If-Match)');
    }
    bucket.behaviour = { quotedIfMatch, conditionalDelete: false, md5Etags };
    const conditionalDelete = (await bucket.delete(key, 'memdir0probe', call)) === 'precondition';
    return { quotedIfMatch, conditionalDelete, md5Etags };
  } finally {
    // Gone already when the server ignored the condition of the DELETE above.
    await bucket.delete(key, undefined, call).catch(() => {});
  }
}
