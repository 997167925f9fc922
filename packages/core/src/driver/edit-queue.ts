// Edit coalescing ("group commit") for drivers whose read-modify-write is a read, then a
// conditional write (S3's If-Match, a row lock): edits of one file that arrive while a write of it is
// in flight wait, then go together: one read, each edit applied in turn to what the one before it
// left, one write carrying every applied edit's operation id, and each command gets its own outcome.
//
// A compare-and-swap per edit makes n concurrent edits of one file cost O(n^2) requests and most run
// out of time; grouped, each process keeps one write per file in flight, so n edits from p processes
// cost about n/p rounds at worst. A group gives up only as its members' deadlines pass; the edits
// waiting for a file are told when the queue moves (a group of theirs or another writer's committed),
// so that with an engine their deadlines follow (`DriverCallOptions.progressed`).
import { unexpectedBackendFailure } from '../errors.js';
import type { DriverChangeOptions } from './contract.js';
import { checkTime } from './deadline.js';

/** One edit waiting in a queue. */
export interface QueuedEdit {
  readonly edit: (content: string) => string;
  readonly options: DriverChangeOptions;
}

interface Member extends QueuedEdit {
  resolve(kind: 'file' | 'directory' | null): void;
  reject(error: unknown): void;
  /** Set by `apply`: the error this member's edit threw, or undefined when it applied. */
  refused?: { error: unknown } | undefined;
}

/**
 * A check of one step of a group: `before` and `after` are the content around one member's edit
 * (after the members before it). Returns the refusal for that member, or null to keep it.
 */
export type EditCheck = (before: string, after: string, edit: QueuedEdit) => unknown;

/** The edits of one file that go together in one write; what `EditQueue`'s commit function gets. */
export class EditBatch {
  #members: Member[] = [];
  readonly #pending: Member[];
  readonly #max: number;

  /** @internal */
  constructor(pending: Member[], max: number) {
    this.#pending = pending;
    this.#max = max;
  }

  /** The edits still waiting for an outcome. */
  get members(): readonly QueuedEdit[] {
    return this.#members;
  }

  /** The operation ids of the edits still waiting. */
  get ops(): string[] {
    return this.#members.map((member) => member.options.op);
  }

  /** True when every edit of the batch has its outcome. */
  get settled(): boolean {
    return this.#members.length === 0;
  }

  /**
   * Takes in edits that arrived since (up to the group's size), and answers those whose deadline
   * passed (the engine has reported them already). The queue calls it before each commit; call it
   * again at the start of every later round.
   */
  refill(): void {
    this.#members.push(...this.#pending.splice(0, this.#max - this.#members.length));
    this.#members = this.#members.filter((member) => {
      try {
        checkTime(member.options);
        return true;
      } catch (error) {
        member.reject(error);
        return false;
      }
    });
  }

  /**
   * The backend moved on the queue these edits wait in (another writer's group committed, the lock
   * changed hands): tells every edit waiting for this file, those of the batch and those queued
   * behind it (`DriverCallOptions.progressed`).
   */
  progressed(): void {
    for (const member of this.#members) member.options.progressed?.();
    for (const member of this.#pending) member.options.progressed?.();
  }

  /** Edits whose operation id the file already carries were written before (a replay): they succeed. */
  resolveReplayed(ops: readonly string[]): void {
    if (ops.length === 0) return;
    this.#members = this.#members.filter((member) => {
      if (!ops.includes(member.options.op)) return true;
      member.resolve('file');
      return false;
    });
  }

  /**
   * Applies every waiting edit in turn to `content`: an edit that throws (or that `check` refuses)
   * is left out and will get its error; the others apply to what the one before left.
   * @returns the content after all applied edits, and their operation ids (empty when none applied).
   */
  apply(content: string, check?: EditCheck): { content: string; applied: string[] } {
    const applied: string[] = [];
    let current = content;
    for (const member of this.#members) {
      try {
        const next = member.edit(current);
        const refusal = check?.(current, next, member);
        if (refusal) throw refusal;
        current = next;
        member.refused = undefined;
        applied.push(member.options.op);
      } catch (error) {
        member.refused = { error };
      }
    }
    return { content: current, applied };
  }

  /**
   * The write of the last `apply` landed (or nothing was to be written): applied edits resolve,
   * refused ones reject with their errors.
   */
  settle(): void {
    for (const member of this.#members) {
      if (member.refused) member.reject(member.refused.error);
      else member.resolve('file');
    }
    this.#members = [];
  }

  /** No file is at the path: every waiting edit gets that answer. */
  missing(kind: 'directory' | null): void {
    for (const member of this.#members) member.resolve(kind);
    this.#members = [];
  }

  /** The backend failed: every waiting edit gets `error`. */
  fail(error: unknown): void {
    for (const member of this.#members) member.reject(error);
    this.#members = [];
  }
}

/**
 * Per-file queues of edits with one commit in flight per file. The driver's `commit` runs one batch
 * to its end (read, `apply`, conditional write, retry on a lost race, `settle`): whatever it leaves
 * unsettled, or throws, fails those edits.
 */
export class EditQueue {
  readonly #queues = new Map<string, Member[]>();
  readonly #commit: (key: string, batch: EditBatch) => Promise<void>;
  readonly #max: number;

  /**
   * @param commit runs one batch of edits of the file `key` names.
   * @param maxGroup the most edits in one write (bounded by what one write can carry, operation ids
   *   included). @default 100
   */
  constructor(commit: (key: string, batch: EditBatch) => Promise<void>, maxGroup = 100) {
    this.#commit = commit;
    this.#max = maxGroup;
  }

  /** Queues `edit` of the file `key` names; resolves as the driver's `update` does. */
  submit(
    key: string,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    return new Promise((resolve, reject) => {
      const member: Member = { edit, options, resolve, reject };
      const queue = this.#queues.get(key);
      if (queue) {
        queue.push(member);
        return;
      }
      const fresh = [member];
      this.#queues.set(key, fresh);
      void this.#drain(key, fresh);
    });
  }

  async #drain(key: string, pending: Member[]): Promise<void> {
    try {
      while (pending.length > 0) {
        const batch = new EditBatch(pending, this.#max);
        // Taken in before the commit runs, so a commit that fails at once still answers them.
        batch.refill();
        if (batch.settled) continue;
        try {
          await this.#commit(key, batch);
          if (!batch.settled) {
            batch.fail(unexpectedBackendFailure(new Error('memdir: an edit batch ended without an outcome')));
          }
          // The edits queued behind this batch waited for it, and it is done: their queue moved.
          for (const member of pending) member.options.progressed?.();
        } catch (error) {
          batch.fail(error);
        }
      }
    } finally {
      this.#queues.delete(key);
    }
  }
}
