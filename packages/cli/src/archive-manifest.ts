// The manifest of an archive (`memdir-manifest.json`), read from the staging folder in bounded
// memory: its entries are handed over one at a time, never held all at once, however many files
// it lists.
import { createReadStream } from 'node:fs';
import { JsonEvents, JsonSyntaxError } from './json-events.js';

/** The manifest's name, at the archive's top level. */
export const MANIFEST_NAME = 'memdir-manifest.json';
export const MANIFEST_FORMAT = 'memdir-archive';

/** What the manifest says of one file. */
export interface ManifestFile {
  /** The memory path, `/memories/...`. */
  path: string;
  /** UTF-8 bytes. */
  size: number;
  /** SHA-256 of the content, hex. */
  sha256: string;
}

/** The manifest, the archive's last entry. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: 1;
  /** The namespace the files were exported from, if any. */
  namespace?: string;
  files: ManifestFile[];
  totalBytes: number;
}

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
 * Reads the manifest at `file`, calling `onFile` with each entry of `files` in order (awaited before
 * the next is read). Checks, in this order, that the text is JSON, that it is a memdir manifest
 * (format, version, a `files` array), and that every entry has a path, a size and a SHA-256; the
 * first two need the whole text, so call it once without `onFile` to check them first.
 * @throws ManifestError naming the first problem.
 */
export async function readManifest(
  file: string,
  onFile?: (entry: ManifestFile) => Promise<void>,
): Promise<{ files: number }> {
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
  const ready: ManifestFile[] = [];
  const finish = (done: Record<string, unknown>) => {
    const { path, size, sha256 } = done;
    if (
      typeof path !== 'string' ||
      !Number.isSafeInteger(size) ||
      typeof sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(sha256)
    ) {
      badEntry = true;
      return;
    }
    files++;
    ready.push({ path, size: size as number, sha256 });
  };
  const events = new JsonEvents((event) => {
    switch (event.type) {
      case 'begin':
        depth++;
        if (depth === 1) topIsObject = event.container === 'object';
        else if (depth === 2 && topIsObject) {
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
  if (
    !topIsObject ||
    top['format'] !== MANIFEST_FORMAT ||
    top['version'] !== 1 ||
    top['files'] !== AN_ARRAY
  ) {
    throw new ManifestError(
      `${MANIFEST_NAME} is not a memdir manifest (format ${MANIFEST_FORMAT}, version 1)`,
    );
  }
  if (badEntry) throw new ManifestError(`${MANIFEST_NAME} has an entry without a path, a size and a SHA-256`);
  return { files };
}
