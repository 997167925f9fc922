// A namespace's records (capabilities.records): one per file, its id, hash, size, times and the
// version holding its content, in `.memdir/records`, a file of JSON lines read and written under
// the folder's lock only, beside the history and hidden from the memory tool as the history is.
// Every process keeps the records in memory, brought up to date from the file's tail at each
// locked call (as the history's index is).
//
// Lines:
//   {"h":1}                        the first line: every file had a record when it was written (adopted)
//   {"k":[path,record]}            a record (a rewrite writes one per line)
//   {"u":[[path,record|null],...]} records set or dropped at once (a refresh, an adoption)
//   {"g":[[path,record|null,ino?],...],"f":1?} a change's records: pending
//   {"c":1} / {"a":1}              the pending group above happened / did not
//
// Crash safety, as the history's: a change appends its group before its visible step (the rename or
// unlink), and `{"c":1}` after. A pending group left by a dead process is settled under the lock by
// looking at the files: it happened when every record's file (its inode) is at its path and every
// dropped path holds no file (or another one). A group marked `f` (an update by id that moves and
// rewrites a file in two steps) is rolled forward when its new file is in place.
// A record also holds its file's inode, size and mtime: a record whose file disagrees (edited by
// hand, or the tail lost to a power failure) is refreshed from the file, keeping its id.
import * as fs from 'node:fs';
import type { Dir } from '../dir.js';
import { closeNow, FILE_MODE, O_CREAT, O_NOFOLLOW, O_RDWR, preadNow, pwriteNow } from '../sys.js';
import type { Temp } from '../temp.js';

/** What is kept per file. */
export interface StoredRecord {
  /** The file id. */
  readonly i: string;
  /** SHA-256 of the content, hex. */
  readonly h: string;
  /** UTF-8 bytes. */
  readonly s: number;
  /** Created at (ms). */
  readonly c: number;
  /** Changed at (ms). */
  readonly t: number;
  /** The version holding the content, or null. */
  readonly v: string | null;
  /** The file's inode (decimal). */
  readonly n: string;
  /** The file's mtime in ns (decimal). */
  readonly m: string;
}

/** One path of a group: its record after the change (null: no file), and the inode it had. */
export type RecordEntry = readonly [path: string, record: StoredRecord | null, was?: string];

type Line =
  | { readonly h: 1 }
  | { readonly k: readonly [string, StoredRecord] }
  | { readonly u: readonly (readonly [string, StoredRecord | null])[] }
  | { readonly g: readonly RecordEntry[]; readonly f?: 1 }
  | { readonly c: 1 }
  | { readonly a: 1 };

/** Rewrite once this many lines hold more than four times the live records. */
const REWRITE_LINES = 2_000;

export class RecordsLog {
  readonly #memdir: Dir;
  #fd = -1;
  #ino = -1;
  #offset = 0;
  #lines = 0;
  #pending: { entries: readonly RecordEntry[]; rollForward: boolean } | undefined;
  #adopted = false;
  readonly #byPath = new Map<string, StoredRecord>();
  readonly #byId = new Map<string, string>();

  constructor(memdir: Dir) {
    this.#memdir = memdir;
  }

  get path(): string {
    return this.#memdir.at('records');
  }

  /** Whether every file got a record once (the file starts with its header). */
  get adopted(): boolean {
    return this.#adopted;
  }

  get pending(): { readonly entries: readonly RecordEntry[]; readonly rollForward: boolean } | undefined {
    return this.#pending;
  }

  get(path: string): StoredRecord | undefined {
    return this.#byPath.get(path);
  }

  pathOf(fileId: string): string | undefined {
    return this.#byId.get(fileId);
  }

  /** Every path with a record. */
  paths(): IterableIterator<string> {
    return this.#byPath.keys();
  }

  get size(): number {
    return this.#byPath.size;
  }

  /** Brings the records up to date with the file (reopened when another process rewrote it). */
  async refresh(): Promise<void> {
    const info = fs.lstatSync(this.path, { throwIfNoEntry: false }) ?? null;
    if (info === null) {
      if (this.#fd !== -1 || this.#adopted) this.#reset();
      return;
    }
    if (info.ino !== this.#ino) {
      this.#reset();
      this.#fd = fs.openSync(this.path, O_RDWR | O_CREAT | O_NOFOLLOW, FILE_MODE);
      this.#ino = fs.fstatSync(this.#fd).ino;
    }
    const size = fs.fstatSync(this.#fd).size;
    if (size <= this.#offset) return;
    const buffer = Buffer.allocUnsafe(size - this.#offset);
    const length = preadNow(this.#fd, buffer, this.#offset);
    let start = 0;
    for (;;) {
      const end = buffer.indexOf(10, start);
      if (end === -1 || end >= length) break;
      let line: Line;
      try {
        line = JSON.parse(buffer.toString('utf8', start, end)) as Line;
      } catch {
        break;
      }
      this.#apply(line);
      start = end + 1;
    }
    this.#offset += start;
    // A torn last line (a crash mid-append) is cut off.
    if (this.#offset < size) fs.ftruncateSync(this.#fd, this.#offset);
  }

  #reset(): void {
    if (this.#fd !== -1) closeNow(this.#fd);
    this.#fd = -1;
    this.#ino = -1;
    this.#offset = 0;
    this.#lines = 0;
    this.#pending = undefined;
    this.#adopted = false;
    this.#byPath.clear();
    this.#byId.clear();
  }

  #set(path: string, record: StoredRecord | null): void {
    const old = this.#byPath.get(path);
    if (old && this.#byId.get(old.i) === path) this.#byId.delete(old.i);
    if (record === null) {
      this.#byPath.delete(path);
      return;
    }
    this.#byPath.set(path, record);
    this.#byId.set(record.i, path);
  }

  #apply(line: Line): void {
    this.#lines++;
    if ('h' in line) this.#adopted = true;
    else if ('k' in line) this.#set(line.k[0], line.k[1]);
    else if ('u' in line) for (const [path, record] of line.u) this.#set(path, record);
    else if ('g' in line) this.#pending = { entries: line.g, rollForward: line.f === 1 };
    else if ('c' in line || 'a' in line) {
      const pending = this.#pending;
      this.#pending = undefined;
      if (!pending || 'a' in line) return;
      // Drops first: a move's old paths, then its new ones.
      for (const [path, record] of pending.entries) if (record === null) this.#set(path, null);
      for (const [path, record] of pending.entries) if (record !== null) this.#set(path, record);
    }
  }

  #append(line: Line): void {
    if (this.#fd === -1) throw new Error('records appended before they were adopted');
    const data = Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
    pwriteNow(this.#fd, data, this.#offset);
    this.#offset += data.length;
    this.#apply(line);
  }

  /** A change's records, pending until {@link end}. Not synced, as the history's group is not. */
  begin(entries: readonly RecordEntry[], rollForward = false): void {
    this.#append(rollForward ? { g: entries, f: 1 } : { g: entries });
  }

  end(happened: boolean): void {
    if (!this.#pending) return;
    this.#append(happened ? { c: 1 } : { a: 1 });
  }

  /** Records set (or dropped) at once: refreshed from their files. */
  put(entries: readonly (readonly [string, StoredRecord | null])[]): void {
    if (entries.length > 0) this.#append({ u: entries });
  }

  /** Whether the file holds enough dead lines to be worth a rewrite. */
  get wasteful(): boolean {
    return this.#lines > REWRITE_LINES && this.#lines > 4 * (this.#byPath.size + 1);
  }

  /**
   * Writes the file whole, adopted, with `extra` records set (an adoption): through `temp`,
   * fsynced and renamed over it, so a crash leaves the old file or the new. Only with nothing pending.
   */
  async rewrite(temp: Temp, extra: readonly (readonly [string, StoredRecord | null])[] = []): Promise<void> {
    for (const [path, record] of extra) this.#set(path, record);
    const parts = ['{"h":1}\n'];
    for (const [path, record] of this.#byPath) parts.push(`${JSON.stringify({ k: [path, record] })}\n`);
    try {
      await temp.write(Buffer.from(parts.join(''), 'utf8'));
      await temp.commit(this.path);
    } catch (error) {
      await temp.discard();
      this.#reset();
      throw error;
    }
    this.#reset();
    await this.refresh();
  }

  close(): void {
    if (this.#fd !== -1) closeNow(this.#fd);
    this.#fd = -1;
  }
}
