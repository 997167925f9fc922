// Where `import` keeps an archive's files while it checks them: a private folder on local disk,
// so that memory stays bounded whatever the archive holds, and the store is written only once every
// header, file and the manifest have been checked ("a refused archive changes nothing").
//
// Files are kept under the SHA-256 of their memory path (never under the path itself, whose
// characters, case and length would be the local filesystem's to judge), with a marker for every
// folder a file lies in, so that a path twice, or a path that is a file and a folder, is found on
// disk rather than in memory. The paths themselves are appended to one index file.
import { createHash } from 'node:crypto';
import { createReadStream, rmSync } from 'node:fs';
import {
  appendFile,
  type FileHandle,
  mkdir,
  mkdtemp,
  open,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DriverEntry, DriverPath, MemoryDriver } from '@memdir/core';
import { ArchiveError } from './archive-error.js';
import { StagedHistory } from './archive-history-stage.js';

const ROOT = '/memories';

function keyOf(path: string): string {
  return createHash('sha256').update(path).digest('hex');
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** The folders above `path` (a memory path), nearest first, without `/memories` itself. */
function ancestorsOf(path: string): string[] {
  const above: string[] = [];
  for (let slash = path.lastIndexOf('/'); slash > ROOT.length; slash = path.lastIndexOf('/', slash - 1)) {
    above.push(path.slice(0, slash));
  }
  return above;
}

/** A file being staged: its content goes in piece by piece, then `done()` (or `abandon()`). */
export interface StagedFile {
  write(chunk: Uint8Array): Promise<void>;
  done(): Promise<void>;
  abandon(): Promise<void>;
}

/** The staging folder of one import. Remove it with {@link Staging.discard} in every case. */
export class Staging {
  readonly #root: string;
  #files = 0;
  #bytes = 0;
  #verified = 0;
  #index = '';
  /** Folders whose marker is on disk already (a bounded cache: skips the syscalls for siblings). */
  readonly #folders = new Set<string>();

  /** Removes the folder if the process exits first (a second Ctrl-C, `process.exit`). */
  readonly #atExit = () => rmSync(this.#root, { recursive: true, force: true });

  /** The archive's history entries, staged beside the files. */
  readonly history: StagedHistory;

  private constructor(root: string) {
    this.#root = root;
    this.history = new StagedHistory(root);
    process.once('exit', this.#atExit);
  }

  /** Makes a staging folder (mode 0700) in `parent`. */
  static async create(parent: string = tmpdir()): Promise<Staging> {
    const root = await mkdtemp(join(parent, 'memdir-import-'));
    await Promise.all(
      ['files', 'folders', 'checked'].map((name) => mkdir(join(root, name), { mode: 0o700 })),
    );
    return new Staging(root);
  }

  /** Where the manifest's body is kept while the archive is read. */
  get manifestFile(): string {
    return join(this.#root, 'manifest.json');
  }

  /** Files staged, and their bytes. */
  get files(): number {
    return this.#files;
  }

  get bytes(): number {
    return this.#bytes;
  }

  #file(key: string, area: 'files' | 'checked' = 'files'): string {
    return join(this.#root, area, key);
  }

  async #exists(path: string): Promise<boolean> {
    try {
      await stat(path);
      return true;
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return false;
      throw error;
    }
  }

  /** Marks the folders above `path` (and `path` itself, for a folder entry) as folders. */
  async #markFolders(path: string, folders: readonly string[], self: boolean): Promise<void> {
    for (const folder of folders) {
      if (this.#folders.has(folder)) continue;
      const key = keyOf(folder);
      if ((await this.#exists(this.#file(key))) || (await this.#exists(this.#file(key, 'checked')))) {
        throw new ArchiveError(`${folder} is a file in the archive, and also a folder of ${path}`);
      }
      // The marker names the first path found inside the folder (nothing for a folder entry).
      try {
        await writeFile(join(this.#root, 'folders', key), self && folder === path ? '\n' : `${path}\n`, {
          flag: 'wx',
        });
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      if (this.#folders.size >= 4096) this.#folders.clear();
      this.#folders.add(folder);
    }
  }

  /** Records a folder entry of the archive. @throws ArchiveError when a file stands there. */
  async addFolder(path: string): Promise<void> {
    if (path === ROOT) return;
    if (await this.#exists(this.#file(keyOf(path)))) {
      throw new ArchiveError(`${path} is both a file and a directory in the archive`);
    }
    await this.#markFolders(path, [path, ...ancestorsOf(path)], true);
  }

  /**
   * Starts staging the file at `path` (a normalised memory path).
   * @throws ArchiveError for a path that appears twice, or is a file and a folder in the archive.
   */
  async addFile(path: string): Promise<StagedFile> {
    const key = keyOf(path);
    let marker: string | undefined;
    try {
      marker = await readFile(join(this.#root, 'folders', key), 'utf8');
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
    }
    if (marker !== undefined) {
      const inside = marker.split('\n')[0];
      throw new ArchiveError(
        inside === ''
          ? `${path} is both a file and a directory in the archive`
          : `${path} is a file in the archive, and also a folder of ${inside}`,
      );
    }
    await this.#markFolders(path, ancestorsOf(path), false);
    let handle: FileHandle;
    try {
      handle = await open(this.#file(key), 'wx', 0o600);
    } catch (error) {
      if (codeOf(error) === 'EEXIST') throw new ArchiveError(`${path} appears twice in the archive`);
      throw error;
    }
    this.#files++;
    this.#index += `${path}\n`;
    if (this.#index.length >= 64 * 1024) await this.#flushIndex();
    return {
      write: async (chunk) => {
        this.#bytes += chunk.length;
        await handle.write(chunk);
      },
      done: () => handle.close(),
      abandon: () => handle.close(),
    };
  }

  async #flushIndex(): Promise<void> {
    if (this.#index === '') return;
    await appendFile(join(this.#root, 'index'), this.#index);
    this.#index = '';
  }

  /**
   * Checks one manifest entry against the staged files: the file is there with this size and
   * SHA-256. Each file is vouched for once (it moves to the checked area).
   * @throws ArchiveError when it is missing, listed twice, or different.
   */
  async verify(entry: { path: string; size: number; sha256: string }): Promise<void> {
    const key = keyOf(entry.path);
    const staged = this.#file(key);
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of createReadStream(staged)) {
        size += (chunk as Buffer).length;
        hash.update(chunk as Buffer);
      }
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
      if (await this.#exists(this.#file(key, 'checked'))) {
        throw new ArchiveError(`${entry.path} is listed twice in the manifest`);
      }
      throw new ArchiveError(`${entry.path} is in the manifest but missing from the archive`);
    }
    if (size !== entry.size || hash.digest('hex') !== entry.sha256) {
      throw new ArchiveError(
        `${entry.path} does not match its manifest (size or SHA-256): the archive is damaged`,
      );
    }
    await rename(staged, this.#file(key, 'checked'));
    this.#verified++;
  }

  /** After the last manifest entry: every staged file must have been vouched for. */
  async verifyAll(): Promise<void> {
    await this.#flushIndex();
    if (this.#verified === this.#files) return;
    for await (const path of this.#paths()) {
      if (await this.#exists(this.#file(keyOf(path)))) {
        throw new ArchiveError(`${path} is in the archive but not in its manifest`);
      }
    }
    throw new ArchiveError('the archive and its manifest do not list the same files');
  }

  async *#paths(): AsyncGenerator<string> {
    await this.#flushIndex();
    if (this.#files === 0) return;
    const lines = createInterface({
      input: createReadStream(join(this.#root, 'index'), 'utf8'),
      crlfDelay: 0,
    });
    for await (const line of lines) if (line !== '') yield line;
  }

  /**
   * The checked files as a read-only driver, for `copyStore` to write into the target. Lists from
   * the index (paths and sizes only), reads each file from disk when it is copied. With
   * `withHistory`, the driver has the checked history too (`capabilities.history`).
   */
  driver(withHistory = false): MemoryDriver {
    const files = this.#filesDriver();
    return withHistory ? this.history.driverWith(files) : files;
  }

  #filesDriver(): MemoryDriver {
    const read = async (path: DriverPath) => {
      try {
        const content = await readFile(this.#file(keyOf(`${ROOT}/${path}`), 'checked'), 'utf8');
        return { kind: 'file' as const, content, version: 'staged' };
      } catch (error) {
        if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENAMETOOLONG') return null;
        throw error;
      }
    };
    const staging = this;
    const readOnly = async (): Promise<never> => {
      throw new Error('the files of an archive being imported cannot be changed');
    };
    const driver: MemoryDriver = {
      capabilities: { atomicRename: true },
      namespace: () => {
        throw new Error('the files of an archive being imported have no namespaces');
      },
      read,
      async *list(): AsyncIterable<DriverEntry> {
        for await (const path of staging.#paths()) {
          const size = (await stat(staging.#file(keyOf(path), 'checked'))).size;
          yield { path: path.slice(ROOT.length + 1) as DriverPath, size };
        }
      },
      write: readOnly,
      remove: readOnly,
      move: readOnly,
      close: async () => {},
    };
    return driver;
  }

  /** Removes the staging folder and everything in it. */
  async discard(): Promise<void> {
    process.off('exit', this.#atExit);
    await rm(this.#root, { recursive: true, force: true });
  }
}
