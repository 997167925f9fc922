// One store folder (`{root}`, or `{root}/namespaces/{name}` and deeper) as this process uses it:
// shared by every driver on that folder in this process, it holds the current generation of open
// handles (generation.ts), opens a new one when the folder is removed or replaced, and closes it
// once nothing uses it.
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { DriverCallStats } from '@memdir/core';
import type { DriverLog } from '@memdir/core/driver';
import { Dir, openTrusted } from './dir.js';
import { misconfiguredRoot } from './errors.js';
import type { FolderBase } from './folder-base.js';
import { Generation, openOwnFolder } from './generation.js';
import { errno, FOLDER_MODE, O_DIRECTORY, O_NOFOLLOW, O_RDONLY } from './sys.js';

/**
 * How often a folder checks that the names it holds open still lead to the same folders (someone
 * moved `memories` away and put another in its place). A removed folder is noticed at once, by the
 * command that finds it missing.
 */
const RECHECK_MS = 1_000;

/** How a command uses the folder. */
export interface Access {
  /** A change: the folder is made ready for writing (folders, lock, totals, sweep) first. */
  readonly write: boolean;
  /** What the sweep of leftovers takes as abandoned on another kernel (`staleLockMs`). */
  readonly staleMs: number;
  readonly log: DriverLog;
  /** The call's telemetry counters: a command that runs again on a reopened folder is a retry. */
  readonly stats?: DriverCallStats | undefined;
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

export class Folder implements FolderBase {
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

  /**
   * Opens the base folder (`{root}` and the segments below it); with `create`, makes what is
   * missing. A root that cannot be opened at all (a file on its path, no permission) is the
   * application's configuration to fix: `misconfigured`.
   */
  async openBase(create: boolean): Promise<Dir | null> {
    let base: Dir;
    try {
      base = await openTrusted(this.options.root);
    } catch (error) {
      if (errno(error) !== 'ENOENT') throw misconfiguredRoot(error);
      if (!create) return null;
      await fs.promises.mkdir(this.options.root, { recursive: true, mode: FOLDER_MODE }).catch((made) => {
        throw errno(made) === 'ENOTDIR' ? misconfiguredRoot(made) : made;
      });
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
  async #generation(access: Access): Promise<Generation> {
    for (;;) {
      this.#current ??= this.#open();
      const current = this.#current;
      current.catch(() => {
        if (this.#current === current) this.#current = undefined;
      });
      const generation = await current;
      if (Date.now() - generation.checkedAt > RECHECK_MS) {
        generation.checkedAt = Date.now();
        if (!(await generation.stillCurrent())) this.#retire(generation, access);
      }
      if (generation.retired) continue;
      generation.retain();
      try {
        if (access.write) await generation.prepareWriting(access.staleMs, access.log);
      } catch (error) {
        generation.release();
        throw error;
      }
      return generation;
    }
  }

  #retire(generation: Generation, access: Access): void {
    if (!generation.retired)
      access.log.info('reopening the memory folder: a different one stands in its place');
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
    access: Access,
    task: (generation: Generation) => Promise<T>,
    looksEmpty?: (result: T) => boolean,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0 && access.stats) access.stats.retries++;
      const generation = await this.#generation(access);
      try {
        const result = await task(generation);
        if (attempt === 0 && looksEmpty?.(result) && (await generation.isStale())) {
          this.#retire(generation, access);
          continue;
        }
        return result;
      } catch (error) {
        if (attempt === 0 && errno(error) === 'ENOENT' && (await generation.isStale().catch(() => false))) {
          this.#retire(generation, access);
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
 * else; a failure is left for the first command to report. Returns how many of the folders it made
 * (the last ones of the chain: `namespaces`, the namespace's, `memories`).
 */
export function createFoldersNow(root: string, segments: readonly string[]): number {
  const opened: number[] = [];
  let made = 0;
  try {
    fs.mkdirSync(root, { recursive: true, mode: FOLDER_MODE });
    let fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
    opened.push(fd);
    let dir = new Dir(fd, root);
    for (const name of [...segments, 'memories']) {
      try {
        fs.mkdirSync(dir.at(name), FOLDER_MODE);
        made += 1;
      } catch (error) {
        if (errno(error) !== 'EEXIST') return made;
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
  return made;
}

/**
 * Removes the last `made` folders of a namespace's chain `createFoldersNow` made, each only while
 * empty, and only when the namespace's folder holds nothing but its empty `memories` (a namespace's
 * store closed without writing leaves no folder named after the namespace, as after a drop).
 * Through handles, never following a link; anything in the way ends it quietly.
 */
export function removeEmptyFoldersNow(root: string, segments: readonly string[], made: number): void {
  const names = [...segments, 'memories'];
  const opened: number[] = [];
  try {
    let fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
    opened.push(fd);
    // holders[i] is the folder holding names[i].
    const holders = [new Dir(fd, root)];
    for (const name of names.slice(0, -1)) {
      fd = fs.openSync(holders.at(-1)!.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      opened.push(fd);
      holders.push(holders.at(-1)!.child(fd, name));
    }
    // A namespace folder holding more than its `memories` (its `.memdir`: it was written) stays whole.
    const last = names.length - 2;
    if (fs.readdirSync(holders[last]!.at(names[last]!)).some((name) => name !== 'memories')) return;
    for (let index = names.length - 1; index >= names.length - made; index--) {
      fs.rmdirSync(holders[index]!.at(names[index]!));
    }
  } catch {
    // Not empty (written meanwhile, by this process or another), gone, or replaced: left as it is.
  } finally {
    for (const fd of opened) fs.closeSync(fd);
  }
}
