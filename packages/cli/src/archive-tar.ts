// The tar format of `export` and `import`, through tar-stream (a streaming tar writer and parser):
// `TarWriter` writes entries to the output as they come, with its backpressure; `TarReader` hands
// out the entries of an input one at a time, each header before any of its content, the content
// piece by piece. What tar-stream does not do itself, and memdir needs, is added here:
//  - the end marker: tar-stream takes an input that stops right after an entry as complete, so the
//    bytes after the last entry are counted and the input must end with a zero block;
//  - its failures in memdir's words, as ArchiveErrors naming where the archive broke;
//  - the bytes moved, counted for the garbage collection of memory.ts.
// The checks of what an entry may be (types, paths, sizes, UTF-8, the manifest) are archive-read.ts's.
import type { Readable, Writable } from 'node:stream';
import { type Header, type Pack, extract as tarExtract, pack as tarPack } from 'tar-stream';
import { ArchiveError } from './archive-error.js';
import { collectAsBytesMove } from './memory.js';

const BLOCK = 512;
/** Every entry's time: an export of the same files is the same bytes. */
const EPOCH = new Date(0);

/**
 * A tar archive written to `output` entry by entry (ustar, with a PAX header for long or non-ASCII
 * names). Each entry resolves once its bytes are handed to `output` and `output` takes more (its
 * backpressure holds the export back), as a plain `write` would: tar-stream emits an entry's
 * bytes before it calls the entry back, and they go straight on.
 */
export class TarWriter {
  readonly #pack: Pack = tarPack();
  readonly #ended: Promise<void>;
  /** While `output` is full: resolves when it drains (or fails). */
  #drained: { promise: Promise<void>; resolve: () => void } | undefined;
  #failure: Error | undefined;

  constructor(output: Writable) {
    this.#pack.on('data', (chunk) => {
      const more = output.write(chunk as Buffer, (error) => {
        if (error) this.#fail(error);
      });
      if (more || this.#drained !== undefined) return;
      this.#pack.pause();
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.#drained = { promise, resolve };
      output.once('drain', () => this.#resume());
    });
    this.#ended = new Promise<void>((resolve, reject) => {
      this.#pack.on('end', resolve);
      this.#pack.on('close', () => (this.#failure ? reject(this.#failure) : resolve()));
    });
    this.#ended.catch(() => {});
  }

  #resume(): void {
    const drained = this.#drained;
    this.#drained = undefined;
    if (!this.#pack.destroyed) this.#pack.resume();
    drained?.resolve();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#pack.destroy(error);
    this.#resume();
  }

  async #settled(): Promise<void> {
    if (this.#drained !== undefined) await this.#drained.promise;
    if (this.#failure !== undefined) throw this.#failure;
  }

  #entry(header: Parameters<Pack['entry']>[0], body: Buffer | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settled = (error?: Error | null) => (error ? reject(this.#failure ?? error) : resolve());
      if (body === undefined) this.#pack.entry(header, settled);
      else this.#pack.entry(header, body, settled);
    }).then(() => this.#settled());
  }

  /** A regular file. */
  file(name: string, body: Buffer): Promise<void> {
    return this.#entry({ name, type: 'file', size: body.length, mode: 0o644, mtime: EPOCH }, body);
  }

  /** A folder (`name` ends with a slash). */
  folder(name: string): Promise<void> {
    return this.#entry({ name, type: 'directory', mode: 0o755, mtime: EPOCH }, undefined);
  }

  /** Writes the end marker; resolves when every byte is handed to the output. */
  async end(): Promise<void> {
    this.#pack.finalize();
    await this.#ended;
    await this.#settled();
  }

  /** Stops writing (after a failure): nothing more goes to the output. */
  abort(): void {
    if (!this.#pack.destroyed) this.#pack.destroy();
    this.#resume();
  }
}

/** One entry of an archive being read: its header, and its content (read it before the next entry). */
export interface TarEntry {
  /** The name, with a PAX `path`, a GNU long name or a ustar prefix applied. */
  readonly name: string;
  /** tar-stream's name of the type: `file`, `directory`, `symlink`...; null for a type it does not know. */
  readonly type: string | null;
  readonly size: number;
  /** Where its header starts in the input. */
  readonly offset: number;
  /** The content, piece by piece; a failure names the entry as `within`. */
  content(within: string): AsyncIterable<Buffer>;
}

/** What tar-stream's failures mean, said in memdir's words; `within` is the entry being read, if any. */
function explained(error: unknown, within: string | undefined, at: number): unknown {
  if (error instanceof ArchiveError || !(error instanceof Error)) return error;
  const message = error.message;
  if (message === 'Unexpected end of data') {
    return new ArchiveError(
      within === undefined
        ? 'the archive has no end marker: it is cut short or not a tar archive'
        : `the archive ends inside ${within}: it is cut short`,
    );
  }
  if (message.startsWith('Invalid tar header. Maybe the tar is corrupted')) {
    return new ArchiveError(`the archive is damaged: a header's checksum is wrong (at byte ${at})`);
  }
  if (message === 'Invalid header') return new ArchiveError('a header gives an impossible size');
  if (message === 'Header exceeds max size')
    return new ArchiveError('an extended header is larger than 4 MiB');
  if (message.startsWith('Invalid tar header')) return new ArchiveError(`the archive is damaged: ${message}`);
  return error;
}

/** The entries of a tar archive read from `input`, in bounded memory. */
export class TarReader {
  // allowUnknownFormat: headers without the ustar magic (old tars) are read too; their checksum still holds.
  readonly #extract = tarExtract({ allowUnknownFormat: true } as Parameters<typeof tarExtract>[0]);
  readonly #entries: AsyncIterator<AsyncIterable<Buffer> & { header: Header; offset: number }>;
  /** Bytes of the input given to the parser so far. */
  #total = 0;
  /** The input's last bytes (at most a block), to check that it ends with a zero block. */
  #tail: Buffer = Buffer.alloc(0);
  /** Where the last entry ends (its content padded to a block): the next header starts there or later. */
  #entryEnd = 0;
  #inputFailure: unknown;
  /** The parser's own failure: an entry being read fails only with "Stream was destroyed" then. */
  #parseFailure: unknown;
  /** Counts the bytes that went through, for the garbage collection of memory.ts. */
  readonly moved = collectAsBytesMove();

  constructor(input: Readable) {
    this.#entries = this.#extract[Symbol.asyncIterator]() as never;
    this.#extract.on('error', (error) => {
      this.#parseFailure ??= error;
    });
    void this.#feed(input);
  }

  async #feed(input: Readable): Promise<void> {
    try {
      for await (const chunk of input) {
        if (this.#extract.destroyed) return;
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        this.#total += bytes.length;
        this.#tail =
          bytes.length >= BLOCK
            ? bytes.subarray(bytes.length - BLOCK)
            : Buffer.concat([this.#tail, bytes]).subarray(-BLOCK);
        if (!this.#extract.write(bytes)) await this.#drained();
      }
      this.#extract.end(undefined);
    } catch (error) {
      this.#inputFailure = error;
      this.#extract.destroy(error as Error);
    }
  }

  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#extract.off('drain', done);
        this.#extract.off('close', done);
        resolve();
      };
      this.#extract.on('drain', done);
      this.#extract.on('close', done);
    });
  }

  #failure(error: unknown, within: string | undefined): unknown {
    return this.#inputFailure ?? explained(this.#parseFailure ?? error, within, this.#entryEnd);
  }

  /**
   * The next entry, as soon as its header is read (none of its content is), or undefined at the
   * end of the archive.
   * @throws ArchiveError for a damaged header or an archive without its end marker.
   */
  async next(): Promise<TarEntry | undefined> {
    let step: IteratorResult<AsyncIterable<Buffer> & { header: Header; offset: number }>;
    try {
      step = await this.#entries.next();
    } catch (error) {
      throw this.#failure(error, undefined);
    }
    if (step.done) {
      const ended = this.#total - this.#entryEnd >= BLOCK && this.#tail.every((byte) => byte === 0);
      if (!ended)
        throw new ArchiveError('the archive has no end marker: it is cut short or not a tar archive');
      return undefined;
    }
    const source = step.value;
    const { header } = source;
    this.#entryEnd = source.offset + BLOCK + Math.ceil(header.size / BLOCK) * BLOCK;
    const reader = this;
    return {
      name: header.name,
      type: header.type as string | null,
      size: header.size,
      offset: source.offset,
      async *content(within: string) {
        try {
          for await (const piece of source) {
            reader.moved(piece.length);
            yield piece as Buffer;
          }
        } catch (error) {
          throw reader.#failure(error, within);
        }
      },
    };
  }

  /** Stops reading: the parser is closed (the input is read no further). */
  close(): void {
    if (!this.#extract.destroyed) this.#extract.destroy();
  }
}
