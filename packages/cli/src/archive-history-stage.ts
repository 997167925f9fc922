// Where `import` keeps an archive's history while it checks it: the chunk entries on disk, in the
// import's staging folder, checked against the manifest (names, sizes, SHA-256, counts) and line by
// line (archive-history.ts), then served to core's copy as the history of a read-only driver. Only
// the ids of the versions and where each line lies are held in memory (core's copy holds the ids
// too); a chunk is read whole only while it is checked, and is at most MAX_CHUNK_BYTES.
import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  DriverPointInTime,
  DriverTreeEntry,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  MemoryDriver,
} from '@memdir/core';
import { lowerBoundId } from '@memdir/core/driver';
import { ArchiveError } from './archive-error.js';
import { chunkName, parseVersionLine } from './archive-history.js';
import type { ManifestHistory } from './archive-manifest.js';

/** A chunk as the archive gave it. */
interface StagedChunk {
  readonly name: string;
  size: number;
  sha256: string;
}

/** The history entries of an archive being imported. */
export class StagedHistory {
  readonly #folder: string;
  readonly #chunks: StagedChunk[] = [];
  /** Version ids, ascending, and where each one's line lies: chunk index, byte offset, length. */
  readonly #ids: string[] = [];
  readonly #chunkOf: number[] = [];
  readonly #offsetOf: number[] = [];
  readonly #lengthOf: number[] = [];
  /** The files the newest version leaves (from the manifest), for `treeAt`. */
  readonly #tree: DriverTreeEntry[] = [];

  constructor(stagingRoot: string) {
    this.#folder = join(stagingRoot, 'history');
  }

  /** Versions staged and checked. */
  get versions(): number {
    return this.#ids.length;
  }

  /** Chunk entries the archive held. */
  get chunks(): number {
    return this.#chunks.length;
  }

  #file(index: number): string {
    return join(this.#folder, String(index));
  }

  /**
   * Starts staging the chunk entry `name` (its name checked by the caller).
   * @throws ArchiveError for a chunk that appears twice.
   */
  async addChunk(name: string): Promise<{ write(piece: Buffer): Promise<void>; done(): Promise<void> }> {
    if (this.#chunks.some((chunk) => chunk.name === name)) {
      throw new ArchiveError(`${name} appears twice in the archive`);
    }
    await mkdir(this.#folder, { recursive: true, mode: 0o700 });
    const chunk: StagedChunk = { name, size: 0, sha256: '' };
    const handle: FileHandle = await open(this.#file(this.#chunks.length), 'wx', 0o600);
    this.#chunks.push(chunk);
    const hash: Hash = createHash('sha256');
    return {
      write: async (piece) => {
        chunk.size += piece.length;
        hash.update(piece);
        await handle.write(piece);
      },
      done: async () => {
        chunk.sha256 = hash.digest('hex');
        await handle.close();
      },
    };
  }

  /**
   * Checks the staged chunks against the manifest's history section (the same chunks, in the same
   * order, with their sizes and SHA-256), then every line of them: a version as the contract has
   * it, with ids ascending across the whole history and the counts the manifest gives.
   * @throws ArchiveError naming the first problem.
   */
  async check(history: ManifestHistory | undefined): Promise<void> {
    if (history === undefined) {
      if (this.#chunks.length > 0) {
        throw new ArchiveError(`${this.#chunks[0]!.name} is in the archive but not in its manifest`);
      }
      return;
    }
    for (const [index, listed] of history.chunks.entries()) {
      const staged = this.#chunks[index];
      if (listed.name !== chunkName(index + 1) || (staged !== undefined && staged.name !== listed.name)) {
        throw new ArchiveError(
          'the history chunks of the archive are not those its manifest lists, in order',
        );
      }
      if (staged === undefined) {
        throw new ArchiveError(`${listed.name} is in the manifest but missing from the archive`);
      }
      if (staged.size !== listed.size || staged.sha256 !== listed.sha256) {
        throw new ArchiveError(
          `${listed.name} does not match its manifest (size or SHA-256): the archive is damaged`,
        );
      }
    }
    if (this.#chunks.length > history.chunks.length) {
      throw new ArchiveError(
        `${this.#chunks[history.chunks.length]!.name} is in the archive but not in its manifest`,
      );
    }
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for (const [index, listed] of history.chunks.entries()) {
      const body = await readFile(this.#file(index));
      let text: string;
      try {
        text = decoder.decode(body);
      } catch {
        throw new ArchiveError(`${listed.name} is not UTF-8 text`);
      }
      if (!text.endsWith('\n')) throw new ArchiveError(`${listed.name} does not end with a newline`);
      let lines = 0;
      let offset = 0;
      for (let start = 0; start < text.length; ) {
        const end = text.indexOf('\n', start);
        const line = text.slice(start, end);
        const length = Buffer.byteLength(line, 'utf8');
        const version = parseVersionLine(line, `${listed.name}, line ${lines + 1}`);
        const previous = this.#ids.at(-1);
        if (previous !== undefined && version.id <= previous) {
          throw new ArchiveError(`${listed.name}, line ${lines + 1}: the version ids are not ascending`);
        }
        this.#ids.push(version.id);
        this.#chunkOf.push(index);
        this.#offsetOf.push(offset);
        this.#lengthOf.push(length);
        lines++;
        offset += length + 1;
        start = end + 1;
      }
      if (lines !== listed.versions) {
        throw new ArchiveError(
          `${listed.name} holds ${lines} versions, and its manifest says ${listed.versions}`,
        );
      }
    }
  }

  /** A file of the manifest with its file id and version: a file of `treeAt` at the newest version. */
  addTreeEntry(entry: DriverTreeEntry): void {
    this.#tree.push(entry);
  }

  /** The versions at indices `start` to `end` (excluded), read with one read per chunk they lie in. */
  async #readRange(start: number, end: number): Promise<DriverVersionWithContent[]> {
    const versions: DriverVersionWithContent[] = [];
    for (let first = start; first < end; ) {
      const chunk = this.#chunkOf[first]!;
      let last = first;
      while (last + 1 < end && this.#chunkOf[last + 1] === chunk) last++;
      const from = this.#offsetOf[first]!;
      const bytes = Buffer.alloc(this.#offsetOf[last]! + this.#lengthOf[last]! - from);
      const handle = await open(this.#file(chunk), 'r');
      try {
        await handle.read(bytes, 0, bytes.length, from);
      } finally {
        await handle.close();
      }
      for (let index = first; index <= last; index++) {
        const at = this.#offsetOf[index]! - from;
        const line = bytes.toString('utf8', at, at + this.#lengthOf[index]!);
        versions.push(parseVersionLine(line, this.#ids[index]!));
      }
      first = last + 1;
    }
    return versions;
  }

  /** One version with its content, or null when the archive has no version of that id. */
  async readVersion(id: string): Promise<DriverVersionWithContent | null> {
    const index = lowerBoundId(this.#ids, id);
    if (this.#ids[index] !== id) return null;
    return (await this.#readRange(index, index + 1))[0]!;
  }

  /**
   * The versions newest first, a page at a time: what core's copy asks (no filter but the cursor).
   * @throws Error for a filter, which a staged archive does not answer.
   */
  async listVersions(query: DriverVersionQuery): Promise<DriverVersionPage> {
    const { cursor, limit, ...filters } = query;
    if (Object.values(filters).some((value) => value !== undefined)) {
      throw new Error('the history of an archive being imported is listed whole, without filters');
    }
    const end = cursor === undefined ? this.#ids.length : lowerBoundId(this.#ids, cursor);
    const start = Math.max(0, end - limit);
    const versions = await this.#readRange(start, end);
    return { versions: versions.reverse(), next: start > 0 ? this.#ids[start]! : null };
  }

  /**
   * The files at the newest version, as the manifest lists them with their file ids.
   * @throws Error for another point, which a staged archive does not answer.
   */
  treeAt(at: DriverPointInTime): readonly DriverTreeEntry[] {
    if (!('version' in at) || at.version !== this.#ids.at(-1)) {
      throw new Error('the history of an archive being imported has its tree at its newest version only');
    }
    return this.#tree;
  }

  /** `driver` with this history's methods, read-only. */
  driverWith(driver: MemoryDriver): MemoryDriver {
    return {
      ...driver,
      capabilities: { ...driver.capabilities, history: true },
      listVersions: (query) => this.listVersions(query),
      readVersion: (id) => this.readVersion(id),
      treeAt: async (at) => this.treeAt(at),
    };
  }
}
