// What this process keeps of a namespace's history: the next version id to claim, the time of its
// last version (times never go back within a process), and the headers of version objects it read
// or wrote (they never change but by redaction, which changes their ETag), bounded.
import type { VersionHeader } from './header.js';

/** Headers remembered, at most; the oldest are forgotten first. */
const LIMIT = 20_000;

export class HistoryState {
  /** The next sequence number to claim, or undefined to learn it from the namespace's newest key. */
  next: number | undefined;
  lastAt = 0;
  #refreshing: Promise<void> | undefined;

  /**
   * Learns the next sequence number again (another store took the one tried): one listing for all
   * the changes of this process that lost a claim at once, and never back below what was claimed.
   */
  refresh(newest: () => Promise<number>): Promise<void> {
    this.#refreshing ??= newest()
      .then((top) => {
        this.next = Math.max(this.next ?? 0, top + 1);
      })
      .finally(() => {
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }
  /**
   * Forgets the next sequence number (unless a refresh is under way): the next claim learns it
   * from the namespace's newest key (one listing) rather than try ids other stores took since.
   */
  forgetNext(): void {
    if (this.#refreshing === undefined) this.next = undefined;
  }

  readonly #headers = new Map<string, { etag: string | undefined; header: VersionHeader }>();

  remember(key: string, etag: string | undefined, header: VersionHeader): void {
    this.#headers.delete(key);
    this.#headers.set(key, { etag, header });
    if (this.#headers.size > LIMIT) this.#headers.delete(this.#headers.keys().next().value!);
  }

  /** The header of the object at `key` when it is still version `etag` (undefined etag: written here). */
  header(key: string, etag: string): VersionHeader | undefined {
    const seen = this.#headers.get(key);
    if (!seen) return undefined;
    if (seen.etag !== undefined && seen.etag !== etag) return undefined;
    return seen.header;
  }

  forget(key: string): void {
    this.#headers.delete(key);
  }
}
