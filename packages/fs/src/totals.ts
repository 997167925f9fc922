// A namespace's totals: the UTF-8 bytes and the number of files beneath `memories` (hidden files
// included, links and anything that is not a regular file left out), kept in `.memdir/totals` so
// that a quota check reads one small record under the lock instead of walking the tree.
//
// Crash safety. The record is one write of a fixed 192 bytes at offset 0: within one page, so no
// process crash tears it (a SIGKILL lands between system calls, and the kernel finishes a write to
// one page before it delivers one). A change that alters the totals first marks the record
// `changing` (before it writes its content), then makes its change visible (a rename or an
// unlink), then writes the new totals.
// A process that dies in between leaves `changing`, and the next change (any process) recomputes
// the totals by walking the tree, under the lock, before it judges anything. The record also names
// the kernel (its boot) that wrote it: the record is not fsynced, so after a power failure it may
// lag the files, and a record from another boot is recomputed too; so is one counted for another
// `memories` folder (it names the folder's inode and birth time: the folder was removed, replaced or
// restored), and
// a missing or unreadable one.
//
// What the totals cannot see: files that another program adds, changes or removes beneath
// `memories` while the record says `clean`. They count from the next recompute (the README says how
// to force one).

import { futimesSync, openSync } from 'node:fs';
import type { DriverLog } from '@memdir/core/driver';
import type { Dir } from './dir.js';
import { listFiles } from './list-files.js';
import { KERNEL } from './liveness.js';
import {
  closeNow,
  FILE_MODE,
  lstatNow,
  O_CREAT,
  O_NOFOLLOW,
  O_RDWR,
  O_WRONLY,
  open,
  preadNow,
  pwriteNow,
} from './sys.js';

/** What a namespace holds. */
export interface Totals {
  /** UTF-8 bytes of all its files. */
  readonly bytes: number;
  readonly files: number;
}

/** What a change does to the totals: bytes added (negative: removed), files added (or removed). */
export interface TotalsChange {
  readonly bytes: number;
  readonly files: number;
}

const RECORD_BYTES = 192;
const TAG = 'memdir-totals 1';
const RECORD = /^memdir-totals 1 (clean|changing) ([0-9a-f]{16}) (\d{1,15}) (\d{1,15}) (\d+:\d+:\d+) *\n$/;

/** Why a record was not trusted, for the log. */
type Distrust = 'no-record' | 'unreadable' | 'interrupted' | 'other-boot' | 'other-folder';

function encode(state: 'clean' | 'changing', totals: Totals, folder: string): Buffer {
  const text = `${TAG} ${state} ${KERNEL} ${totals.bytes} ${totals.files} ${folder}`;
  return Buffer.from(`${text.padEnd(RECORD_BYTES - 1)}\n`, 'latin1');
}

/** The totals record of one store folder (one namespace), open for the generation's life. */
export class TotalsFile {
  readonly #fd: number;
  readonly #buffer = Buffer.alloc(RECORD_BYTES);
  /** The `memories` folder counted (`dev:ino:birth`): totals of another folder are not this one's. */
  readonly #folder: string;

  readonly #memdir: Dir;
  /** `.memdir/changed`, whose mtime is the time of the last change (made by the first one). */
  #changedFd: number | undefined;

  private constructor(fd: number, folder: string, memdir: Dir) {
    this.#fd = fd;
    this.#folder = folder;
    this.#memdir = memdir;
  }

  /**
   * Marks the time of a change (`usage`'s `lastChangeAt`): the mtime of `.memdir/changed`, made by
   * the first change, so a namespace nobody changed has none. Best effort: a change stays done.
   */
  markChanged(): void {
    try {
      this.#changedFd ??= openSync(this.#memdir.at('changed'), O_WRONLY | O_CREAT | O_NOFOLLOW, FILE_MODE);
      const now = Date.now() / 1000;
      futimesSync(this.#changedFd, now, now);
    } catch {
      // The next change marks it again.
    }
  }

  /** The time of the last change (ms), or null when nothing was ever changed here. */
  lastChangeAt(): number | null {
    try {
      // Set from a whole millisecond: rounding undoes the float seconds' error.
      return Math.round(lstatNow(this.#memdir.at('changed')).mtimeMs);
    } catch {
      return null;
    }
  }

  /**
   * Opens (or makes) `.memdir/totals`, never through a link, for the `memories` folder whose
   * identity (`dev:ino:birth`) is `folder`: a record counted for another one (the folder was removed,
   * replaced, restored from a backup) is recomputed.
   */
  static async open(memdir: Dir, folder: string): Promise<TotalsFile> {
    const fd = await open(memdir.at('totals'), O_RDWR | O_CREAT | O_NOFOLLOW, FILE_MODE);
    return new TotalsFile(fd, folder, memdir);
  }

  /**
   * The totals now, under the lock: the record when it can be trusted, else a walk of `memories`
   * (whose result is written back at once, so the walk is not repeated).
   */
  async current(memories: Dir, log: DriverLog): Promise<Totals> {
    const read = this.#read();
    if (typeof read !== 'string') return read;
    const started = Date.now();
    const files = await listFiles(memories, '', false);
    let bytes = 0;
    for (const file of files) bytes += file.size;
    const totals = { bytes, files: files.length };
    pwriteNow(this.#fd, encode('clean', totals, this.#folder), 0);
    log.info('totals recounted', {
      cause: read,
      fileCount: totals.files,
      byteCount: totals.bytes,
      tookMs: Date.now() - started,
    });
    return totals;
  }

  /**
   * Runs `work`, a change whose last step makes it visible (a rename or an unlink: it happens whole
   * or not at all), counted: the record says `changing` while it runs and holds the new totals
   * once it is done. When `work` fails nothing visible changed, and the totals before are written
   * back. `before` is what {@link current} gave under the same lock.
   */
  async counted(
    before: Totals,
    change: TotalsChange,
    work: () => Promise<void>,
    log: DriverLog,
  ): Promise<void> {
    if (change.bytes === 0 && change.files === 0) {
      await work();
      this.markChanged();
      return;
    }
    const after = { bytes: before.bytes + change.bytes, files: before.files + change.files };
    // Marked first; when the mark cannot be written the change must not happen: nobody could tell
    // that it had. A changing record's numbers mean nothing (they are the intended result, so a
    // reader that ignored the mark would be wrong whichever side of the rename the writer died).
    pwriteNow(this.#fd, encode('changing', after, this.#folder), 0);
    try {
      await work();
    } catch (error) {
      this.#end(before, log);
      throw error;
    }
    this.#end(after, log);
    this.markChanged();
  }

  /**
   * The totals after a change. A failure to write them only leaves the record `changing` (the
   * next change recomputes): the change itself is done and stays reported as done. Totals that
   * would go below zero mean another program removed files memdir counted: they are left for a
   * recompute too.
   */
  #end(totals: Totals, log: DriverLog): void {
    if (totals.bytes < 0 || totals.files < 0) return;
    try {
      pwriteNow(this.#fd, encode('clean', totals, this.#folder), 0);
    } catch (error) {
      log.warn('totals could not be written; the next change recounts them', {
        code: (error as NodeJS.ErrnoException).code,
      });
    }
  }

  close(): void {
    if (this.#changedFd !== undefined) closeNow(this.#changedFd);
    closeNow(this.#fd);
  }

  #read(): Totals | Distrust {
    const length = preadNow(this.#fd, this.#buffer, 0);
    if (length === 0) return 'no-record';
    const match = RECORD.exec(this.#buffer.toString('latin1', 0, length));
    if (!match) return 'unreadable';
    if (match[2] !== KERNEL) return 'other-boot';
    if (match[5] !== this.#folder) return 'other-folder';
    if (match[1] === 'changing') return 'interrupted';
    return { bytes: Number(match[3]), files: Number(match[4]) };
  }
}
