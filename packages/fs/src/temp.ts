// Files being written and folders being removed, in `.memdir/tmp`: each named for the process that
// made it, so that what a crash leaves behind is found and removed by the next process that writes,
// judged by liveness (see liveness.ts), never by pid.
import { randomBytes } from 'node:crypto';
import { fstatSync } from 'node:fs';
import type { Dir } from './dir.js';
import { BINDING, KERNEL, type Liveness, type Owner, socketToken } from './liveness.js';
import { type FileStat, fileStatOf } from './records/stat.js';
import {
  closeNow,
  FILE_MODE,
  fsync,
  lstat,
  O_CREAT,
  O_EXCL,
  O_NOFOLLOW,
  O_WRONLY,
  open,
  readdir,
  rename,
  unlink,
  writeAll,
} from './sys.js';
import { removeTree } from './tree.js';

/** A socket still being bound after this long was left by a process that died doing it. */
const BINDING_STALE_MS = 10_000;

let tempCounter = 0;

/** A name in `tmp` that says who made it: `{kernel}-{token}-{n}-{random}`. */
export function newTempName(owner: Owner): string {
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
  /** The written file's stat (inode, size, mtime), once written: what its record holds. */
  stat: FileStat | undefined;

  constructor(
    readonly tmp: Dir,
    readonly name: string,
  ) {
    // Opened at once, so the open overlaps whatever the caller does next (reading the old content).
    // O_EXCL: never an existing name, and never through a link.
    this.#opened = open(tmp.at(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE);
    this.#opened.catch(() => {});
  }

  /** Writes `data` and makes it durable. */
  write(data: Buffer): Promise<void> {
    this.#writing = this.#write(data);
    return this.#writing;
  }

  async #write(data: Buffer): Promise<void> {
    const fd = await this.#opened;
    try {
      await writeAll(fd, data);
      await fsync(fd);
      this.stat = fileStatOf(fstatSync(fd, { bigint: true }));
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
 * mid-write or mid-delete) and their liveness sockets in `.memdir`. Owners are judged by liveness,
 * never by pid; what another kernel left, or names of no known form, only once older than
 * `staleMs`. Resolves to the number of leftovers removed.
 */
export async function sweepLeftovers(
  tmp: Dir,
  memdir: Dir,
  liveness: Liveness,
  staleMs: number,
): Promise<number> {
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
  let removed = 0;
  await Promise.all([
    ...temps.map(async (entry) => {
      if (await abandoned(tempOwner(entry.name), tmp.at(entry.name))) {
        await removeTree(tmp, entry.name).then(
          () => removed++,
          () => {},
        );
      }
    }),
    ...own.map(async (entry) => {
      // A socket left half-made (its process died between listening and renaming it): by age.
      if (entry.name.startsWith('live-') && entry.name.endsWith(BINDING)) {
        const old = await lstat(memdir.at(entry.name)).then(
          (info) => Date.now() - info.mtimeMs > BINDING_STALE_MS,
          () => false,
        );
        if (old)
          await unlink(memdir.at(entry.name)).then(
            () => removed++,
            () => {},
          );
        return;
      }
      const token = socketToken(entry.name);
      if (!token || token === liveness.owner.token) return;
      if (await abandoned({ kernel: KERNEL, token }, memdir.at(entry.name))) {
        await unlink(memdir.at(entry.name)).then(
          () => removed++,
          () => {},
        );
      }
    }),
  ]);
  return removed;
}
