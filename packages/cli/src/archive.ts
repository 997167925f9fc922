// `memdir export`: a store's files as a standard tar archive (POSIX ustar, with PAX headers for long
// or non-ASCII names), which `tar -tf` lists and `tar -xf` extracts into `memories/...`. The archive
// ends with a manifest (`memdir-manifest.json`: every file's path, size and SHA-256), which `import`
// (archive-read.ts) checks, with every header, before it writes anything.
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { DriverPath, MemoryDriver } from '@memdir/core';
import { type ExportedHistory, exportHistory } from './archive-history.js';
import { MANIFEST_FORMAT, MANIFEST_NAME, type Manifest, type ManifestFile } from './archive-manifest.js';
import { ARCHIVE_ROOT } from './archive-read.js';

export { ArchiveError } from './archive-error.js';
export { MANIFEST_NAME, type Manifest, type ManifestFile } from './archive-manifest.js';
export { ARCHIVE_ROOT, type ArchiveLimits, type StagedArchive, stageArchive } from './archive-read.js';

const BLOCK = 512;

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
  /** `history`: the versions (counted in `files`), then `files`. */
  phase: 'history' | 'files';
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/** Files `writeArchive` reads at once by default. */
export const DEFAULT_EXPORT_CONCURRENCY = 8;

/** A read of one file, settled either way (so that none rejects unobserved while earlier ones are written). */
type Read = { entry: { path: DriverPath; size: number } } & (
  | { node: Awaited<ReturnType<MemoryDriver['read']>> }
  | { error: unknown }
);

/**
 * Writes every file of `driver` (hidden ones included) to `output` as a tar archive of
 * `memories/...` ending with the manifest, and resolves to the manifest. Up to `concurrency` files
 * are read at once, ahead of the one being written, and written in path order: memory holds those
 * files, and the paths, sizes and hashes of the store. With `history` (the driver must keep one),
 * every version goes first, in `memdir-history/` chunks (archive-history.ts), and the manifest is
 * of version 2, with each file's id; without, it is of version 1, which every memdir reads.
 */
export async function writeArchive(
  driver: MemoryDriver,
  output: Writable,
  options: {
    namespace?: string | undefined;
    onProgress?: (progress: ArchiveProgress) => void;
    /** Files read at once. @default 8 */
    concurrency?: number | undefined;
    /** Write the history too. @default false */
    history?: boolean | undefined;
  } = {},
): Promise<Manifest> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_EXPORT_CONCURRENCY);
  // The history first, so that the files written next are at least as new as its newest version.
  let history: ExportedHistory | undefined;
  if (options.history) {
    history = await exportHistory(
      driver,
      (name, body) =>
        write(output, Buffer.concat([...entryHeader(name, body.length, '0', 0o644), pad(body)])),
      {
        concurrency,
        progress: (written, total) =>
          options.onProgress?.({
            phase: 'history',
            files: written,
            totalFiles: total,
            bytes: 0,
            totalBytes: 0,
          }),
      },
    );
  }
  const entries: { path: DriverPath; size: number }[] = [];
  for await (const entry of driver.list('' as DriverPath)) entries.push(entry);
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  const files: ManifestFile[] = [];
  const folders = new Set<string>();
  let written = 0;
  const reads: Promise<Read>[] = [];
  let next = 0;
  const readAhead = () => {
    const entry = entries[next++];
    if (entry === undefined) return;
    reads.push(
      driver.read(entry.path).then(
        (node) => ({ entry, node }),
        (error: unknown) => ({ entry, error }),
      ),
    );
  };
  for (let index = 0; index < concurrency; index++) readAhead();
  await write(output, Buffer.concat(entryHeader(`${ARCHIVE_ROOT}/`, 0, '5', 0o755)));
  while (reads.length > 0) {
    const read = await reads.shift()!;
    readAhead();
    if ('error' in read) throw read.error;
    const { entry, node } = read;
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
    const ids = history?.tree.get(entry.path);
    files.push({
      path: `/${ARCHIVE_ROOT}/${entry.path}`,
      size: content.length,
      sha256: sha256(content),
      ...(ids === undefined ? {} : { fileId: ids.fileId, version: ids.version }),
    });
    written += content.length;
    options.onProgress?.({
      phase: 'files',
      files: files.length,
      totalFiles: entries.length,
      bytes: written,
      totalBytes,
    });
  }
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: history === undefined ? 1 : 2,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    files,
    totalBytes: written,
    ...(history === undefined ? {} : { history: history.history }),
  };
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  await write(output, Buffer.concat([...entryHeader(MANIFEST_NAME, body.length, '0', 0o644), pad(body)]));
  await write(output, Buffer.alloc(BLOCK * 2));
  return manifest;
}
