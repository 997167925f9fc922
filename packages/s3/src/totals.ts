// A namespace's totals (bytes and files), for quotas (SPEC section 3). S3 has no multi-object
// transaction, so the totals cannot change in the same step as a file. They are one object,
// `.memdir/totals`, changed only by conditional writes (`If-Match`), and kept never below the truth:
//
//   a change that raises the total   reserves first: the quota is judged against the totals read in
//                                    the conditional write that raises them, so no two changes both
//                                    pass it; then the file is written
//   a change that lowers the total   writes the file first, then gives the bytes back
//
// A crash between the two steps leaves the totals above the truth (a quota refuses a little early),
// never below it (a quota a tenant could pass). A write that was sent twice is recognised by the
// ids the totals carry in their metadata, so nothing counts twice. Reservations of one process that
// arrive together go in one write (the kit's EditQueue, as for the edits of a file).
import { randomUUID } from 'node:crypto';
import type { DriverChangeOptions, DriverQuota, QuotaBreach } from '@memdir/core';
import { type EditBatch, EditQueue, judgeQuota, refuseQuota, sleep } from '@memdir/core/driver';
import { Call } from './call.js';
import { isListedTombstone, listObjects } from './listing.js';
import { opsHeader } from './objects.js';
import type { SharedSpace } from './shared.js';

/** What the totals hold. */
export interface Counts {
  readonly bytes: number;
  readonly files: number;
}

/** The totals object as last read or written by this process. */
interface Seen extends Counts {
  readonly etag: string;
  readonly ops: readonly string[];
}

/** A change of the totals, with what judges it and the call it is made for. */
interface Update extends DriverChangeOptions {
  readonly call: Call;
  readonly change: Counts;
  /** Judged when the change raises the total; absent for a release (never refused). */
  readonly quota?: DriverQuota | undefined;
  readonly path: string;
}

const JSON_TYPE = 'application/json';
/** Updates of the totals in one write (their ids must fit in the object's metadata). */
const MAX_GROUP = 32;
const MAX_BACKOFF_MS = 25;

function parse(json: string): Counts {
  const body = JSON.parse(json) as Partial<Counts>;
  const bytes = Number(body.bytes);
  const files = Number(body.files);
  if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(files)) throw new Error('malformed totals');
  return { bytes, files };
}

function serialise(counts: Counts): string {
  return JSON.stringify({ memdir: 'totals', bytes: counts.bytes, files: counts.files });
}

export class Totals {
  readonly #space: SharedSpace;
  #seen: Seen | undefined;
  /** The read of the totals under way, if any. */
  #reading: Promise<Seen> | undefined;
  readonly #queue: EditQueue;

  constructor(space: SharedSpace) {
    this.#space = space;
    this.#queue = new EditQueue((_key, batch) => this.#commit(batch), MAX_GROUP);
  }

  /**
   * The totals as this process last knew them, else (or with `fresh`) as read, else counted from
   * the namespace's files and created.
   */
  async current(call: Call, fresh = false): Promise<Counts> {
    if (!fresh && this.#seen) return this.#seen;
    // The changes that ask at once share one read (and one count of a namespace that has none).
    this.#reading ??= this.#read(call).finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** Forgets the totals as last seen: the next change reads them (they may be gone). */
  forget(): void {
    this.#seen = undefined;
  }

  /**
   * Reserves `change` (bytes added, files added) before the change is made, judging `quota` against
   * the totals it raises. Resolves once the totals count it.
   * @throws MemoryToolError `QUOTA_EXCEEDED` (path: `path`) when the change would pass the quota.
   */
  async reserve(path: string, change: Counts, quota: DriverQuota, call: Call): Promise<void> {
    if (change.bytes === 0 && change.files === 0) return;
    await this.#update({
      path,
      change,
      quota,
      call,
      op: randomUUID(),
      // The call's: it follows the command's as progress of other writers moves it.
      get deadline() {
        return call.deadline;
      },
      progressed: () => call.progressed(),
    });
  }

  /**
   * Whether the totals leave no room for `change`, judged before it queues for the lease: on the
   * totals this process last saw (no request; with `fresh`, read again), and only when those leave
   * none, on the totals read again (one GET, shared by the changes that ask at once). A change found to have no room would have been refused a moment later; one
   * found to have room is still judged by its reservation.
   * @returns what the change would pass, or null when it fits.
   */
  async noRoom(change: Counts, quota: DriverQuota, call: Call, fresh = false): Promise<QuotaBreach | null> {
    const judge = (counts: Counts) =>
      judgeQuota(quota, {
        bytes: counts.bytes,
        files: counts.files,
        addedBytes: change.bytes,
        newFile: change.files > 0,
      });
    const breach = judge(await this.current(call, fresh));
    if (breach === null || fresh) return breach;
    return judge(await this.current(call, true));
  }

  /**
   * Takes `change` off the totals after it was made (a delete, a shorter file) or when a reservation
   * went unused. Never refused; a failure leaves the totals above the truth, which is logged.
   */
  async release(change: Counts, call: Call): Promise<void> {
    if (change.bytes === 0 && change.files === 0) return;
    // Upkeep after the change answered: it may outlive the command's deadline a little.
    const upkeep = new Call(
      call.log,
      undefined,
      Math.max(call.deadline, Date.now() + this.#space.backend.leaseTtlMs / 2),
    );
    const negative = { bytes: -change.bytes, files: -change.files };
    await this.#update({
      path: '',
      change: negative,
      call: upkeep,
      op: randomUUID(),
      deadline: upkeep.deadline,
    }).catch((error: unknown) =>
      call.log.warn('quota totals left above the truth', { reason: (error as { reason?: unknown }).reason }),
    );
  }

  #update(update: Update): Promise<unknown> {
    const edit = (json: string) => {
      const counts = parse(json);
      const { change, quota } = update;
      if (quota) {
        const breach = judgeQuota(quota, {
          bytes: counts.bytes,
          files: counts.files,
          addedBytes: change.bytes,
          newFile: change.files > 0,
        });
        if (breach) throw refuseQuota(update.path, breach);
      }
      return serialise({
        bytes: Math.max(0, counts.bytes + change.bytes),
        files: Math.max(0, counts.files + change.files),
      });
    };
    return this.#queue.submit('totals', edit, update);
  }

  /** One group of updates: applied to the totals as seen, written with `If-Match`, again on a race. */
  async #commit(batch: EditBatch): Promise<void> {
    const { bucket } = this.#space.backend;
    const key = this.#space.keys.totals;
    for (let round = 0; ; round++) {
      if (round > 0) {
        batch.refill();
        if (batch.settled) return;
      }
      const call = Call.shared(batch.members.map((member) => (member.options as Update).call));
      const cached = this.#seen;
      const seen = cached ?? (await this.#read(call));
      // An update whose id the totals carry landed already (its reply was lost).
      batch.resolveReplayed(seen.ops);
      if (batch.settled) return;
      const { content, applied } = batch.apply(serialise(seen));
      if (cached && applied.length < batch.members.length) {
        // Refused on what this process last saw: another may have freed room since. Judge again on
        // the totals as they are.
        this.#seen = undefined;
        continue;
      }
      if (applied.length === 0) {
        batch.settle();
        return;
      }
      const ops = opsHeader(applied, seen.ops);
      const written = await bucket.put(
        key,
        content,
        { ifMatch: seen.etag, ops, contentType: JSON_TYPE },
        call,
      );
      if (typeof written === 'string') {
        this.#seen = { ...parse(content), etag: written, ops: ops.split(' ') };
        batch.settle();
        return;
      }
      // Another process changed the totals (or this write landed before): read them again, after
      // a pause that spreads the processes racing for them. Their change is progress of the queue
      // these updates wait in.
      this.#seen = undefined;
      batch.progressed();
      call.retried();
      await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
    }
  }

  /** Reads the totals; a namespace that has none gets them, counted from its files. */
  async #read(call: Call): Promise<Seen> {
    const { bucket } = this.#space.backend;
    const key = this.#space.keys.totals;
    for (;;) {
      const object = await bucket.get(key, call);
      if (object) {
        const seen = {
          ...parse(Buffer.from(object.bytes).toString('utf8')),
          etag: object.etag,
          ops: object.ops,
        };
        this.#seen = seen;
        return seen;
      }
      const counts = await this.#count(call);
      const created = await bucket.put(
        key,
        serialise(counts),
        { ifNoneMatch: true, ops: 'counted', contentType: JSON_TYPE },
        call,
      );
      if (typeof created === 'string') {
        call.log.info('quota totals counted', { ...counts });
        const seen = { ...counts, etag: created, ops: [] };
        this.#seen = seen;
        return seen;
      }
      // Another store counted them first.
    }
  }

  /** The namespace's files and bytes, from a listing. */
  async #count(call: Call): Promise<Counts> {
    const { bucket } = this.#space.backend;
    const { keys } = this.#space;
    let bytes = 0;
    let files = 0;
    for await (const object of listObjects(bucket, keys.files, { call })) {
      if (isListedTombstone(object) || keys.pathOf(object.key) === undefined) continue;
      bytes += object.size;
      files++;
    }
    return { bytes, files };
  }
}
