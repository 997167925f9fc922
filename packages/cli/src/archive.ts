// `memdir export`: a store's files as a standard tar archive (POSIX ustar, with PAX headers for long
// or non-ASCII names, written by tar-stream through archive-tar.ts), which `tar -tf` lists and
// `tar -xf` extracts into `memories/...`. The archive
// ends with a manifest (`memdir-manifest.json`: every file's path, size and SHA-256), which `import`
// (archive-read.ts) checks, with every header, before it writes anything.
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { DriverPath, MemoryDriver } from '@memdir/core';
import { type ExportedHistory, exportHistory } from './archive-history.js';
import { MANIFEST_FORMAT, MANIFEST_NAME, type Manifest, type ManifestFile } from './archive-manifest.js';
import { ARCHIVE_ROOT } from './archive-read.js';
import { TarWriter } from './archive-tar.js';

export { ArchiveError } from './archive-error.js';
export { MANIFEST_NAME, type Manifest, type ManifestFile } from './archive-manifest.js';
export { ARCHIVE_ROOT, type ArchiveLimits, type StagedArchive, stageArchive } from './archive-read.js';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
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
  const tar = new TarWriter(output);
  try {
    return await writeEntries(driver, tar, concurrency, options);
  } catch (error) {
    tar.abort();
    throw error;
  }
}

async function writeEntries(
  driver: MemoryDriver,
  tar: TarWriter,
  concurrency: number,
  options: Parameters<typeof writeArchive>[2] & {},
): Promise<Manifest> {
  // The history first, so that the files written next are at least as new as its newest version.
  let history: ExportedHistory | undefined;
  if (options.history) {
    history = await exportHistory(driver, (name, body) => tar.file(name, body), {
      concurrency,
      progress: (written, total) =>
        options.onProgress?.({
          phase: 'history',
          files: written,
          totalFiles: total,
          bytes: 0,
          totalBytes: 0,
        }),
    });
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
  await tar.folder(`${ARCHIVE_ROOT}/`);
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
      await tar.folder(`${ARCHIVE_ROOT}/${folder}/`);
    }
    const content = Buffer.from(node.content, 'utf8');
    await tar.file(`${ARCHIVE_ROOT}/${entry.path}`, content);
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
  await tar.file(MANIFEST_NAME, body);
  await tar.end();
  return manifest;
}
