// The lease: one object per namespace (`.memdir/lease`) that serialises the changes of structure (a
// new path, a delete, a rename), so that a path is never a file and a folder at once and racing
// creators have one winner. S3 has no locks, but it has conditional writes:
//
//   acquire    PUT If-None-Match: *        exactly one of the racing stores gets it
//   renew      PUT If-Match: <etag>        while a long change runs (every third of the TTL)
//   expiry     the server's clock only: the reply's Date header minus the lease's Last-Modified
//   takeover   PUT If-Match: <etag>        of an expired lease: exactly one taker wins
//   release    DELETE                      conditional where the server honours it; radosgw 16 does
//                                          not, so a lease that may have expired is left to expire
//
// The lease doubles as the journal: it says which change its holder is making, so whoever takes
// over an expired lease first finishes what the crashed holder left half done (recovery.ts).
import { outcomeUnknown, storeUnavailable } from '@memdir/core/driver';
import type { S3Context } from './context.js';

/** A change of structure, as the lease records it. */
export type Journal =
  | { readonly kind: 'write'; readonly op: string; readonly path: string }
  | { readonly kind: 'remove'; readonly op: string; readonly path: string }
  | {
      readonly kind: 'move';
      readonly op: string;
      readonly from: string;
      readonly to: string;
      /**
       * `intent` until the checks passed; `copying` once copies may exist. A file's move copies
       * while it records `copying`, so recovery of an `intent` file move looks at the copy.
       */
      readonly phase: 'intent' | 'copying';
      /** Known once checked: a folder's move records `copying` before its first copy. */
      readonly folder?: boolean | undefined;
    };

interface LeaseBody {
  readonly memdir: 'lease';
  readonly owner: string;
  readonly op: string;
  readonly ttlMs: number;
  /** Bumped by each renewal, so the object (and its ETag) changes. */
  readonly renewal: number;
  /** The changes not known to be complete, oldest first. */
  readonly journal: readonly Journal[];
}

/** A lease another store took over after we lost its reply, or whose holder we cannot read. */
function parseBody(bytes: Uint8Array): Partial<LeaseBody> {
  try {
    const body = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<LeaseBody>;
    return typeof body === 'object' && body !== null ? body : {};
  } catch {
    return {};
  }
}

/** Last-Modified and Date have one-second resolution, on one clock: the server's. */
const CLOCK_RESOLUTION_MS = 1_000;
/** Time for the requests of an abandoned change to land before this process takes its lease back. */
const ABANDON_GRACE_MS = 1_000;
/**
 * Waiters poll the lease with full jitter, from a few milliseconds up to this: fast hand-overs
 * between stores, without so many polls that they slow the holder's own requests.
 */
const MAX_POLL_MS = 100;
const JSON_TYPE = 'application/json';

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The lease, held. */
export class Lease {
  #etag: string;
  #body: LeaseBody;
  #confirmedAt = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  #lost = false;

  constructor(
    readonly context: S3Context,
    readonly key: string,
    etag: string,
    body: LeaseBody,
  ) {
    this.#etag = etag;
    this.#body = body;
    this.#timer = setInterval(() => this.#renew(), Math.max(body.ttlMs / 3, 100));
    this.#timer.unref();
  }

  /** Held, and confirmed recently enough that no other store can have taken it over. */
  get fresh(): boolean {
    return !this.#lost && Date.now() - this.#confirmedAt < this.#body.ttlMs / 2;
  }

  /** Fails unless the lease is still ours: call before each change a holder makes. */
  check(): void {
    if (!this.fresh) {
      throw outcomeUnknown('another store took over the lock of this memory while a change was running');
    }
  }

  /** Rewrites the journal. */
  record(journal: readonly Journal[], signal: AbortSignal | undefined): Promise<void> {
    return this.#write({ ...this.#body, journal }, signal);
  }

  #renew(): void {
    if (this.#lost) return;
    this.#write({ ...this.#body, renewal: this.#body.renewal + 1 }, undefined).catch(() => {
      // A renewal that fails for a passing reason is tried again at the next tick; `fresh` turns
      // false if none succeeds in time, which stops the holder.
    });
  }

  #write(body: LeaseBody, signal: AbortSignal | undefined): Promise<void> {
    const run = async () => {
      this.check();
      const { bucket } = this.context;
      const payload = JSON.stringify(body);
      const etag = await bucket.put(
        this.key,
        payload,
        { ifMatch: this.#etag, ops: body.op, contentType: JSON_TYPE },
        signal,
      );
      if (typeof etag === 'string') {
        this.#accept(etag, body);
        return;
      }
      // The SDK may have resent a write that had landed: then the lease holds exactly this body.
      const seen = await bucket.get(this.key, signal);
      if (seen && Buffer.from(seen.bytes).toString('utf8') === payload) {
        this.#accept(seen.etag, body);
        return;
      }
      this.#lost = true;
      this.check();
    };
    const next = this.#chain.then(run, run);
    this.#chain = next.catch(() => {});
    return next;
  }

  #accept(etag: string, body: LeaseBody): void {
    this.#etag = etag;
    this.#body = body;
    this.#confirmedAt = Date.now();
  }

  /**
   * Stops renewing and waits for a renewal in flight. Resolves to true when the lease is still
   * fresh, so that the caller may delete it (in the same request as other keys, say).
   */
  async settle(): Promise<boolean> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#chain;
    return this.fresh;
  }

  /**
   * Deletes the lease, unless it may have expired (radosgw deletes unconditionally: the DELETE
   * could remove a lease another store took over). Never throws. Resolves to false when the lease
   * is left behind (to expire, and its journal to be finished by whoever takes it over).
   */
  async release(): Promise<boolean> {
    if (!(await this.settle())) return false;
    const { bucket } = this.context;
    const conditional = bucket.behaviour.conditionalDelete ? this.#etag : undefined;
    return bucket.delete(this.key, conditional, undefined).then(
      () => true,
      () => false,
    );
  }

  /**
   * Leaves the lease as the journal of a change that did not finish (its deadline passed, or the
   * server failed mid-way): the next store to take it over finishes the change, this process first
   * (see {@link S3Context.abandoned}).
   */
  abandon(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.context.abandoned.set(this.key, { etag: this.#etag, at: Date.now() });
  }
}

/**
 * What acquiring gave: the lease, and the journal of a crashed holder to finish first. When there
 * is one, the lease does not record the new change yet: record it once that journal is finished.
 */
export interface Acquired {
  readonly lease: Lease;
  readonly unfinished: readonly Journal[];
}

/**
 * Takes the lease at `key` for `journal`, waiting (polling with jittered backoff) while another
 * store holds it, and taking over a lease whose holder let it expire. Bounded by `signal` and by
 * twice the TTL.
 */
export async function acquireLease(
  context: S3Context,
  key: string,
  journal: Journal,
  signal: AbortSignal | undefined,
): Promise<Acquired> {
  const { bucket, owner, leaseTtlMs } = context;
  const body: LeaseBody = {
    memdir: 'lease',
    owner,
    op: journal.op,
    ttlMs: leaseTtlMs,
    renewal: 0,
    journal: [journal],
  };
  const payload = JSON.stringify(body);
  // Without a deadline of the caller's, waiting ends once the lease had time to expire twice over
  // (by the longest TTL a holder asked for), with room for the clock's one-second steps.
  const started = Date.now();
  let giveUpAt = started + 2 * leaseTtlMs + 3 * CLOCK_RESOLUTION_MS;
  let recheckAt = 0;
  for (let round = 0; ; round++) {
    const etag = await bucket.put(
      key,
      payload,
      { ifNoneMatch: true, ops: journal.op, contentType: JSON_TYPE },
      signal,
    );
    if (typeof etag === 'string') return { lease: new Lease(context, key, etag, body), unfinished: [] };
    if (Date.now() >= recheckAt) {
      const seen = await bucket.getWithDate(key, signal);
      if (seen === null) continue; // released in between
      const held = parseBody(seen.object.bytes);
      if (held.owner === owner && held.op === journal.op) {
        // Our own PUT landed, and the SDK's resend of it found it there.
        return { lease: new Lease(context, key, seen.object.etag, body), unfinished: [] };
      }
      const now = Date.now();
      const abandoned = context.abandoned.get(key);
      const ours = abandoned !== undefined && abandoned.etag === seen.object.etag;
      const ttl = typeof held.ttlMs === 'number' && held.ttlMs > 0 ? held.ttlMs : leaseTtlMs;
      giveUpAt = Math.max(giveUpAt, started + 2 * ttl + 3 * CLOCK_RESOLUTION_MS);
      const age = (seen.serverTime ?? now) - (seen.object.lastModified?.getTime() ?? now);
      const waitMs = ours ? abandoned.at + ABANDON_GRACE_MS - now : ttl + CLOCK_RESOLUTION_MS - age;
      if (waitMs <= 0) {
        // The taker's own change is recorded only once the crashed holder's is finished: until
        // then, a crash of the taker leaves only that one to finish.
        const unfinished = Array.isArray(held.journal) ? held.journal : [];
        const takeover: LeaseBody = { ...body, journal: unfinished.length > 0 ? unfinished : [journal] };
        const taken = await bucket.put(
          key,
          JSON.stringify(takeover),
          { ifMatch: seen.object.etag, ops: journal.op, contentType: JSON_TYPE },
          signal,
        );
        if (typeof taken === 'string') {
          context.abandoned.delete(key);
          return { lease: new Lease(context, key, taken, takeover), unfinished };
        }
        continue; // another store took it over first
      }
      recheckAt = now + waitMs;
    }
    if (Date.now() >= giveUpAt) {
      throw storeUnavailable('another store has been holding the lock of this memory for too long');
    }
    await sleep(Math.random() * Math.min(MAX_POLL_MS, 4 * 2 ** round), signal);
  }
}
