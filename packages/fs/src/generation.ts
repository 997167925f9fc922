// One incarnation of a store folder as this process holds it open: handles of the base folder,
// `memories`, `.memdir` and `.memdir/tmp`, with the lock, the liveness socket, the listing seq and
// the totals that live in `.memdir`. Retired (and a new one opened) when the folder is removed or
// replaced; closed once the commands still using it are done.
import { randomInt } from 'node:crypto';
import type * as fs from 'node:fs';
import { type DriverLog, refuseLink } from '@memdir/core/driver';
import { type Dir, openFolder } from './dir.js';
import { folderInTheWay } from './errors.js';
import type { FolderBase } from './folder-base.js';
import { HistoryLog } from './history/log.js';
import { Liveness } from './liveness.js';
import { Lock } from './lock.js';
import { RecordsLog } from './records/log.js';
import {
  closeNow,
  errno,
  FILE_MODE,
  FOLDER_MODE,
  fstat,
  lstat,
  lstatNow,
  lutimes,
  mkdir,
  O_CREAT,
  O_NOFOLLOW,
  O_WRONLY,
  open,
} from './sys.js';
import { newTempName, sweepLeftovers, Temp } from './temp.js';
import { TotalsFile } from './totals.js';

/** A seq value for "no change is running and none ever ran" (no seq file: a read-only folder). */
const NO_SEQ = 0;

/**
 * Whether a seq value says no move is running: an even mark, or the time the file was made (from
 * 2^30 s on: it was never marked).
 */
export function seqSettled(seq: number): boolean {
  return seq >= 2 ** 30 || seq % 2 === 0;
}

/** The identity of an open folder, to compare with what a path leads to now. */
function identity(info: fs.Stats | null): string {
  return info ? `${info.dev}:${info.ino}` : 'none';
}

async function identityAt(path: string): Promise<string> {
  try {
    return identity(await lstat(path));
  } catch (error) {
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return 'none';
    throw error;
  }
}

/**
 * Opens (and with `create`, makes) folder `name` inside `dir`, never through a link. A link or a
 * file in its place is `INVALID_PATH` when the model's paths pass through it (`memories` and the
 * namespace folders above it), else a plain failure.
 */
export async function openOwnFolder(
  dir: Dir,
  name: string,
  create: boolean,
  modelPath: boolean,
): Promise<Dir | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const opened = await openFolder(dir, name);
    if (typeof opened !== 'string') return opened;
    if (opened === 'link' && modelPath) throw refuseLink('');
    if (opened !== 'missing') throw folderInTheWay(opened);
    if (!create) return null;
    await mkdir(dir.at(name), FOLDER_MODE).catch((error) => {
      if (errno(error) !== 'EEXIST') throw error;
    });
  }
  throw folderInTheWay('missing');
}

/** The handles of one incarnation of the folder. Replaced (retired) when the folder is removed or replaced. */
export class Generation {
  /** `{base}/memories`; null until a write creates it (reads of a missing folder see an empty store). */
  memories: Dir | null = null;
  /** `{base}/.memdir`: the lock, the seq marker, the totals and the liveness sockets. */
  memdir: Dir | null = null;
  /** `{base}/.memdir/tmp`: files being written, and trash being removed. */
  tmp: Dir | null = null;
  lock: Lock | undefined;
  liveness: Liveness | undefined;
  /** The namespace's totals (`.memdir/totals`), read and changed under the lock only. */
  totals: TotalsFile | undefined;
  /** The namespace's versions (`.memdir/history`), opened by the first call that needs them. */
  #history: HistoryLog | undefined;
  /** The namespace's records (`.memdir/records`), opened by the first change. */
  #records: RecordsLog | undefined;
  /** Identities of `memories` and `.memdir` when opened, for the recheck. */
  ids = { memories: 'none', memdir: 'none' };
  checkedAt = Date.now();
  #users = 0;
  #retired = false;
  #writable: Promise<void> | undefined;
  #disposed: Promise<void> | undefined;
  #whenDisposed: (() => void) | undefined;

  constructor(
    readonly folder: FolderBase,
    /** The base folder (`{root}` or `{root}/namespaces/n`); null while it does not exist. */
    private base: Dir | null,
  ) {}

  get retired(): boolean {
    return this.#retired;
  }

  retain(): void {
    this.#users++;
  }

  release(): void {
    this.#users--;
    if (this.#retired && this.#users === 0) void this.#dispose();
  }

  /**
   * No new command uses this generation; once the running ones are done, its lock is released and
   * its handles closed. Resolves then.
   */
  retire(): Promise<void> {
    if (!this.#retired) {
      this.#retired = true;
      this.#disposed = new Promise((resolve) => {
        this.#whenDisposed = resolve;
      });
      if (this.#users === 0) void this.#dispose();
    }
    return this.#disposed!;
  }

  async #dispose(): Promise<void> {
    try {
      await this.lock?.dispose();
      // The socket file is removed through the `.memdir` handle, so close that handle afterwards.
      await this.liveness?.close();
    } finally {
      this.totals?.close();
      this.#history?.close();
      this.#records?.close();
      for (const dir of [this.memories, this.memdir, this.tmp, this.base]) dir?.close();
      this.#whenDisposed?.();
    }
  }

  /** Opens what reads need: `memories` and `.memdir`, when they exist. */
  async openForReading(): Promise<void> {
    if (!this.base) return;
    const opened = await Promise.allSettled([
      openOwnFolder(this.base, 'memories', false, true),
      openOwnFolder(this.base, '.memdir', false, false).catch(() => null),
    ]);
    const [memories, memdir] = opened.map((result) => (result.status === 'fulfilled' ? result.value : null));
    if (opened[0].status === 'rejected') {
      memdir?.close();
      throw opened[0].reason;
    }
    this.memories = memories ?? null;
    this.memdir = memdir ?? null;
    this.ids = {
      memories: memories ? identity(await fstat(memories.fd)) : 'none',
      memdir: memdir ? identity(await fstat(memdir.fd)) : 'none',
    };
  }

  /** Makes and opens what writes need (once): the folders, the seq marker, the totals, the lock, the sweep. */
  prepareWriting(staleMs: number, log: DriverLog): Promise<void> {
    this.#writable ??= this.#prepareWriting(staleMs, log);
    this.#writable.catch(() => {
      this.#writable = undefined;
    });
    return this.#writable;
  }

  async #prepareWriting(staleMs: number, log: DriverLog): Promise<void> {
    this.base ??= await this.folder.openBase(true);
    const base = this.base!;
    this.memories ??= await openOwnFolder(base, 'memories', true, true);
    this.memdir ??= await openOwnFolder(base, '.memdir', true, false);
    this.tmp ??= await openOwnFolder(this.memdir!, 'tmp', true, false);
    const seq = await open(this.memdir!.at('seq'), O_WRONLY | O_CREAT | O_NOFOLLOW, FILE_MODE);
    closeNow(seq);
    const counted = await fstat(this.memories!.fd);
    this.ids = { memories: identity(counted), memdir: identity(await fstat(this.memdir!.fd)) };
    // Which folder the totals count: its inode, and its birth time, since a folder removed and made
    // again often gets the same inode number.
    this.totals ??= await TotalsFile.open(
      this.memdir!,
      `${this.ids.memories}:${Math.round(counted.birthtimeMs * 1000)}`,
    );
    this.liveness ??= await Liveness.start(this.memdir!);
    this.lock ??= new Lock(this.memdir!, this.liveness);
    const swept = await sweepLeftovers(this.tmp!, this.memdir!, this.liveness, staleMs);
    if (swept > 0) log.info('cleared leftovers of dead processes', { count: swept });
  }

  /** The history file's log (under the lock only; after {@link prepareWriting}). */
  get history(): HistoryLog {
    this.#history ??= new HistoryLog(this.memdir!);
    return this.#history;
  }

  /** The records' log (under the lock only; after {@link prepareWriting}). */
  get records(): RecordsLog {
    this.#records ??= new RecordsLog(this.memdir!);
    return this.#records;
  }

  /** Whether a folder this generation holds was removed (a removed folder has no links left). */
  async isStale(): Promise<boolean> {
    if (this.#retired) return true;
    const infos = await Promise.all(
      [this.memories, this.memdir, this.tmp].map((dir) => (dir ? fstat(dir.fd) : null)),
    );
    if (infos.some((info) => info !== null && info.nlink === 0)) return true;
    // Reads of a store whose folder did not exist: it may exist now.
    return this.memories === null && (await identityAt(this.folder.memoriesPath)) !== 'none';
  }

  /** Whether the paths still lead to the folders this generation holds open. */
  async stillCurrent(): Promise<boolean> {
    const [memories, memdir] = await Promise.all([
      identityAt(this.folder.memoriesPath),
      identityAt(this.folder.memdirPath),
    ]);
    return memories === this.ids.memories && (this.memdir === null || memdir === this.ids.memdir);
  }

  /**
   * The listing seq: the mtime of `.memdir/seq`, which every move sets to an odd value before and
   * to an even one after. A listing that reads the same even value before and after its walk saw
   * no move. {@link NO_SEQ} when there is no marker (nothing was ever written here).
   */
  async readSeq(): Promise<number> {
    // A store opened for reading before anything was written here: `.memdir` may exist by now, and
    // another process's moves must be seen.
    if (!this.memdir && this.base) {
      const opened = await openFolder(this.base, '.memdir');
      if (typeof opened !== 'string') {
        if (this.memdir) opened.close();
        else {
          this.memdir = opened;
          this.ids = { ...this.ids, memdir: identity(await fstat(opened.fd)) };
        }
      }
    }
    if (!this.memdir) return NO_SEQ;
    try {
      // Marks are whole seconds (see #markSeq): mtimeMs holds them exactly.
      return Math.round(lstatNow(this.memdir.at('seq')).mtimeMs / 1000);
    } catch (error) {
      if (errno(error) === 'ENOENT') return NO_SEQ;
      throw error;
    }
  }

  /**
   * Marks a move as running (an odd seq, see {@link readSeq}); {@link endMove} marks it done. The
   * move itself must not start before this resolves. Under the lock only.
   */
  beginMove(): Promise<void> {
    return this.#markSeq(1);
  }

  /** Marks the move done (an even seq): after the rename, also when it failed. */
  endMove(): Promise<void> {
    return this.#markSeq(0);
  }

  #markSeq(parity: 0 | 1): Promise<void> {
    // Below 2^30 s (the year 2004), so a mark is never taken for the file's own creation time.
    const value = randomInt(1, 2 ** 29) * 2 + parity;
    return lutimes(this.memdir!.at('seq'), value, value);
  }

  /** A new temporary file in `tmp`, named for its owner so a sweep in any process can tell if it is abandoned. */
  newTemp(): Temp {
    return new Temp(this.tmp!, newTempName(this.liveness!.owner));
  }

  /** A name in `tmp` for a folder being removed. */
  trashName(): string {
    return newTempName(this.liveness!.owner);
  }
}
