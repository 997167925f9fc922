// `store.asOf(point)`: the memory as it was at a past point, as a read-only store. A driver over the
// history (`treeAt` for the tree, `readVersion` for a file's content then) sits under the ordinary
// engine, so a view of the past renders exactly as a view of the present (listings, sizes, hidden
// names, truncation, view_range), and every change command is refused before it reaches anything.
// It also gives the records of then (`readRecord`, `locate`, `listRecords`), for `asOf`'s `records`:
// each file with the id, hash, size and version it had then, and its times from its history.

import type { DriverCapabilities } from '../driver/capabilities.js';
import type {
  DriverCallOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverPointInTime,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverTreeEntry,
  MemoryDriver,
} from '../driver/contract.js';
import { foldListing } from '../driver/listing.js';
import { pageOfRecords } from '../driver/records.js';
import { MemoryToolError } from '../errors.js';
import type { DriverPath } from '../path.js';

function readOnly(): never {
  throw new MemoryToolError('READ_ONLY', 'A view of the past cannot be changed.');
}

/** A read-only driver whose files are `source`'s at `at`. */
export class PastDriver implements MemoryDriver {
  readonly capabilities: DriverCapabilities;
  readonly identity: MemoryDriver['identity'];

  constructor(
    readonly source: MemoryDriver,
    readonly at: DriverPointInTime,
  ) {
    this.capabilities = { atomicRename: true, maxPathBytes: source.capabilities.maxPathBytes, records: true };
    this.identity = source.identity;
  }

  namespace(): MemoryDriver {
    throw new TypeError('A view of the past has no namespaces: call asOf on a store of the namespace.');
  }

  /** The tree then, at or beneath `path`, under the engine's deadline and signal for this call. */
  #tree(path: DriverPath, options: DriverCallOptions | undefined): Promise<readonly DriverTreeEntry[]> {
    // One literal with the signal as a getter: reading it is what makes the engine's AbortController.
    return this.source.treeAt!(this.at, {
      deadline: options?.deadline,
      get signal() {
        return options?.signal;
      },
      stats: options?.stats,
      path,
    });
  }

  /** The file at `path` then, when the tree has one there and its content is still kept. */
  async #file(
    tree: readonly DriverTreeEntry[],
    path: DriverPath,
    options: DriverCallOptions | undefined,
  ): Promise<DriverFile | null | undefined> {
    const entry = tree.find((candidate) => candidate.path === path);
    if (!entry) return undefined;
    const version = await this.source.readVersion!(entry.version, options);
    // Redacted since the tree was read: the file is gone from the past too.
    if (version?.content == null) return null;
    return { kind: 'file', content: version.content, version: entry.version };
  }

  async read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    if (path === '') return { kind: 'directory' };
    const tree = await this.#tree(path, options);
    const file = await this.#file(tree, path, options);
    if (file !== undefined) return file;
    return tree.length > 0 ? { kind: 'directory' } : null;
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const tree = await this.#tree(path, options);
    const file = path === '' ? undefined : await this.#file(tree, path, options);
    if (file !== undefined) return file;
    if (path !== '' && tree.length === 0) return null;
    return foldListing(path, tree.map(entryOf), options.limit);
  }

  async *list(dir: DriverPath, options?: DriverCallOptions): AsyncIterable<DriverEntry> {
    for (const entry of await this.#tree(dir, options)) if (entry.path !== dir) yield entryOf(entry);
  }

  /** The record of the file at `path` then, with its content when asked for. */
  async readRecord(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    if (path === '') return null;
    const tree = await this.#tree(path, options);
    const entry = tree.find((candidate) => candidate.path === path);
    return entry ? this.#record(entry, options) : null;
  }

  /** The record of the file that had id `fileId` then, with its content when asked for. */
  async locate(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null> {
    const tree = await this.#tree('' as DriverPath, options);
    const entry = tree.find((candidate) => candidate.fileId === fileId);
    return entry ? this.#record(entry, options) : null;
  }

  /**
   * A page of the records of then, as `listRecords` pages the present: the tree is read whole (at or
   * beneath `query.under`) and paged in memory; only the page's files have their times looked up.
   */
  async listRecords(query: DriverRecordQuery, options?: DriverCallOptions): Promise<DriverRecordPage> {
    const tree = await this.#tree((query.under ?? '') as DriverPath, options);
    const page = pageOfRecords(
      tree.map((entry) => ({ ...entry, kind: 'file' as const })),
      query,
    );
    const items = await Promise.all(
      page.items.map((item) => (item.kind === 'folder' ? item : this.#record(item, options))),
    );
    return { items, next: page.next };
  }

  /**
   * A file of the tree as a record: the id, hash, size and version it had then; `changedAt` the time
   * of that version, `createdAt` the time of the file's oldest kept version (its creation, unless
   * retention pruned it, or it has more than 1,000 versions), both from one page of its history.
   */
  async #record(entry: DriverTreeEntry, options: DriverRecordOptions | undefined): Promise<DriverRecord> {
    const page = await this.source.listVersions!({ fileId: entry.fileId, limit: 1000 }, options);
    let changedAt: number | null | undefined = page.versions.find(
      (version) => version.id === entry.version,
    )?.at;
    const oldest = page.versions[page.versions.length - 1];
    let content: string | undefined;
    if (changedAt === undefined || options?.content === true) {
      const version = await this.source.readVersion!(entry.version, options);
      changedAt = version?.at ?? null;
      content = version?.content ?? undefined;
    }
    const record: DriverRecord = {
      kind: 'file',
      path: entry.path,
      fileId: entry.fileId,
      sha256: entry.sha256,
      size: entry.size,
      createdAt: oldest?.at ?? changedAt ?? null,
      changedAt: changedAt ?? null,
      versionId: entry.version,
    };
    // Redacted since the tree was read: no content to give.
    return content === undefined ? record : { ...record, content };
  }

  write(): Promise<{ version: string }> {
    return readOnly();
  }

  remove(): Promise<boolean> {
    return readOnly();
  }

  move(): Promise<void> {
    return readOnly();
  }

  async close(): Promise<void> {}
}

function entryOf(entry: DriverTreeEntry): DriverEntry {
  return { path: entry.path, size: entry.size };
}
