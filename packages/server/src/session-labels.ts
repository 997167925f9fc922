// MCP session ids without server sessions. A session id is a label bound to the token that opened
// it: 8 random bytes and the first 8 bytes of their HMAC keyed by the token's SHA-256, shown as a
// UUID. Any process with the same tokens file checks it without shared state, so a client keeps its
// session whichever process a balancer picks, and a process that restarts or dies loses none. A
// label presented with another token is not found, whatever process answers.
//
// Nothing lives in a session: the token decides the namespace and mode of every call. What a
// process remembers of the labels it saw (for idle expiry, a client's DELETE and a tokens reload) is
// a courtesy for clients that expect sessions to end, bounded in size, and never a security line:
// another process that did not see the end accepts the label, which gives nothing the token does
// not give.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenGrant } from './auth.js';

/** The options of `SessionLabels`. */
export interface SessionLabelOptions {
  /** A label unused this long (milliseconds) is ended by this process. @default 1800000 (30 min) */
  idleMs?: number;
  /** The most labels one process remembers (seen or ended); the oldest are forgotten. @default 4096 */
  remembered?: number;
  /** Called when this process ends a label: `'idle'`, `'token revoked or changed'`, or `'server stopping'`. */
  onEnd?: (tokenName: string, why: string) => void;
}

const LABEL = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

function mac(grant: TokenGrant, nonce: Buffer): Buffer {
  return createHmac('sha256', Buffer.from(grant.sha256, 'hex')).update(nonce).digest().subarray(0, 8);
}

/** Session labels: made at `initialize`, checked on every later request. */
export class SessionLabels {
  readonly #idleMs: number;
  readonly #remembered: number;
  readonly #onEnd: (tokenName: string, why: string) => void;
  /** Labels seen by this process, oldest use first: their grant and last use. */
  readonly #seen = new Map<string, { grant: TokenGrant; at: number }>();
  /** Labels this process ended, oldest first. */
  readonly #ended = new Set<string>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: SessionLabelOptions = {}) {
    this.#idleMs = options.idleMs ?? 1_800_000;
    this.#remembered = options.remembered ?? 4096;
    this.#onEnd = options.onEnd ?? (() => {});
    const every = Math.min(60_000, Math.max(100, Math.floor(this.#idleMs / 4)));
    this.#sweeper = setInterval(() => this.#expire(Date.now()), every);
    this.#sweeper.unref();
  }

  /** A new label for `grant`. */
  open(grant: TokenGrant): string {
    const nonce = randomBytes(8);
    const hex = Buffer.concat([nonce, mac(grant, nonce)]).toString('hex');
    const label = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    this.#touch(label, grant);
    return label;
  }

  /** True when `label` was made for `grant` and this process has not ended it; counts as a use. */
  check(label: string, grant: TokenGrant): boolean {
    // A label this process checked (or made) for this very grant needs no second HMAC: only a valid
    // one enters what it saw, and an ended one leaves it.
    if (this.#seen.get(label)?.grant === grant) {
      this.#touch(label, grant);
      return true;
    }
    const match = LABEL.exec(label);
    if (match === null || this.#ended.has(label)) return false;
    const bytes = Buffer.from(match.slice(1).join(''), 'hex');
    if (!timingSafeEqual(bytes.subarray(8), mac(grant, bytes.subarray(0, 8)))) return false;
    this.#touch(label, grant);
    return true;
  }

  /** Ends `label` here (the client's DELETE). */
  end(label: string): void {
    this.#seen.delete(label);
    this.#remember(label);
  }

  /**
   * After a tokens reload: ends the labels seen here whose token is no longer accepted (`accepted`
   * says, by grant); returns how many.
   */
  rebind(accepted: (grant: TokenGrant) => boolean): number {
    let ended = 0;
    for (const [label, { grant }] of this.#seen) {
      if (accepted(grant)) continue;
      this.#endSeen(label, grant, 'token revoked or changed');
      ended++;
    }
    return ended;
  }

  /** Ends every label seen here and stops the idle sweep. */
  closeAll(why: string): void {
    clearInterval(this.#sweeper);
    for (const [label, { grant }] of this.#seen) this.#endSeen(label, grant, why);
  }

  #touch(label: string, grant: TokenGrant): void {
    this.#seen.delete(label);
    this.#seen.set(label, { grant, at: Date.now() });
    if (this.#seen.size > this.#remembered) this.#seen.delete(this.#seen.keys().next().value!);
  }

  #remember(label: string): void {
    this.#ended.add(label);
    if (this.#ended.size > this.#remembered) this.#ended.delete(this.#ended.values().next().value!);
  }

  #endSeen(label: string, grant: TokenGrant, why: string): void {
    this.#seen.delete(label);
    this.#remember(label);
    this.#onEnd(grant.name, why);
  }

  #expire(now: number): void {
    // The map is in order of last use: stop at the first label still in use.
    for (const [label, { grant, at }] of this.#seen) {
      if (now - at < this.#idleMs) break;
      this.#endSeen(label, grant, 'idle');
    }
  }
}
