// The lease: one object per namespace (`.memdir/lease`) that serialises the changes of structure (a
// new path, a delete, a rename) between processes, so that a path is never a file and a folder at
// once and racing creators have one winner. S3 has no locks, but it has conditional writes:
//
//   acquire    PUT If-None-Match: *        exactly one of the racing stores gets it
//   renew      PUT If-Match: <etag>        while a change runs (every third of the TTL)
//   expiry     the server's clock only: the reply's Date header minus the lease's Last-Modified
//   takeover   PUT If-Match: <etag>        of an expired lease: exactly one taker wins
//   release    DELETE                      conditional where the server honours it; radosgw 16 does
//                                          not, so a lease that may have expired is left to expire
//
// The lease doubles as the journal: it says which change its holder is making, so whoever takes
// over an expired lease first finishes what the crashed holder left half done (recovery.ts). One
// process takes it once for a queue of changes (sessions.ts).
import { outcomeUnknown, sleep, storeUnavailable } from '@memdir/core/driver';
import { Call } from './call.js';
import type { Shared } from './shared.js';

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
       * while it records `intent`: recovery of an `intent` move looks for a copy carrying its id.
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

/** A lease another store holds: its body as far as it can be read. */
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
 * A waiter tries again after a few milliseconds, doubling up to this (full jitter): quick hand-overs
 * between processes, each of which has one waiter per namespace (sessions.ts), so the polls stay few.
 */
export const MAX_POLL_MS = 50;
/** The least time a waiter keeps before its deadline to answer that the lease is busy. */
const MIN_MARGIN_MS = 100;
/**
 * How often a waiter reads the lease to see whether it changed hands (one GET, at most this often):
 * each new holder is progress of the queue it waits in, which keeps its commands waiting
 * (`queueTimeoutMs`). Turns of the lease last from tens of milliseconds to about a second.
 */
const OBSERVE_MS = 250;
const JSON_TYPE = 'application/json';

/** The lease, held. */
export class Lease {
  #etag: string;
  #body: LeaseBody;
  /**
   * When the last write of the lease that landed was sent: another store can take the lease over
   * only once the lease is older than its TTL by the server's clock, which is later than this plus
   * the TTL by ours (the write landed after it was sent).
   */
  #sentAt: number;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  #lost = false;

  constructor(
    readonly backend: Shared,
    readonly key: string,
    etag: string,
    body: LeaseBody,
    readonly call: Call,
    sentAt: number,
  ) {
    this.#etag = etag;
    this.#body = body;
    this.#sentAt = sentAt;
    this.#timer = setInterval(() => this.#renew(), Math.max(body.ttlMs / 3, 100));
    this.#timer.unref();
  }

  /** Held, and confirmed recently enough that no other store can have taken it over. */
  get fresh(): boolean {
    return !this.#lost && Date.now() - this.#sentAt < this.#body.ttlMs / 2;
  }

  /** What the lease says is under way. */
  get journal(): readonly Journal[] {
    return this.#body.journal;
  }

  /** Fails unless the lease is still ours: call before each change a holder makes. */
  check(): void {
    if (!this.fresh) {
      throw outcomeUnknown(
        'another store took over the lock of this memory while a change was running',
        undefined,
        'busy',
      );
    }
  }

  /** Rewrites the journal. */
  record(journal: readonly Journal[], call: Call): Promise<void> {
    return this.#write({ ...this.#body, journal }, call);
  }

  #renew(): void {
    if (this.#lost) return;
    // Worth waiting for until the holder would stop trusting its lease anyway.
    const call = new Call(this.call.log, undefined, Date.now() + this.#body.ttlMs / 2);
    this.#write({ ...this.#body, renewal: this.#body.renewal + 1 }, call).catch((error: unknown) => {
      // Tried again at the next tick; `fresh` turns false if none succeeds in time, which stops
      // the holder.
      this.call.log.warn('lease renewal failed', { reason: (error as { reason?: unknown }).reason });
    });
  }

  #write(body: LeaseBody, call: Call): Promise<void> {
    const run = async () => {
      // No freshness check here: the write is conditional on the lease's version, so a late
      // renewal still lands while the lease is ours, and is refused once it is not.
      if (this.#lost) this.check();
      const sentAt = Date.now();
      const { bucket } = this.backend;
      const payload = JSON.stringify(body);
      const etag = await bucket.put(
        this.key,
        payload,
        { ifMatch: this.#etag, ops: body.op, contentType: JSON_TYPE },
        call,
      );
      if (typeof etag === 'string') {
        this.#accept(etag, body, sentAt);
        return;
      }
      // A write that was sent again after it landed: then the lease holds exactly this body.
      const seen = await bucket.get(this.key, call);
      if (seen && Buffer.from(seen.bytes).toString('utf8') === payload) {
        this.#accept(seen.etag, body, sentAt);
        return;
      }
      this.#lost = true;
      this.check();
    };
    const next = this.#chain.then(run, run);
    this.#chain = next.catch(() => {});
    return next;
  }

  #accept(etag: string, body: LeaseBody, sentAt: number): void {
    this.#etag = etag;
    this.#body = body;
    this.#sentAt = sentAt;
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
    const { bucket } = this.backend;
    const conditional = bucket.behaviour.conditionalDelete ? this.#etag : undefined;
    // The release is the holder's own upkeep, after its changes answered: it may take what is left
    // of the lease's life, whatever the deadlines of the changes that took it.
    const call = new Call(this.call.log, undefined, this.#sentAt + this.#body.ttlMs / 2);
    return bucket.delete(this.key, conditional, call).then(
      () => true,
      () => false,
    );
  }

  /**
   * Leaves the lease as the journal of a change that did not finish (its deadline passed, or the
   * server failed mid-way): the next store to take it over finishes the change, this process first
   * (see {@link Shared.abandoned}).
   */
  abandon(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.backend.abandoned.set(this.key, { etag: this.#etag, at: Date.now() });
    this.call.log.warn('a change was left half done; the next change of structure finishes it');
  }
}

/**
 * What acquiring gave: the lease, and the journal of a crashed holder to finish first. When there
 * is one, the lease does not record the new change yet: record it once that journal is finished.
 */
export interface Acquired {
  readonly lease: Lease;
  readonly unfinished: readonly Journal[];
  /** True when another store held the lease at the first try: it changed the namespace meanwhile. */
  readonly contested: boolean;
}

/** Who waits for the lease: whether anyone still does, and the call that bounds the next request. */
export interface Waiter {
  wanted(): boolean;
  /** Called between tries while another store holds the lease (not awaited: it must not throw). */
  meanwhile?(): void;
  /**
   * Called when the wait sees another store's turn end (the lease changed hands): the waiters are
   * behind writers that make progress (`DriverCallOptions.progressed`). Must not throw.
   */
  progressed?(): void;
  /** The call of those waiting now (its deadline is the latest of theirs). */
  call(): Call;
}

/**
 * Takes the lease at `key` for `journal`, waiting while another store holds it (trying again after
 * a jittered, doubling pause) and taking over a lease whose holder let it expire. Gives up when
 * nobody waits any more, at the waiter's deadline, or once the lease had time to expire twice over.
 */
export async function acquireLease(
  backend: Shared,
  key: string,
  journal: Journal,
  waiter: Waiter,
): Promise<Acquired> {
  const { bucket, owner, leaseTtlMs } = backend;
  const body: LeaseBody = {
    memdir: 'lease',
    owner,
    op: journal.op,
    ttlMs: leaseTtlMs,
    renewal: 0,
    journal: [journal],
  };
  const payload = JSON.stringify(body);
  const started = Date.now();
  let giveUpAt = started + 2 * leaseTtlMs + 3 * CLOCK_RESOLUTION_MS;
  let recheckAt = 0;
  let waited = false;
  /** Who held the lease when it was last read (owner and operation), or null when nobody did. */
  let holder: string | null | undefined;
  /** The longest a try took: the wait ends while there is time for one more and an answer. */
  let slowest = 0;
  for (let round = 0; ; round++) {
    const call = waiter.call();
    const sentAt = Date.now();
    const etag = await bucket.put(
      key,
      payload,
      { ifNoneMatch: true, ops: journal.op, contentType: JSON_TYPE },
      call,
    );
    slowest = Math.max(slowest, Date.now() - sentAt);
    if (typeof etag === 'string') {
      if (waited) call.log.debug('lease taken after a wait', { waitedMs: Date.now() - started });
      return {
        lease: new Lease(backend, key, etag, body, call, sentAt),
        unfinished: [],
        contested: round > 0,
      };
    }
    if (Date.now() >= recheckAt) {
      const seen = await bucket.getWithDate(key, call);
      const held = seen === null ? null : parseBody(seen.object.bytes);
      // A lease taken or released since the last look is another store's turn ended: progress.
      // One holder renewing the same lease (alive or stalled) is not.
      const current = held === null ? null : `${String(held.owner)}\n${String(held.op)}`;
      if (holder !== undefined && current !== holder) {
        waiter.progressed?.();
        giveUpAt = Math.max(giveUpAt, Date.now() + 2 * leaseTtlMs + 3 * CLOCK_RESOLUTION_MS);
      }
      holder = current;
      if (seen === null || held === null) continue; // released in between
      if (held.owner === owner && held.op === journal.op) {
        // Our own PUT landed, and its second sending found it there.
        return {
          lease: new Lease(backend, key, seen.object.etag, body, call, sentAt),
          unfinished: [],
          contested: round > 0,
        };
      }
      const now = Date.now();
      const abandoned = backend.abandoned.get(key);
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
        const takenAt = Date.now();
        const taken = await bucket.put(
          key,
          JSON.stringify(takeover),
          { ifMatch: seen.object.etag, ops: journal.op, contentType: JSON_TYPE },
          call,
        );
        if (typeof taken === 'string') {
          backend.abandoned.delete(key);
          call.log.info(
            ours ? 'lease taken back after a change left half done' : 'expired lease taken over',
            {
              unfinished: unfinished.length,
            },
          );
          return {
            lease: new Lease(backend, key, taken, takeover, call, takenAt),
            unfinished,
            contested: true,
          };
        }
        continue; // another store took it over first
      }
      // Read again once the lease could have expired, or sooner to see whether it changed hands.
      recheckAt = now + Math.min(waitMs, OBSERVE_MS);
      if (!waited) call.log.debug('waiting for the lease of a namespace', { heldForMs: Math.max(0, age) });
      waited = true;
    }
    const pause = Math.random() * Math.min(MAX_POLL_MS, 4 * 2 ** round);
    // Given up while the command can still say why (another store is busy), rather than at its
    // deadline, where it could only say that time ran out.
    const margin = Math.max(MIN_MARGIN_MS, 3 * slowest);
    waiter.meanwhile?.();
    if (!waiter.wanted() || Date.now() + pause + margin >= Math.min(giveUpAt, call.deadline)) {
      throw storeUnavailable('another store is making changes to this memory', undefined, 'busy');
    }
    await sleep(pause);
  }
}
