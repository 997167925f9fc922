// `memdir export` and `memdir import`: a store's files as a standard tar archive (POSIX ustar, with
// PAX headers for long or non-ASCII names), which `tar -tf` lists and `tar -xf` extracts into
// `memories/...`. The archive ends with a manifest (`memdir-manifest.json`: every file's path, size
// and SHA-256), which `import` checks, with every header, before it writes anything. What `import`
// reads is hostile until proven otherwise: it refuses links, devices, absolute paths, `..`, names the
// protocol refuses, sizes over the store's limit, text that is not UTF-8, and anything the manifest
// does not vouch for.
import { createHash } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import {
  createInMemoryDriver,
  type DriverPath,
  isMemoryToolError,
  type MemoryDriver,
  normalizeMemoryPath,
  toDriverPath,
} from '@memdir/core';

const BLOCK = 512;
/** The folder every file sits in inside the archive, as in the filesystem store's layout. */
export const ARCHIVE_ROOT = 'memories';
/** The manifest's name, at the archive's top level. */
export const MANIFEST_NAME = 'memdir-manifest.json';
const MANIFEST_FORMAT = 'memdir-archive';

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

/** Thrown by `readArchive` for an archive it will not import; the message says why. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// --- writing -------------------------------------------------------------------------------------

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0');
}

/** A ustar header block for `name` (at most 100 ASCII bytes; longer names go in a PAX header). */
function header(name: string, size: number, type: '0' | '5' | 'x', mode: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode, 8), 100, 8, 'ascii');
  block.write(octal(0, 8), 108, 8, 'ascii');
  block.write(octal(0, 8), 116, 8, 'ascii');
  block.write(octal(size, 12), 124, 12, 'ascii');
  block.write(octal(0, 12), 136, 12, 'ascii');
  block.write('        ', 148, 8, 'ascii');
  block.write(type, 156, 1, 'ascii');
  block.write('ustar\u000000', 257, 8, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${octal(sum, 7)}\u0000 `, 148, 8, 'ascii');
  return block;
}

/** The blocks that carry one entry's name: a plain header, or a PAX record before it. */
function entryHeader(name: string, size: number, type: '0' | '5', mode: number): Buffer[] {
  const plain = Buffer.byteLength(name) <= 100 && /^[\x20-\x7e]*$/.test(name);
  if (plain) return [header(name, size, type, mode)];
  // "<length> path=<name>\n", where the length counts the whole record, its own digits included.
  const body = ` path=${name}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  const record = Buffer.from(`${length}${body}`);
  const short = `PaxHeader/${name.replace(/[^\x20-\x7e]/g, '_')}`.slice(0, 100);
  return [header(short, record.length, 'x', 0o644), pad(record), header(short, size, type, mode)];
}

function pad(content: Buffer): Buffer {
  const rest = content.length % BLOCK;
  return rest === 0 ? content : Buffer.concat([content, Buffer.alloc(BLOCK - rest)]);
}

function write(output: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (output.write(chunk, (error) => (error ? reject(error) : undefined))) resolve();
    else output.once('drain', resolve);
  });
}

/** Progress of an export: files and bytes written so far, of the totals. */
export interface ArchiveProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/**
 * Writes every file of `driver` (hidden ones included) to `output` as a tar archive of
 * `memories/...` ending with the manifest, and resolves to the manifest. Files are read one at a
 * time: only paths and sizes are held for the whole store.
 */
export async function writeArchive(
  driver: MemoryDriver,
  output: Writable,
  options: { namespace?: string | undefined; onProgress?: (progress: ArchiveProgress) => void } = {},
): Promise<Manifest> {
  const entries: { path: DriverPath; size: number }[] = [];
  for await (const entry of driver.list('' as DriverPath)) entries.push(entry);
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  const files: ManifestFile[] = [];
  const folders = new Set<string>();
  let written = 0;
  await write(output, Buffer.concat(entryHeader(`${ARCHIVE_ROOT}/`, 0, '5', 0o755)));
  for (const entry of entries) {
    const node = await driver.read(entry.path);
    if (node?.kind !== 'file') continue; // removed since the listing: it is not in the archive
    const segments = entry.path.split('/');
    for (let depth = 1; depth < segments.length; depth++) {
      const folder = segments.slice(0, depth).join('/');
      if (folders.has(folder)) continue;
      folders.add(folder);
      await write(output, Buffer.concat(entryHeader(`${ARCHIVE_ROOT}/${folder}/`, 0, '5', 0o755)));
    }
    const content = Buffer.from(node.content, 'utf8');
    await write(
      output,
      Buffer.concat([
        ...entryHeader(`${ARCHIVE_ROOT}/${entry.path}`, content.length, '0', 0o644),
        pad(content),
      ]),
    );
    files.push({ path: `/${ARCHIVE_ROOT}/${entry.path}`, size: content.length, sha256: sha256(content) });
    written += content.length;
    options.onProgress?.({ files: files.length, totalFiles: entries.length, bytes: written, totalBytes });
  }
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: 1,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    files,
    totalBytes: written,
  };
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  await write(output, Buffer.concat([...entryHeader(MANIFEST_NAME, body.length, '0', 0o644), pad(body)]));
  await write(output, Buffer.alloc(BLOCK * 2));
  return manifest;
}

// --- reading -------------------------------------------------------------------------------------

/** Limits `readArchive` holds an archive to. */
export interface ArchiveLimits {
  /** The largest file, in bytes: the target store's `maxFileBytes`. */
  maxFileBytes: number;
  /** The most bytes of file content in all. @default 512 MiB */
  maxTotalBytes?: number;
  /** The most entries. @default 1,000,000 */
  maxEntries?: number;
}

/** What an archive holds, checked: its files (by memory path), and its manifest. */
export interface ArchiveContents {
  files: Map<string, string>;
  manifest: Manifest;
}

const TYPE_NAMES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  K: 'a GNU long link name',
  S: 'a GNU sparse file',
  V: 'a GNU volume label',
  M: 'a GNU multi-volume part',
};

/** Reads a whole stream, refusing to hold more than `limit` bytes. */
async function readLimited(input: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    length += buffer.length;
    if (length > limit)
      throw new ArchiveError(`the archive is larger than ${limit} bytes, the most import reads`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function field(block: Buffer, offset: number, length: number): string {
  const end = block.indexOf(0, offset);
  return block.toString('utf8', offset, end === -1 || end > offset + length ? offset + length : end);
}

function parseOctal(text: string, what: string): number {
  const trimmed = text.replace(/[\s\u0000]+$/, '').trim();
  if (!/^[0-7]*$/.test(trimmed)) throw new ArchiveError(`a header's ${what} is not a number`);
  return trimmed === '' ? 0 : Number.parseInt(trimmed, 8);
}

/** The PAX records of an extended header: `path` and `size` are the ones that matter here. */
function parsePax(body: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(32, at);
    if (space === -1) break;
    const length = Number(body.toString('ascii', at, space));
    if (!Number.isSafeInteger(length) || length <= 0 || at + length > body.length) {
      throw new ArchiveError('a PAX header is damaged');
    }
    const record = body.toString('utf8', space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals === -1) throw new ArchiveError('a PAX header is damaged');
    records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}

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

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads and checks a whole archive, writing nothing: every header (checksum, type, path, size), the
 * content (UTF-8), and the manifest (present, and agreeing with every file's size and hash, no file
 * missing or extra). Resolves to the files, or rejects with an {@link ArchiveError} naming the first
 * problem.
 */
export async function readArchive(input: Readable, limits: ArchiveLimits): Promise<ArchiveContents> {
  const maxTotalBytes = limits.maxTotalBytes ?? 512 * 1024 * 1024;
  const maxEntries = limits.maxEntries ?? 1_000_000;
  // Headers, padding and the manifest come on top of the content.
  const data = await readLimited(input, maxTotalBytes + maxEntries * 3 * BLOCK + 64 * 1024 * 1024);
  const files = new Map<string, string>();
  const folders = new Set<string>();
  let manifestBody: Buffer | undefined;
  let pax: Map<string, string> | undefined;
  let longName: string | undefined;
  let total = 0;
  let entries = 0;
  let at = 0;
  let ended = false;
  while (at + BLOCK <= data.length) {
    const block = data.subarray(at, at + BLOCK);
    if (block.every((byte) => byte === 0)) {
      ended = true;
      break;
    }
    if (++entries > maxEntries) throw new ArchiveError(`the archive has more than ${maxEntries} entries`);
    let sum = 0;
    for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 32 : block[index]!;
    if (parseOctal(field(block, 148, 8), 'checksum') !== sum) {
      throw new ArchiveError(`the archive is damaged: a header's checksum is wrong (at byte ${at})`);
    }
    const type = String.fromCharCode(block[156]!);
    let size = parseOctal(field(block, 124, 12), 'size');
    if (pax?.has('size')) size = Number(pax.get('size'));
    if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError('a header gives an impossible size');
    const prefix = field(block, 345, 155);
    let name =
      pax?.get('path') ?? longName ?? (prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100));
    const start = at + BLOCK;
    const next = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x' || type === 'g' || type === 'L') {
      if (size > 1024 * 1024) throw new ArchiveError('an extended header is larger than 1 MiB');
      if (start + size > data.length)
        throw new ArchiveError('the archive ends inside an entry: it is cut short');
      const body = data.subarray(start, start + size);
      if (type === 'x') pax = parsePax(body);
      if (type === 'L') longName = body.toString('utf8').replace(/\u0000+$/, '');
      at = next;
      continue;
    }
    pax = undefined;
    longName = undefined;
    if (type in TYPE_NAMES) {
      throw new ArchiveError(
        `the archive holds ${TYPE_NAMES[type]} (${JSON.stringify(name.slice(0, 200))}); import takes regular files only`,
      );
    }
    if (type !== '0' && type !== '\u0000' && type !== '5') {
      throw new ArchiveError(`the archive holds an entry of unknown type ${JSON.stringify(type)}`);
    }
    if (type === '5') {
      if (size !== 0) throw new ArchiveError('a directory entry has content');
      const path = memoryPathOf(name);
      if (files.has(path)) throw new ArchiveError(`${path} is both a file and a directory in the archive`);
      folders.add(path);
      at = next;
      continue;
    }
    name = name.replace(/^(\.\/)+/, '');
    if (name === MANIFEST_NAME) {
      if (manifestBody) throw new ArchiveError('the archive holds two manifests');
      if (size > 64 * 1024 * 1024) throw new ArchiveError('the manifest is larger than 64 MiB');
      if (start + size > data.length)
        throw new ArchiveError('the archive ends inside the manifest: it is cut short');
      manifestBody = data.subarray(start, start + size);
      at = next;
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
    if (start + size > data.length)
      throw new ArchiveError(`the archive ends inside ${path}: it is cut short`);
    if (files.has(path)) throw new ArchiveError(`${path} appears twice in the archive`);
    if (path === `/${ARCHIVE_ROOT}`)
      throw new ArchiveError(`the archive holds a file named ${ARCHIVE_ROOT} itself`);
    let content: string;
    try {
      content = utf8.decode(data.subarray(start, start + size));
    } catch {
      throw new ArchiveError(`${path} is not UTF-8 text`);
    }
    files.set(path, content);
    at = next;
  }
  if (!ended) throw new ArchiveError('the archive has no end marker: it is cut short or not a tar archive');
  // A path cannot be a file and a directory at once (protocol section 3).
  for (const path of files.keys()) {
    for (
      let slash = path.lastIndexOf('/');
      slash > ARCHIVE_ROOT.length + 1;
      slash = path.lastIndexOf('/', slash - 1)
    ) {
      const parent = path.slice(0, slash);
      if (files.has(parent))
        throw new ArchiveError(`${parent} is a file in the archive, and also a folder of ${path}`);
    }
    if (folders.has(path)) throw new ArchiveError(`${path} is both a file and a directory in the archive`);
  }
  if (!manifestBody) {
    throw new ArchiveError(
      `the archive has no ${MANIFEST_NAME}: import only takes archives made by memdir export`,
    );
  }
  const manifest = checkManifest(manifestBody);
  const listed = new Map(manifest.files.map((file) => [file.path, file]));
  for (const [path, content] of files) {
    const entry = listed.get(path);
    if (!entry) throw new ArchiveError(`${path} is in the archive but not in its manifest`);
    const bytes = Buffer.from(content, 'utf8');
    if (bytes.length !== entry.size || sha256(bytes) !== entry.sha256) {
      throw new ArchiveError(`${path} does not match its manifest (size or SHA-256): the archive is damaged`);
    }
  }
  for (const path of listed.keys()) {
    if (!files.has(path)) throw new ArchiveError(`${path} is in the manifest but missing from the archive`);
  }
  return { files, manifest };
}

function checkManifest(body: Buffer): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ArchiveError(`${MANIFEST_NAME} is not valid JSON`);
  }
  const manifest = value as Partial<Manifest>;
  if (manifest?.format !== MANIFEST_FORMAT || manifest.version !== 1 || !Array.isArray(manifest.files)) {
    throw new ArchiveError(
      `${MANIFEST_NAME} is not a memdir manifest (format ${MANIFEST_FORMAT}, version 1)`,
    );
  }
  for (const file of manifest.files) {
    if (
      typeof file?.path !== 'string' ||
      !Number.isSafeInteger(file.size) ||
      typeof file.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(file.sha256)
    ) {
      throw new ArchiveError(`${MANIFEST_NAME} has an entry without a path, a size and a SHA-256`);
    }
  }
  return manifest as Manifest;
}

/** The checked files of an archive as a driver, for `copyStore` to write into the target store. */
export async function archiveDriver(contents: ArchiveContents): Promise<MemoryDriver> {
  const driver = createInMemoryDriver();
  for (const [path, content] of contents.files) {
    await driver.write(toDriverPath(normalizeMemoryPath(path)), content, { op: 'import' });
  }
  return driver;
}
