// What every driver of one client and prefix shares, whatever its namespace.
import { randomBytes } from 'node:crypto';
import type { Bucket, ServerBehaviour } from './bucket.js';
import { probeServer } from './probe.js';

/** Operation ids carried by the versions this process has read, so a write can pass them on. */
class CarriedOps {
  readonly #entries = new Map<string, readonly string[]>();
  static readonly #LIMIT = 1024;

  remember(key: string, etag: string, ops: readonly string[]): void {
    if (ops.length === 0) return;
    const id = `${key}\n${etag}`;
    this.#entries.delete(id);
    this.#entries.set(id, ops);
    if (this.#entries.size > CarriedOps.#LIMIT) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  of(key: string, etag: string): readonly string[] {
    return this.#entries.get(`${key}\n${etag}`) ?? [];
  }
}

/**
 * The outcomes of the change calls this process made, by operation id: a call that comes again
 * with the id of one that succeeded gets that outcome back and changes nothing (the contract's
 * `replaySafe`). Only this process sends its own ids, so a record here is enough for whole calls;
 * a request the SDK resends is recognised on the server instead (object metadata, the lease's
 * owner). Bounded: ids are unique, and a replay comes soon after the original or not at all.
 */
class Receipts {
  readonly #outcomes = new Map<string, unknown>();
  static readonly #LIMIT = 10_000;

  has(op: string): boolean {
    return this.#outcomes.has(op);
  }

  get<T>(op: string): T {
    return this.#outcomes.get(op) as T;
  }

  record<T>(op: string, outcome: T): T {
    this.#outcomes.set(op, outcome);
    if (this.#outcomes.size > Receipts.#LIMIT) {
      this.#outcomes.delete(this.#outcomes.keys().next().value!);
    }
    return outcome;
  }
}

export interface ContextOptions {
  readonly bucket: Bucket;
  readonly prefix: string;
  readonly leaseTtlMs: number;
  /** Called once by `close()`: destroys a client the driver built itself. */
  readonly release: () => void;
}

export class S3Context {
  readonly bucket: Bucket;
  readonly prefix: string;
  readonly leaseTtlMs: number;
  /** Identifies this process's leases, so it recognises its own after a lost reply. */
  readonly owner = randomBytes(9).toString('base64url');
  /**
   * Leases this process gave up in the middle of a change (its deadline passed): it may take them
   * over without waiting for them to expire, once its requests in flight have had time to land.
   */
  readonly abandoned = new Map<string, { etag: string; at: number }>();
  readonly carried = new CarriedOps();
  readonly receipts = new Receipts();
  /** Group commits of edits in progress, by key (edits.ts). */
  readonly edits = new Map<string, unknown>();
  #behaviour: Promise<ServerBehaviour> | undefined;
  #closed = false;
  readonly #release: () => void;

  constructor(options: ContextOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.leaseTtlMs = options.leaseTtlMs;
    this.#release = options.release;
  }

  /**
   * The server's conditional-write behaviour, probed once before the first change. A probe that
   * fails for a passing reason (a timeout) is tried again by the next change.
   */
  async behaviour(signal: AbortSignal | undefined): Promise<ServerBehaviour> {
    if (!this.#behaviour) {
      const probing = probeServer(this.bucket, this.prefix, signal);
      this.#behaviour = probing;
      probing.catch(() => {
        if (this.#behaviour === probing) this.#behaviour = undefined;
      });
    }
    return this.#behaviour;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#release();
  }
}
