// What this process last saw of files it read or wrote: the version, its size, and the operation ids
// the version carries. A `create` over a file known this way is one conditional PUT (`If-Match` on
// the version seen): if the file changed or went since, the PUT is refused and the store looks
// again. A write passes the ids on, so a resent request of an earlier writer is still recognised.
import type { StoredRecord } from './objects.js';

/** One file as this process last saw it. */
export interface KnownVersion {
  readonly etag: string;
  readonly size: number;
  readonly ops: readonly string[];
  /** The file's history headers (history/chain.ts), when the version seen carried them. */
  readonly fileId?: string | undefined;
  readonly chain?: string | undefined;
  /** The file's record (identity), when the version seen carried one. */
  readonly record?: StoredRecord | undefined;
  /** Its Last-Modified: when a file written before records was made, as far as is known. */
  readonly lastModified?: Date | undefined;
}

/** The most files remembered; the oldest are forgotten first. */
const LIMIT = 4096;

export class KnownFiles {
  readonly #entries = new Map<string, KnownVersion>();

  remember(key: string, version: KnownVersion): void {
    this.#entries.delete(key);
    this.#entries.set(key, version);
    if (this.#entries.size > LIMIT) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** The version last seen at `key`, if any. */
  get(key: string): KnownVersion | undefined {
    return this.#entries.get(key);
  }

  /** The operation ids of version `etag` at `key`, when that is the version last seen. */
  opsOf(key: string, etag: string): readonly string[] {
    const known = this.#entries.get(key);
    return known?.etag === etag ? known.ops : [];
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every key that starts with `prefix` (a folder deleted or moved away). */
  forgetBeneath(prefix: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(prefix)) this.#entries.delete(key);
  }
}
