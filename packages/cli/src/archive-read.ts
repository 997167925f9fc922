// `memdir import` reads its archive as a stream, in bounded memory: tar-stream parses it
// (archive-tar.ts), each header is checked here as soon as it is read (a 10 GB size is refused from
// the header, before any of its content is read), each file's content
// goes to a private staging folder on disk as it arrives (hashed and checked for UTF-8 on the way),
// and the manifest is checked against the staged files entry by entry. Only then is anything
// written to the store, from the staging folder: a refused archive changes nothing.
//
// What `import` reads is hostile until proven otherwise: it refuses links, devices, absolute paths,
// `..`, names the protocol refuses, sizes over the store's limit, text that is not UTF-8, and
// anything the manifest does not vouch for.
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { type DriverPath, isMemoryToolError, type MemoryDriver, normalizeMemoryPath } from '@memdir/core';
import { ArchiveError } from './archive-error.js';
import { HISTORY_FOLDER, MAX_CHUNK_BYTES } from './archive-history.js';
import { MANIFEST_NAME, ManifestError, type ManifestFile, readManifest } from './archive-manifest.js';
import { Staging } from './archive-stage.js';
import { type TarEntry, TarReader } from './archive-tar.js';

/** The folder every file sits in inside the archive, as in the filesystem store's layout. */
export const ARCHIVE_ROOT = 'memories';

/** Limits `stageArchive` holds an archive to. */
export interface ArchiveLimits {
  /** The largest file, in bytes: the target store's `maxFileBytes`. */
  maxFileBytes: number;
  /** The most bytes of file content in all. @default 512 MiB */
  maxTotalBytes?: number;
  /** The most entries. @default 1,000,000 */
  maxEntries?: number;
  /** The folder the staging folder is made in. @default os.tmpdir() ($TMPDIR) */
  stagingParent?: string;
  /** Stops the reading (Ctrl-C): the staged files are removed, and it rejects with an ArchiveError. */
  signal?: AbortSignal | undefined;
  /**
   * Called as the work goes: `read` after each file staged (its totals are not known yet), `check`
   * after each manifest entry checked against the staged files (out of `totalFiles`).
   */
  onProgress?:
    | ((progress: {
        phase: 'read' | 'check';
        files: number;
        bytes: number;
        totalFiles: number;
        totalBytes: number;
      }) => void)
    | undefined;
}

/** A checked archive, staged on disk: its files as a driver, until `discard()`. */
export interface StagedArchive {
  /**
   * The archive's files, read-only, for `copyStore`; with its history (`capabilities.history`)
   * when the archive has one.
   */
  readonly driver: MemoryDriver;
  readonly files: number;
  readonly bytes: number;
  /** The versions of the archive's history, or undefined for an archive exported without it. */
  readonly versions: number | undefined;
  /** Removes the staged files. */
  discard(): Promise<void>;
}

/** The types import refuses, by tar-stream's names. */
const REFUSED_TYPES: Record<string, string> = {
  link: 'a hard link',
  symlink: 'a symbolic link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO',
  'contiguous-file': 'a contiguous file',
};

/** The memory path an archive entry name maps to, or an ArchiveError saying why it cannot. */
function memoryPathOf(name: string): string {
  if (name.startsWith('/'))
    throw new ArchiveError(`the archive holds an absolute path (${JSON.stringify(name.slice(0, 200))})`);
  const relative = name.replace(/^(\.\/)+/, '');
  if (relative.split('/').includes('..')) {
    throw new ArchiveError(
      `the archive holds a path that climbs out with .. (${JSON.stringify(name.slice(0, 200))})`,
    );
  }
  if (relative !== ARCHIVE_ROOT && !relative.startsWith(`${ARCHIVE_ROOT}/`)) {
    throw new ArchiveError(
      `the archive holds ${JSON.stringify(name.slice(0, 200))}, outside ${ARCHIVE_ROOT}/`,
    );
  }
  try {
    return normalizeMemoryPath(`/${relative.replace(/\/+$/, '')}`);
  } catch (error) {
    const reason = isMemoryToolError(error) ? error.message : String(error);
    throw new ArchiveError(`the archive holds a path memdir refuses: ${reason}`);
  }
}

/**
 * Checks that bytes given piece by piece are UTF-8, without decoding them (a decoder would make a
 * string of every piece: hundreds of megabytes of garbage for a large archive). A character cut
 * between two pieces is carried over, at most three bytes.
 */
class Utf8Check {
  #carry: Buffer = Buffer.alloc(0);

  /** False as soon as the bytes so far cannot be UTF-8. */
  next(piece: Buffer): boolean {
    const bytes = this.#carry.length === 0 ? piece : Buffer.concat([this.#carry, piece]);
    // The start of the last character, if it may be cut: a lead byte among the last three bytes.
    let cut = bytes.length;
    for (let back = 1; back <= Math.min(3, bytes.length); back++) {
      const byte = bytes[bytes.length - back]!;
      if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      if (length > back) cut = bytes.length - back;
      break;
    }
    this.#carry = Buffer.from(bytes.subarray(cut));
    return isUtf8(bytes.subarray(0, cut));
  }

  /** False when the bytes end inside a character. */
  end(): boolean {
    return this.#carry.length === 0;
  }
}

/** Copies an entry's content into `sink`, piece by piece. */
async function pipeContent(
  entry: TarEntry,
  within: string,
  sink: (piece: Buffer) => Promise<void>,
): Promise<void> {
  for await (const piece of entry.content(within)) await sink(piece);
}

/**
 * Reads and checks an archive made by `memdir export` from `input`, staging its files on disk and
 * writing nothing to any store: every header (checksum, type, path, size, refused as soon as it is
 * read), the content (UTF-8), and the manifest (present, agreeing with every file's size and hash,
 * no file missing or extra). Memory stays bounded whatever the archive: the content goes to disk,
 * and so do the paths.
 * @returns the staged archive; `discard()` it when done.
 * @throws ArchiveError naming the first problem (the staged files are removed then).
 */
export async function stageArchive(input: Readable, limits: ArchiveLimits): Promise<StagedArchive> {
  const staging = await Staging.create(limits.stagingParent);
  // Ctrl-C: the input is closed, which ends the wait for its next piece (also when it came while
  // the staging folder was being made, before this listener).
  const stop = () => input.destroy();
  limits.signal?.addEventListener('abort', stop, { once: true });
  if (limits.signal?.aborted) stop();
  let versions: number | undefined;
  try {
    const entries = new TarReader(input);
    try {
      versions = await readInto(entries, staging, limits);
    } finally {
      entries.close();
    }
    if (limits.signal?.aborted) throw new ArchiveError('interrupted');
  } catch (error) {
    await staging.discard();
    throw limits.signal?.aborted ? new ArchiveError('interrupted') : error;
  } finally {
    limits.signal?.removeEventListener('abort', stop);
  }
  return {
    driver: staging.driver(versions !== undefined),
    files: staging.files,
    bytes: staging.bytes,
    versions,
    discard: () => staging.discard(),
  };
}

/** Manifest entries checked against the staged files at once. */
const VERIFY_AHEAD = 16;
const CHUNK_NAME = new RegExp(`^${HISTORY_FOLDER}/versions-\\d{6}\\.jsonl$`);
const FILE_ID = /^mem_[A-Za-z0-9_-]{16,200}$/;
const VERSION_ID = /^memver_\d{16}$/;

/** Reads and checks the whole archive; resolves to its versions (undefined: it has no history). */
async function readInto(
  input: TarReader,
  staging: Staging,
  limits: ArchiveLimits,
): Promise<number | undefined> {
  const maxTotalBytes = limits.maxTotalBytes ?? 512 * 1024 * 1024;
  const maxEntries = limits.maxEntries ?? 1_000_000;
  let manifestSeen = false;
  let total = 0;
  let entries = 0;
  for (;;) {
    // Each header is checked here as soon as it is read, before any of its content.
    const entry = await input.next();
    if (entry === undefined) break;
    if (++entries > maxEntries) throw new ArchiveError(`the archive has more than ${maxEntries} entries`);
    const { type, size } = entry;
    if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError('a header gives an impossible size');
    let name = entry.name;
    if (type !== null && type in REFUSED_TYPES) {
      throw new ArchiveError(
        `the archive holds ${REFUSED_TYPES[type]} (${JSON.stringify(name.slice(0, 200))}); import takes regular files only`,
      );
    }
    if (type !== 'file' && type !== 'directory') {
      throw new ArchiveError(
        `the archive holds an entry of a type import does not know (${JSON.stringify(name.slice(0, 200))})`,
      );
    }
    if (type === 'directory') {
      if (size !== 0) throw new ArchiveError('a directory entry has content');
      // The history's folder (a system tar adds it when it archives an export's folders again).
      if (name.replace(/^(\.\/)+/, '').replace(/\/+$/, '') === HISTORY_FOLDER) continue;
      await staging.addFolder(memoryPathOf(name));
      continue;
    }
    name = name.replace(/^(\.\/)+/, '');
    if (name.startsWith(`${HISTORY_FOLDER}/`)) {
      if (!CHUNK_NAME.test(name)) {
        throw new ArchiveError(
          `the archive holds ${JSON.stringify(name.slice(0, 200))}, which is not a part of a memdir history`,
        );
      }
      if (size > MAX_CHUNK_BYTES) {
        throw new ArchiveError(
          `${name} is ${size} bytes, over the ${MAX_CHUNK_BYTES} bytes of a history chunk`,
        );
      }
      const chunk = await staging.history.addChunk(name);
      try {
        await pipeContent(entry, name, (piece) => chunk.write(piece));
      } finally {
        await chunk.done();
      }
      continue;
    }
    if (name === MANIFEST_NAME) {
      if (manifestSeen) throw new ArchiveError('the archive holds two manifests');
      if (size > 64 * 1024 * 1024) throw new ArchiveError('the manifest is larger than 64 MiB');
      manifestSeen = true;
      const file = await open(staging.manifestFile, 'wx', 0o600);
      try {
        await pipeContent(entry, 'the manifest', async (piece) => void (await file.write(piece)));
      } finally {
        await file.close();
      }
      continue;
    }
    const path = memoryPathOf(name);
    // Refused from the header alone: a 10 GB size is never read.
    if (size > limits.maxFileBytes) {
      throw new ArchiveError(
        `${path} is ${size} bytes, over the store's limit of ${limits.maxFileBytes} bytes per file`,
      );
    }
    total += size;
    if (total > maxTotalBytes)
      throw new ArchiveError(`the archive holds more than ${maxTotalBytes} bytes of files`);
    if (path === `/${ARCHIVE_ROOT}`)
      throw new ArchiveError(`the archive holds a file named ${ARCHIVE_ROOT} itself`);
    const staged = await staging.addFile(path);
    const utf8 = new Utf8Check();
    try {
      await pipeContent(entry, path, async (piece) => {
        if (!utf8.next(piece)) throw new ArchiveError(`${path} is not UTF-8 text`);
        await staged.write(piece);
      });
      if (!utf8.end()) throw new ArchiveError(`${path} is not UTF-8 text`);
    } finally {
      await staged.done();
    }
    limits.onProgress?.({
      phase: 'read',
      files: staging.files,
      bytes: staging.bytes,
      totalFiles: Number.NaN,
      totalBytes: Number.NaN,
    });
  }
  if (!manifestSeen) {
    throw new ArchiveError(
      `the archive has no ${MANIFEST_NAME}: import only takes archives made by memdir export`,
    );
  }
  let history: Awaited<ReturnType<typeof readManifest>>['history'];
  // Entries are checked against the files VERIFY_AHEAD at a time (each is a few reads and a rename
  // on disk, mostly waiting), and their outcomes taken in manifest order, so a damaged archive is
  // refused with the same message as one at a time. A path listed twice within the window is
  // refused in its turn, as the second check of it would be.
  const window: Array<{ entry: ManifestFile; outcome: Promise<unknown> }> = [];
  /** The failure of an entry taken in its turn: the entries still in the window come after it. */
  let settled: unknown;
  const checked = { files: 0, bytes: 0 };
  const next = async () => {
    const { entry, outcome } = window.shift()!;
    const failure = await outcome;
    if (failure !== undefined) {
      settled = failure;
      throw failure;
    }
    checked.files++;
    checked.bytes += entry.size;
    limits.onProgress?.({
      phase: 'check',
      ...checked,
      totalFiles: staging.files,
      totalBytes: staging.bytes,
    });
    if (history === undefined || entry.fileId === undefined) return;
    staging.history.addTreeEntry({
      path: entry.path.slice(ARCHIVE_ROOT.length + 2) as DriverPath,
      fileId: entry.fileId,
      version: entry.version!,
      size: entry.size,
      sha256: entry.sha256,
    });
  };
  try {
    // First the manifest's shape (it needs the whole text), then each entry against the files.
    ({ history } = await readManifest(staging.manifestFile));
    await readManifest(staging.manifestFile, async (entry) => {
      // Ids from the archive go to the target's files as they are: checked like every other field,
      // once the file is.
      const badIds =
        history !== undefined &&
        entry.fileId !== undefined &&
        (!FILE_ID.test(entry.fileId) || entry.version === undefined || !VERSION_ID.test(entry.version));
      const outcome = window.some((pending) => pending.entry.path === entry.path)
        ? Promise.resolve(new ArchiveError(`${entry.path} is listed twice in the manifest`))
        : staging.verify(entry).then(
            () =>
              badIds
                ? new ArchiveError(
                    `${entry.path} has a file id or version in the manifest that memdir does not make`,
                  )
                : undefined,
            (error: unknown) => error ?? new Error('verification failed'),
          );
      window.push({ entry, outcome });
      if (window.length >= VERIFY_AHEAD) await next();
    });
    while (window.length > 0) await next();
  } catch (error) {
    // Nothing is left running in the staging folder when it is removed. A failure of the manifest
    // itself (further on) comes after those of the entries before it, as one at a time.
    const earlier = await Promise.all(window.splice(0).map((pending) => pending.outcome));
    const first = error === settled ? undefined : earlier.find((failure) => failure !== undefined);
    const failure = first ?? error;
    if (failure instanceof ManifestError) throw new ArchiveError(failure.message);
    throw failure;
  }
  await staging.verifyAll();
  await staging.history.check(history);
  return history?.versions;
}
