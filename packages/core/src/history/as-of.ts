// `store.asOf(point)`: the memory as it was at a past point, as a read-only store. A driver over the
// history (`treeAt` for the tree, `readVersion` for a file's content then) sits under the ordinary
// engine, so a view of the past renders exactly as a view of the present (listings, sizes, hidden
// names, truncation, view_range), and every change command is refused before it reaches anything.

import type { DriverCapabilities } from '../driver/capabilities.js';
import type {
  DriverCallOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverPointInTime,
  DriverTreeEntry,
  MemoryDriver,
} from '../driver/contract.js';
import { foldListing } from '../driver/listing.js';
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
    this.capabilities = { atomicRename: true, maxPathBytes: source.capabilities.maxPathBytes };
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
