import { applyEdit } from '../driver/apply-edit.js';
import { AbstractMemoryDriver } from '../driver/base.js';
import { foldListing } from '../driver/listing.js';
import { judgeQuota } from '../driver/quota.js';
import {
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
} from '../driver/refusals.js';
import { driverAncestors, utf8Length } from '../path.js';
import { createOwningStore, type MemdirStore } from '../store.js';
import type {
  DriverCapabilities,
  DriverDescribeOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverPath,
  DriverWriteOptions,
  MemoryDriver,
  MemoryStoreOptions,
} from '../types.js';
import { Space } from './space.js';

let versionCounter = 0;
function nextVersion(): string {
  versionCounter += 1;
  return String(versionCounter);
}

/** What every namespace of one in-memory backend shares: the spaces, by namespace chain. */
class Backend {
  readonly spaces = new Map<string, Space>();

  space(key: string): Space {
    let found = this.spaces.get(key);
    if (!found) {
      found = new Space();
      this.spaces.set(key, found);
    }
    return found;
  }
}

const CAPABILITIES: DriverCapabilities = { atomicRename: true, quotas: true };

/**
 * The in-memory driver over one namespace. Every method does all its work synchronously, so each is
 * atomic with respect to the others; concurrency is only what the engine interleaves between its
 * own awaits. Nothing here resends a request, so operation ids need no record.
 */
class InMemoryDriver extends AbstractMemoryDriver {
  readonly capabilities = CAPABILITIES;
  readonly identity = { kind: 'memory', id: 'memory' } as const;

  constructor(
    readonly backend: Backend,
    /** The namespace chain: '' for none, `a/b` for namespace b inside a (names hold no '/'). */
    readonly key: string,
  ) {
    super();
  }

  protected openNamespace(name: string): MemoryDriver {
    return new InMemoryDriver(this.backend, this.key === '' ? name : `${this.key}/${name}`);
  }

  get #space(): Space {
    return this.backend.space(this.key);
  }

  async read(path: DriverPath): Promise<DriverFile | { kind: 'directory' } | null> {
    const space = this.#space;
    const file = space.files.get(path);
    if (file) return { kind: 'file', content: file.content, version: file.version };
    return space.kind(path) === 'directory' ? { kind: 'directory' } : null;
  }

  async stat(path: DriverPath): Promise<'file' | 'directory' | null> {
    return this.#space.kind(path);
  }

  async describe(
    path: DriverPath,
    { limit }: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const space = this.#space;
    const file = space.files.get(path);
    if (file) return { kind: 'file', content: file.content, version: file.version };
    if (space.kind(path) !== 'directory') return null;
    return foldListing(path, space.entries(path), limit);
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const space = this.#space;
    const ancestor = space.fileAbove(path);
    if (ancestor !== undefined) throw refusePathConflict(ancestor);
    if (space.directories.has(path)) throw refusePathConflict(path);
    const current = space.files.get(path);
    const { expect } = options;
    if (expect && ('absent' in expect ? current : current?.version !== expect.version)) {
      throw refuseConflict(path);
    }
    const breach = judgeQuota(options.quota, {
      bytes: space.bytes,
      files: space.files.size,
      addedBytes: utf8Length(content) - (current?.size ?? 0),
      newFile: current === undefined,
    });
    if (breach) throw refuseQuota(path, breach);
    const version = nextVersion();
    space.put(path, content, version);
    return { version };
  }

  async edit(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome> {
    const space = this.#space;
    const file = space.files.get(path);
    if (!file) return { outcome: 'missing', kind: space.kind(path) === 'directory' ? 'directory' : null };
    const applied = applyEdit(file.content, edit, options.maxFileBytes);
    if (applied.content === null) return applied.outcome;
    const breach = judgeQuota(options.quota, {
      bytes: space.bytes,
      files: space.files.size,
      addedBytes: utf8Length(applied.content) - file.size,
      newFile: false,
    });
    if (breach) return { outcome: 'quota', breach };
    space.put(path, applied.content, nextVersion());
    return applied.outcome;
  }

  async *list(dir: DriverPath): AsyncIterable<DriverEntry> {
    yield* this.#space.entries(dir);
  }

  async remove(path: DriverPath): Promise<boolean> {
    const space = this.#space;
    const doomed = space.subtree(path);
    for (const file of doomed) space.drop(file);
    return doomed.length > 0;
  }

  async move(from: DriverPath, to: DriverPath): Promise<void> {
    const space = this.#space;
    const moving = space.subtree(from);
    if (moving.length === 0) throw refuseNotFound(from);
    const ancestor = driverAncestors(to).find((candidate) => space.files.has(candidate));
    if (ancestor !== undefined) throw refusePathConflict(ancestor);
    if (space.kind(to) !== null) throw refuseAlreadyExists(to);
    const moved = moving.map(
      (path) => [to + path.slice(from.length), space.files.get(path)!.content] as const,
    );
    for (const path of moving) space.drop(path);
    for (const [path, content] of moved) space.put(path, content, nextVersion());
  }

  async close(): Promise<void> {}
}

/**
 * A driver that keeps files in this process's memory. Each call makes a separate backend; stores
 * made on one driver (with `namespace` options, or on `driver.namespace(name)`) share it, as
 * stores on one Redis server would.
 */
export function createInMemoryDriver(): MemoryDriver {
  return new InMemoryDriver(new Backend(), '');
}

/**
 * A memory store in this process's memory: the reference every other store is tested against, and
 * a fast store for tests of your own application. Nothing survives the process.
 */
export function createInMemoryStore(options: MemoryStoreOptions = {}): MemdirStore {
  return createOwningStore(createInMemoryDriver(), options);
}
