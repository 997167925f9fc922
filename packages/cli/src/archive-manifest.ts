// The manifest of an archive (`memdir-manifest.json`), read from the staging folder in bounded
// memory: its entries are handed over one at a time, never held all at once, however many files
// it lists.
import { createReadStream } from 'node:fs';
import { JsonEvents, JsonSyntaxError } from './json-events.js';

/** The manifest's name, at the archive's top level. */
export const MANIFEST_NAME = 'memdir-manifest.json';
export const MANIFEST_FORMAT = 'memdir-archive';
/**
 * The manifest versions this memdir reads: 1, files only (every memdir); 2, files and the history
 * (`export --with-history`). An export without history still writes version 1, so that a memdir
 * older than version 2 imports it; a manifest of a version above these is refused as the work of a
 * newer memdir, never read in part.
 */
export const MANIFEST_VERSIONS = [1, 2] as const;
export type ManifestVersion = (typeof MANIFEST_VERSIONS)[number];

/** What the manifest says of one file. */
export interface ManifestFile {
  /** The memory path, `/memories/...`. */
  path: string;
  /** UTF-8 bytes. */
  size: number;
  /** SHA-256 of the content, hex. */
  sha256: string;
  /**
   * Version 2, with history: the file's id, and the version that made it what it is, when the
   * history knows it (a file older than the store's history has neither).
   */
  fileId?: string;
  version?: string;
}

/** One piece of the history (version 2): an archive entry of JSON lines, one version a line. */
export interface ManifestHistoryChunk {
  /** The entry's name, `memdir-history/versions-000001.jsonl`. */
  name: string;
  /** Versions (lines) in it. */
  versions: number;
  size: number;
  sha256: string;
}

/** The history of the store (version 2), oldest version first, chunk after chunk. */
export interface ManifestHistory {
  versions: number;
  chunks: ManifestHistoryChunk[];
}

/** The manifest, the archive's last entry. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  /** 1 without history, 2 with it (see {@link MANIFEST_VERSIONS}). */
  version: ManifestVersion;
  /** The namespace the files were exported from, if any. */
  namespace?: string;
  files: ManifestFile[];
  totalBytes: number;
  /** Version 2: the store's history, when exported with it. */
  history?: ManifestHistory;
}

/** What {@link readManifest} found besides the files it handed over. */
export interface ManifestSummary {
  files: number;
  version: ManifestVersion;
  /** The history section, checked for shape (its chunks are checked against the archive later). */
  history: ManifestHistory | undefined;
}

/** The most history chunks a manifest lists (at 4 MiB a chunk, far beyond any store's history). */
const MAX_HISTORY_CHUNKS = 100_000;

/** The longest string a manifest may hold: far more than any path (at most 4096 characters). */
const MAX_STRING = 64 * 1024;

/** Stand for a container value of the top-level object (only `files` is looked into). */
const AN_ARRAY = Symbol('array');
const AN_OBJECT = Symbol('object');

/** What is wrong with a manifest, as `import` says it. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

/**
 * Builds the JSON value of one small subtree of the manifest (the `history` section) from its
 * events, refusing one of more than `maxItems` values and containers.
 */
class SubtreeBuilder {
  readonly #stack: Array<{ value: Record<string, unknown> | unknown[]; key?: string }> = [];
  #items = 0;
  readonly #maxItems: number;
  result: unknown;
  /** True once the subtree is complete. */
  done = false;

  constructor(maxItems: number) {
    this.#maxItems = maxItems;
  }

  #add(value: unknown): void {
    if (++this.#items > this.#maxItems)
      throw new ManifestError(`${MANIFEST_NAME} has a history section too large to read`);
    const top = this.#stack.at(-1);
    if (top === undefined) {
      this.result = value;
      this.done = true;
    } else if (Array.isArray(top.value)) top.value.push(value);
    else top.value[top.key!] = value;
  }

  begin(container: 'object' | 'array'): void {
    const value = container === 'array' ? [] : {};
    this.#add(value);
    this.done = false;
    this.#stack.push({ value });
  }

  key(key: string): void {
    this.#stack.at(-1)!.key = key;
  }

  value(value: unknown): void {
    this.#add(value);
  }

  end(): void {
    this.#stack.pop();
    if (this.#stack.length === 0) this.done = true;
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const CHUNK_NAME = /^memdir-history\/versions-\d{6}\.jsonl$/;

/** The `history` section's value, checked for shape. @throws ManifestError */
function historyOf(value: unknown): ManifestHistory {
  const bad = new ManifestError(
    `${MANIFEST_NAME} has a history section without its versions and chunks (name, versions, size, SHA-256)`,
  );
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad;
  const { versions, chunks } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(versions) || (versions as number) < 0 || !Array.isArray(chunks)) throw bad;
  let counted = 0;
  for (const chunk of chunks) {
    if (typeof chunk !== 'object' || chunk === null) throw bad;
    const { name, versions: inChunk, size, sha256 } = chunk as Record<string, unknown>;
    if (
      typeof name !== 'string' ||
      !CHUNK_NAME.test(name) ||
      !Number.isSafeInteger(inChunk) ||
      (inChunk as number) < 1 ||
      !Number.isSafeInteger(size) ||
      typeof sha256 !== 'string' ||
      !SHA256.test(sha256)
    ) {
      throw bad;
    }
    counted += inChunk as number;
  }
  if (counted !== versions) {
    throw new ManifestError(`${MANIFEST_NAME} counts ${versions} versions, and its chunks ${counted}`);
  }
  return { versions: versions as number, chunks: chunks as ManifestHistoryChunk[] };
}

/**
 * Reads the manifest at `file`, calling `onFile` with each entry of `files` in order (awaited before
 * the next is read). Checks, in this order, that the text is JSON, that it is a memdir manifest
 * (format, a version this memdir reads, a `files` array, and for version 2 a well-formed `history`
 * section if any), and that every entry has a path, a size and a SHA-256; the first checks need the
 * whole text, so call it once without `onFile` to check them first.
 * @throws ManifestError naming the first problem.
 */
export async function readManifest(
  file: string,
  onFile?: (entry: ManifestFile) => Promise<void>,
): Promise<ManifestSummary> {
  const top: Record<string, unknown> = {};
  let files = 0;
  let badEntry = false;
  // How many containers are open: 1 inside the top-level object, 2 inside its `files` array, 3
  // inside an entry of it, 4 and more inside a value of an entry.
  let depth = 0;
  let topIsObject = false;
  let inFiles = false;
  let topKey: string | undefined;
  let entryKey: string | undefined;
  let entry: Record<string, unknown> | undefined;
  // The `history` section, built whole: it lists chunks of megabytes each, so it stays small.
  let history: SubtreeBuilder | undefined;
  const ready: ManifestFile[] = [];
  const finish = (done: Record<string, unknown>) => {
    const { path, size, sha256, fileId, version } = done;
    if (
      typeof path !== 'string' ||
      !Number.isSafeInteger(size) ||
      typeof sha256 !== 'string' ||
      !SHA256.test(sha256) ||
      (fileId !== undefined && typeof fileId !== 'string') ||
      (version !== undefined && typeof version !== 'string')
    ) {
      badEntry = true;
      return;
    }
    files++;
    ready.push({
      path,
      size: size as number,
      sha256,
      ...(fileId === undefined ? {} : { fileId: fileId as string }),
      ...(version === undefined ? {} : { version: version as string }),
    });
  };
  const events = new JsonEvents((event) => {
    if (history !== undefined && !history.done) {
      if (event.type === 'begin') history.begin(event.container);
      else if (event.type === 'key') history.key(event.key);
      else if (event.type === 'value') history.value(event.value);
      else history.end();
      if (event.type === 'begin') depth++;
      if (event.type === 'end') depth--;
      if (history.done) top['history'] = history.result;
      return;
    }
    switch (event.type) {
      case 'begin':
        depth++;
        if (depth === 1) topIsObject = event.container === 'object';
        else if (depth === 2 && topIsObject) {
          if (topKey === 'history') {
            history = new SubtreeBuilder(MAX_HISTORY_CHUNKS * 8);
            history.begin(event.container);
            return;
          }
          top[topKey!] = event.container === 'array' ? AN_ARRAY : AN_OBJECT;
          inFiles = topKey === 'files' && event.container === 'array';
        } else if (depth === 3 && inFiles) {
          entry = event.container === 'object' ? {} : undefined;
          if (entry === undefined) badEntry = true;
        } else if (depth === 4 && entry !== undefined) entry[entryKey!] = AN_OBJECT;
        return;
      case 'end':
        if (depth === 3 && entry !== undefined) {
          finish(entry);
          entry = undefined;
        }
        if (depth === 2) inFiles = false;
        depth--;
        return;
      case 'key':
        if (depth === 1) topKey = event.key;
        else if (depth === 3) entryKey = event.key;
        return;
      case 'value':
        if (depth === 1) top[topKey!] = event.value;
        else if (depth === 2 && inFiles) badEntry = true;
        else if (depth === 3 && entry !== undefined) entry[entryKey!] = event.value;
        return;
    }
  }, MAX_STRING);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) {
      events.feed(decoder.decode(chunk as Buffer, { stream: true }));
      // Entries are checked against the staging folder one at a time, as they are read.
      while (ready.length > 0) {
        const next = ready.shift()!;
        if (onFile) await onFile(next);
      }
    }
    events.feed(decoder.decode());
    events.end();
  } catch (error) {
    if (error instanceof JsonSyntaxError || error instanceof TypeError) {
      throw new ManifestError(`${MANIFEST_NAME} is not valid JSON`);
    }
    throw error;
  }
  for (const next of ready) if (onFile) await onFile(next);
  const version = top['version'];
  // A newer memdir's archive: said as such, rather than as a damaged one.
  if (
    topIsObject &&
    top['format'] === MANIFEST_FORMAT &&
    typeof version === 'number' &&
    Number.isSafeInteger(version) &&
    version > MANIFEST_VERSIONS.at(-1)!
  ) {
    throw new ManifestError(
      `${MANIFEST_NAME} is of version ${version}, made by a newer memdir than this one (which reads versions ${MANIFEST_VERSIONS.join(' and ')}): import it with a newer memdir`,
    );
  }
  if (
    !topIsObject ||
    top['format'] !== MANIFEST_FORMAT ||
    !MANIFEST_VERSIONS.includes(version as ManifestVersion) ||
    top['files'] !== AN_ARRAY
  ) {
    throw new ManifestError(
      `${MANIFEST_NAME} is not a memdir manifest (format ${MANIFEST_FORMAT}, version ${MANIFEST_VERSIONS.join(' or ')})`,
    );
  }
  if (version === 1 && 'history' in top) {
    throw new ManifestError(`${MANIFEST_NAME} is of version 1, which has no history section`);
  }
  if (badEntry) throw new ManifestError(`${MANIFEST_NAME} has an entry without a path, a size and a SHA-256`);
  return {
    files,
    version: version as ManifestVersion,
    history: 'history' in top ? historyOf(top['history']) : undefined,
  };
}
