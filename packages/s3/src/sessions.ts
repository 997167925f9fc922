// The changes of structure of one process share the namespace's lease. They queue here, and one
// acquisition serves the queue: independent new paths go side by side, a delete or a move alone,
// in the order they came, until the queue is empty (or the lease was held long enough that other
// processes deserve a turn). So 25 creates of one process take the lease once, not 25 times, and
// a process has one waiter for a lease another process holds, not one per command.
import { checkTime, isBeneath, sleep } from '@memdir/core/driver';
import { Call } from './call.js';
import { Lookups } from './inspect.js';
import { type Acquired, acquireLease, type Journal, type Lease, MAX_POLL_MS } from './lease.js';
import type { SharedSpace } from './shared.js';

/** What a change gets while it runs under the lease. */
export interface Held {
  readonly lease: Lease;
  /** Requests shared by the changes of one batch (see inspect.ts). */
  readonly lookups: Lookups;
  /** How many changes of the batch (this one included) create a path in this one's folder. */
  readonly siblings: number;
  /**
   * Called before the first request that changes anything: a failure after it leaves the lease as
   * the journal of an unfinished change. `changing(false)` takes it back (nothing was written).
   */
  changing(sent?: boolean): void;
  /**
   * True when nothing else will run under this lease: the change may then delete the lease in
   * its last request (with the keys it deletes) and call {@link released}.
   */
  last(): boolean;
  released(): void;
}

/** A change of structure. */
export interface StructuralChange<T> {
  /** What the lease records while the change runs (when it is the lease's first). */
  readonly journal: Journal;
  readonly call: Call;
  /**
   * The path the change creates. Changes with no `creates` (deletes, moves) run alone; creates of
   * paths of which neither lies at or beneath the other run side by side.
   */
  readonly creates?: string | undefined;
  run(held: Held): Promise<T>;
  /**
   * Judged again from time to time while the change waits for a lease another store holds: a
   * refusal it throws answers the change at once (a new file that no longer fits the quota does
   * not wait its turn only to be refused then).
   */
  recheck?(): Promise<void>;
  /**
   * Called while the change waits, each time the wait sees the backend make progress: another
   * store's turn with the lease ended, or a batch of this queue ahead of the change ran. By default
   * the change's call is told (which moves the command's deadline, `DriverCallOptions.progressed`);
   * a change made for several commands tells them all.
   */
  progressed?(): void;
}

/**
 * Finishes what a crashed store left half done under the lease (recovery.ts), before the queue's
 * own changes. Given by the backend, since recovery writes history, which needs the namespace's
 * whole state, of which this queue is a part.
 */
export type Recover = (lease: Lease, unfinished: readonly Journal[], call: Call) => Promise<void>;

/** What the backend does around the lease for the rest of the namespace's state. */
export interface LeaseHooks {
  readonly recover: Recover;
  /**
   * Called when the lease was taken after another store held it: what this process knew of the
   * namespace (its next version id) may be out of date.
   */
  readonly takenAfterWait: () => void;
}

interface Entry {
  readonly change: StructuralChange<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * How long one acquisition may go on serving this process's queue while it keeps filling: past
 * it, the lease is released and taken again, which lets waiting processes in.
 */
const MAX_HOLD_MS = 500;
/** Changes run side by side under one lease, at most. */
const MAX_BATCH = 32;
/** How often the changes waiting for a lease another store holds are judged again, at most. */
const RECHECK_MS = 250;

export class LeaseQueue {
  readonly #space: SharedSpace;
  readonly #hooks: LeaseHooks;
  #waiting: Entry[] = [];
  /** True while `#serve` runs (set and cleared synchronously, so no change is ever left waiting). */
  #serving = false;
  #current: Promise<void> = Promise.resolve();
  /** Set when a session ended while changes still waited: the next acquisition lets others in first. */
  #yielded = false;
  /** When the waiting changes were last judged again, and whether that is under way. */
  #rechecked = 0;
  #rechecking = false;

  constructor(space: SharedSpace, hooks: LeaseHooks) {
    this.#space = space;
    this.#hooks = hooks;
  }

  /** Runs `change` under the namespace's lease, with the others of this process that are waiting. */
  submit<T>(change: StructuralChange<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ change, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#serving) this.#current = this.#serve();
    });
  }

  /** Resolves once no change waits and the lease is released. */
  async idle(): Promise<void> {
    while (this.#serving) await this.#current;
  }

  /** The waiting changes whose deadline has not passed; the others are answered (the engine has). */
  #prune(): Entry[] {
    this.#waiting = this.#waiting.filter((entry) => {
      try {
        checkTime(entry.change.call);
        return true;
      } catch (error) {
        entry.reject(error);
        return false;
      }
    });
    return this.#waiting;
  }

  async #serve(): Promise<void> {
    this.#serving = true;
    try {
      // The loop's last check and the flag's reset happen in one step: a change queued after it
      // starts a new `#serve`.
      while (this.#prune().length > 0) {
        if (this.#yielded) {
          // Longer than a waiting process's pause between tries, so that one gets the lease first.
          this.#yielded = false;
          await sleep(MAX_POLL_MS * (1 + Math.random()));
          continue;
        }
        const { backend, keys } = this.#space;
        let acquired: Acquired;
        try {
          await backend.behaviour(this.#waiting[0]!.change.call);
          acquired = await acquireLease(backend, keys.lease, this.#waiting[0]!.change.journal, {
            wanted: () => this.#prune().length > 0,
            call: () => Call.shared(this.#waiting.map((entry) => entry.change.call)),
            meanwhile: () => this.#recheck(),
            progressed: () => this.#progressed(),
          });
        } catch (error) {
          for (const entry of this.#waiting.splice(0)) entry.reject(error);
          continue;
        }
        await this.#session(acquired);
      }
    } finally {
      this.#serving = false;
    }
  }

  /** The waiting changes saw the backend make progress on the queue they wait in. */
  #progressed(): void {
    for (const entry of this.#waiting) {
      if (entry.change.progressed) entry.change.progressed();
      else entry.change.call.progressed();
    }
  }

  /**
   * Judges the waiting changes again (those that can be), at most every {@link RECHECK_MS} and one
   * round at a time: a change whose check now refuses it leaves the queue with that refusal.
   */
  #recheck(): void {
    if (this.#rechecking || Date.now() - this.#rechecked < RECHECK_MS) return;
    const checked = this.#waiting.filter((entry) => entry.change.recheck !== undefined);
    if (checked.length === 0) return;
    this.#rechecking = true;
    void Promise.all(
      checked.map((entry) =>
        entry.change.recheck!().then(
          () => {},
          (error: unknown) => {
            const index = this.#waiting.indexOf(entry);
            // Taken into a batch meanwhile: the change is judged where it runs.
            if (index === -1) return;
            this.#waiting.splice(index, 1);
            entry.reject(error);
          },
        ),
      ),
    ).finally(() => {
      this.#rechecking = false;
      this.#rechecked = Date.now();
    });
  }

  /** Serves the queue under one acquisition of the lease, then releases it (or leaves it, abandoned). */
  async #session({ lease, unfinished, contested }: Acquired): Promise<void> {
    const started = Date.now();
    let served = 0;
    if (contested) this.#hooks.takenAfterWait();
    if (unfinished.length > 0) {
      try {
        await this.#hooks.recover(lease, unfinished, lease.call);
        await lease.record([], lease.call);
      } catch (error) {
        lease.abandon();
        for (const entry of this.#waiting.splice(0)) entry.reject(error);
        return;
      }
    }
    for (;;) {
      const batch = this.#take();
      if (batch.length === 0) break;
      served += batch.length;
      const ran = await this.#run(lease, batch);
      if (ran.abandoned) lease.abandon();
      // The changes still waiting waited for this batch, which is done.
      else this.#progressed();
      if (batch.length > 1 && !ran.abandoned && !ran.released && this.#waiting.length === 0) {
        // A batch's callers often go on at once (tool calls of one turn, a copy): answer them, and
        // keep the lease for what they send in the same turn of the event loop.
        for (const settle of ran.settled.splice(0)) settle();
        await new Promise((resolve) => setImmediate(resolve));
      }
      // A lone change is answered once the lease is released when nothing else waits, so a command
      // that returns leaves no lease behind it; else at once.
      const more = this.#prune().length > 0;
      const heldLong = Date.now() - started >= MAX_HOLD_MS;
      const ending = ran.abandoned || ran.released || !more || heldLong;
      if (ending && !ran.abandoned && !ran.released) await lease.release();
      if (ending) this.#yielded = more && heldLong && !ran.released && !ran.abandoned;
      for (const settle of ran.settled) settle();
      if (ending) {
        lease.call.log.debug('lease held', { heldMs: Date.now() - started, changes: served });
        return;
      }
    }
    await lease.release();
  }

  /**
   * Runs one batch under the lease. A change that fails after it began to write leaves the lease
   * abandoned (its journal is what a recovery finishes); a change may release the lease with its
   * last request when it is the only one left.
   * @returns how the batch ended, and how to answer each change (once the lease is settled).
   */
  async #run(
    lease: Lease,
    batch: readonly Entry[],
  ): Promise<{ abandoned: boolean; released: boolean; settled: Array<() => void> }> {
    const settled: Array<() => void> = [];
    // The lease names what a crash would leave half done: a delete or a move running alone. A
    // journal of a change already made must not stay, or recovery would make it again.
    const needed = batch[0]!.change.creates === undefined ? [batch[0]!.change.journal] : [];
    if (!sameJournal(lease.journal, needed)) {
      try {
        await lease.record(needed, batch[0]!.change.call);
      } catch (error) {
        for (const entry of batch) settled.push(() => entry.reject(error));
        return { abandoned: true, released: false, settled };
      }
    }
    let abandoned = false;
    let released = false;
    const lookups = new Lookups();
    const folders = new Map<string, number>();
    for (const entry of batch) {
      const folder = folderOf(entry.change.creates);
      folders.set(folder, (folders.get(folder) ?? 0) + 1);
    }
    await Promise.all(
      batch.map(async (entry) => {
        let changed = false;
        const held: Held = {
          lease,
          lookups,
          siblings: folders.get(folderOf(entry.change.creates)) ?? 1,
          changing: (sent = true) => {
            changed = sent;
          },
          last: () => batch.length === 1 && this.#prune().length === 0,
          released: () => {
            released = true;
          },
        };
        try {
          const value = await entry.change.run(held);
          settled.push(() => entry.resolve(value));
        } catch (error) {
          if (changed) abandoned = true;
          settled.push(() => entry.reject(error));
        }
      }),
    );
    return { abandoned, released, settled };
  }

  /**
   * The next changes to run together: the first in line, and after it, in order, creates of paths
   * unrelated to those already taken; a delete or a move, or a create at or beneath one taken,
   * waits for the next batch.
   */
  #take(): Entry[] {
    const waiting = this.#prune();
    const batch: Entry[] = [];
    for (const entry of waiting) {
      const path = entry.change.creates;
      if (batch.length > 0) {
        if (path === undefined || batch.length >= MAX_BATCH) break;
        const related = batch.some((taken) => {
          const other = taken.change.creates!;
          return other === path || isBeneath(path, other) || isBeneath(other, path);
        });
        if (related) break;
      }
      batch.push(entry);
      if (path === undefined) break;
    }
    this.#waiting.splice(0, batch.length);
    return batch;
  }
}

/** The folder a created path lies in (`''` at the top; a delete's or move's own key otherwise). */
function folderOf(path: string | undefined): string {
  if (path === undefined) return '\0';
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** True when two journals name the same unfinished changes (a new path's entry names none). */
function sameJournal(a: readonly Journal[], b: readonly Journal[]): boolean {
  const pending = (journal: readonly Journal[]) => journal.filter((entry) => entry.kind !== 'write');
  const [left, right] = [pending(a), pending(b)];
  return left.length === right.length && left.every((entry, index) => entry.op === right[index]!.op);
}
