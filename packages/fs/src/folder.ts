// One store folder (`{root}`, or `{root}/namespaces/{name}` and deeper) as this process holds it:
// open handles of `memories`, `.memdir` and `.memdir/tmp`, shared by every driver on that folder in
// this process, recreated when the folder is removed or replaced, and closed once nothing uses them.
import { randomBytes, randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { refuseLink } from '@memdir/core/driver';
import { Dir, openFolder, openTrusted } from './dir.js';
import { folderInTheWay } from './errors.js';
import { KERNEL, Liveness, type Owner, socketToken } from './liveness.js';
import { Lock } from './lock.js';
import {
  closeNow,
  errno,
  fstat,
  fsync,
  lstat,
  lstatNow,
  lutimes,
  mkdir,
  O_CREAT,
  O_DIRECTORY,
  O_EXCL,
  O_NOFOLLOW,
  O_RDONLY,
  O_WRONLY,
  open,
  readdir,
  rename,
  unlink,
  writeAll,
} from './sys.js';
import { removeTree } from './tree.js';

export const FILE_MODE = 0o600;
export const FOLDER_MODE = 0o700;

/**
 * How often a folder checks that the names it holds open still lead to the same folders (someone
 * moved `memories` away and put another in its place). A removed folder is noticed at once, by the
 * command that finds it missing.
 */
const RECHECK_MS = 1_000;

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
async function openOwnFolder(
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

let tempCounter = 0;

/** The handles of one incarnation of the folder. Replaced (retired) when the folder is removed or replaced. */
export class Generation {
  /** `{base}/memories`; null until a write creates it (reads of a missing folder see an empty store). */
  memories: Dir | null = null;
  /** `{base}/.memdir`: the lock, the seq marker and the liveness sockets. */
  memdir: Dir | null = null;
  /** `{base}/.memdir/tmp`: files being written, and trash being removed. */
  tmp: Dir | null = null;
  lock: Lock | undefined;
  liveness: Liveness | undefined;
  /** Identities of `memories` and `.memdir` when opened, for the recheck. */
  ids = { memories: 'none', memdir: 'none' };
  checkedAt = Date.now();
  #users = 0;
  #retired = false;
  #writable: Promise<void> | undefined;
  #disposed: Promise<void> | undefined;
  #whenDisposed: (() => void) | undefined;

  constructor(
    readonly folder: Folder,
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

  /** Makes and opens what writes need (once): the folders, the seq marker, the lock, the sweep. */
  prepareWriting(staleMs: number): Promise<void> {
    this.#writable ??= this.#prepareWriting(staleMs);
    this.#writable.catch(() => {
      this.#writable = undefined;
    });
    return this.#writable;
  }

  async #prepareWriting(staleMs: number): Promise<void> {
    this.base ??= await this.folder.openBase(true);
    const base = this.base!;
    this.memories ??= await openOwnFolder(base, 'memories', true, true);
    this.memdir ??= await openOwnFolder(base, '.memdir', true, false);
    this.tmp ??= await openOwnFolder(this.memdir!, 'tmp', true, false);
    const seq = await open(this.memdir!.at('seq'), O_WRONLY | O_CREAT | O_NOFOLLOW, FILE_MODE);
    closeNow(seq);
    this.ids = {
      memories: identity(await fstat(this.memories!.fd)),
      memdir: identity(await fstat(this.memdir!.fd)),
    };
    this.liveness ??= await Liveness.start(this.memdir!);
    this.lock ??= new Lock(this.memdir!, this.liveness);
    await sweep(this.tmp!, this.memdir!, this.liveness, staleMs);
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
    return new Temp(this.tmp!, tempName(this.liveness!.owner));
  }

  /** A name in `tmp` for a folder being removed. */
  trashName(): string {
    return tempName(this.liveness!.owner);
  }
}

function tempName(owner: Owner): string {
  tempCounter += 1;
  return `${owner.kernel}-${owner.token}-${tempCounter}-${randomBytes(4).toString('hex')}`;
}

/** The owner a temporary name was made by, if it is one of ours. */
function tempOwner(name: string): Owner | undefined {
  const [kernel, token] = name.split('-');
  if (!kernel || !token || !/^[0-9a-f]{16}$/.test(kernel)) return undefined;
  // A pid token (`p{pid}-{hex}`) holds a dash of its own.
  if (token.startsWith('p')) {
    const rest = name.split('-')[2];
    return rest === undefined ? undefined : { kernel, token: `${token}-${rest}` };
  }
  return { kernel, token };
}

/** A file written in `tmp`, fsynced, then renamed into place: readers see the old or the new content, never a mix. */
export class Temp {
  readonly #opened: Promise<number>;
  #writing: Promise<void> | undefined;
  #closed = false;
  #written = false;

  constructor(
    readonly tmp: Dir,
    readonly name: string,
  ) {
    // Opened at once, so the open overlaps whatever the caller does next (reading the old content).
    // O_EXCL: never an existing name, and never through a link.
    this.#opened = open(tmp.at(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE);
    this.#opened.catch(() => {});
  }

  /** Writes `content` and makes it durable. */
  write(content: string): Promise<void> {
    this.#writing = this.#write(content);
    return this.#writing;
  }

  async #write(content: string): Promise<void> {
    const fd = await this.#opened;
    try {
      await writeAll(fd, Buffer.from(content, 'utf8'));
      await fsync(fd);
      this.#written = true;
    } finally {
      this.#close(fd);
    }
  }

  /** Moves the written file to `target` (a path through a folder handle). */
  async commit(target: string): Promise<void> {
    if (!this.#written) throw new Error('temporary file committed before it was written');
    await rename(this.tmp.at(this.name), target);
  }

  /** Removes the file (after a failure or a refusal). */
  async discard(): Promise<void> {
    const fd = await this.#opened.catch(() => undefined);
    if (fd === undefined) return;
    // Never close the descriptor under a write still running on it: its number may be reused.
    await this.#writing?.catch(() => {});
    this.#close(fd);
    await unlink(this.tmp.at(this.name)).catch(() => {});
  }

  // Exactly once: a descriptor closed twice may by then be someone else's.
  #close(fd: number): void {
    if (this.#closed) return;
    this.#closed = true;
    closeNow(fd);
  }
}

/**
 * Removes what processes that are gone left behind: temporary files and trash in `tmp` (a crash
 * mid-write or mid-delete) and their liveness sockets in `.memdir`. Owners are judged by liveness
 * (see liveness.ts), never by pid; what another kernel left, or names of no known form, only once
 * older than `staleMs`.
 */
async function sweep(tmp: Dir, memdir: Dir, liveness: Liveness, staleMs: number): Promise<void> {
  // Per owner: gone (true), alive (false), or null when only age can tell (another kernel).
  const verdicts = new Map<string, Promise<boolean | null>>();
  const abandoned = async (owner: Owner | undefined, path: string): Promise<boolean> => {
    if (owner) {
      const key = `${owner.kernel}/${owner.token}`;
      let verdict = verdicts.get(key);
      if (!verdict) {
        verdict = liveness.check(owner).then((answer) => (answer === 'unknown' ? null : answer === 'gone'));
        verdicts.set(key, verdict);
      }
      const known = await verdict;
      if (known !== null) return known;
    }
    return lstat(path).then(
      (info) => Date.now() - info.mtimeMs > staleMs,
      () => false,
    );
  };
  const [temps, own] = await Promise.all([
    readdir(tmp.self).catch(() => []),
    readdir(memdir.self).catch(() => []),
  ]);
  await Promise.all([
    ...temps.map(async (entry) => {
      if (await abandoned(tempOwner(entry.name), tmp.at(entry.name))) {
        await removeTree(tmp, entry.name).catch(() => {});
      }
    }),
    ...own.map(async (entry) => {
      const token = socketToken(entry.name);
      if (!token || token === liveness.owner.token) return;
      if (await abandoned({ kernel: KERNEL, token }, memdir.at(entry.name))) {
        await unlink(memdir.at(entry.name)).catch(() => {});
      }
    }),
  ]);
}

/** What the driver needs to know of a folder. */
export interface FolderOptions {
  /** The application's root: trusted, links on it are followed. */
  readonly root: string;
  /** Names below the root (`namespaces`, `n`, ...): each opened without following a link. */
  readonly segments: readonly string[];
}

const folders = new Map<string, Folder>();

/** The folder at `options` for this process, shared by every driver on it. Call {@link Folder.close} once per call. */
export function openFolderOf(options: FolderOptions): Folder {
  const key = [options.root, ...options.segments].join('\0');
  let folder = folders.get(key);
  if (!folder) {
    folder = new Folder(options, () => folders.delete(key));
    folders.set(key, folder);
  }
  folder.users++;
  return folder;
}

export class Folder {
  users = 0;
  readonly memoriesPath: string;
  readonly memdirPath: string;
  #current: Promise<Generation> | undefined;

  constructor(
    readonly options: FolderOptions,
    private readonly forget: () => void,
  ) {
    const base = join(options.root, ...options.segments);
    this.memoriesPath = join(base, 'memories');
    this.memdirPath = join(base, '.memdir');
  }

  /** Opens the base folder (`{root}` and the segments below it); with `create`, makes what is missing. */
  async openBase(create: boolean): Promise<Dir | null> {
    let base: Dir;
    try {
      base = await openTrusted(this.options.root);
    } catch (error) {
      if (errno(error) !== 'ENOENT' || !create) {
        if (errno(error) === 'ENOENT') return null;
        throw error;
      }
      await fs.promises.mkdir(this.options.root, { recursive: true, mode: FOLDER_MODE });
      base = await openTrusted(this.options.root);
    }
    for (const segment of this.options.segments) {
      let next: Dir | null;
      try {
        next = await openOwnFolder(base, segment, create, true);
      } finally {
        base.close();
      }
      if (!next) return null;
      base = next;
    }
    return base;
  }

  async #open(): Promise<Generation> {
    const generation = new Generation(this, await this.openBase(false));
    await generation.openForReading();
    return generation;
  }

  /** The current generation, retained for the caller (who releases it). */
  async #generation(write: number | false): Promise<Generation> {
    for (;;) {
      this.#current ??= this.#open();
      const current = this.#current;
      current.catch(() => {
        if (this.#current === current) this.#current = undefined;
      });
      const generation = await current;
      if (Date.now() - generation.checkedAt > RECHECK_MS) {
        generation.checkedAt = Date.now();
        if (!(await generation.stillCurrent())) this.#retire(generation);
      }
      if (generation.retired) continue;
      generation.retain();
      try {
        if (write !== false) await generation.prepareWriting(write);
      } catch (error) {
        generation.release();
        throw error;
      }
      return generation;
    }
  }

  #retire(generation: Generation): void {
    void generation.retire();
    void this.#current?.then((current) => {
      if (current === generation) this.#current = undefined;
    });
    this.#current = undefined;
  }

  /**
   * Runs `task` on the current generation. When the task finds nothing (`looksEmpty`) or fails with
   * ENOENT and a folder it holds turns out removed, the folder is opened afresh (and, for a write,
   * recreated) and the task runs once more: a store whose folder was removed recovers.
   */
  async use<T>(
    /** false for a read; for a change, the `staleMs` its sweep of leftovers uses. */
    write: number | false,
    task: (generation: Generation) => Promise<T>,
    looksEmpty?: (result: T) => boolean,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const generation = await this.#generation(write);
      try {
        const result = await task(generation);
        if (attempt === 0 && looksEmpty?.(result) && (await generation.isStale())) {
          this.#retire(generation);
          continue;
        }
        return result;
      } catch (error) {
        if (attempt === 0 && errno(error) === 'ENOENT' && (await generation.isStale().catch(() => false))) {
          this.#retire(generation);
          continue;
        }
        throw error;
      } finally {
        generation.release();
      }
    }
  }

  /** Drops one user; the last one closes the handles (after the commands still running). */
  async close(): Promise<void> {
    if (--this.users > 0) return;
    this.forget();
    const current = this.#current;
    this.#current = undefined;
    const generation = await current?.catch(() => undefined);
    await generation?.retire();
  }
}

/**
 * Makes `{root}/memories` (and the namespace folders above it) when a store opens, so a person, or
 * another tool, finds the folder before the first write. Synchronous, through handles as everywhere
 * else; a failure is left for the first command to report.
 */
export function createFoldersNow(root: string, segments: readonly string[]): void {
  const opened: number[] = [];
  try {
    fs.mkdirSync(root, { recursive: true, mode: FOLDER_MODE });
    let fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
    opened.push(fd);
    let dir = new Dir(fd, root);
    for (const name of [...segments, 'memories']) {
      try {
        fs.mkdirSync(dir.at(name), FOLDER_MODE);
      } catch (error) {
        if (errno(error) !== 'EEXIST') return;
      }
      fd = fs.openSync(dir.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      opened.push(fd);
      dir = dir.child(fd, name);
    }
  } catch {
    // Read-only, a file in the way, a link: the first command says so in its own words.
  } finally {
    for (const fd of opened) fs.closeSync(fd);
  }
}
