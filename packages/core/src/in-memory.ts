import {
  asDriverPath,
  foldListing,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
} from './driver/index.js';
import { driverAncestors, isBeneath, utf8Length } from './path.js';
import { createMemoryStore } from './store.js';
import type { DriverEntry, MemoryDriver, MemoryStore, MemoryStoreOptions } from './types.js';

interface StoredFile {
  content: string;
  version: string;
}

/** The files of one namespace, with a count of files beneath each directory. */
class Space {
  readonly files = new Map<string, StoredFile>();
  readonly directories = new Map<string, number>();

  put(path: string, file: StoredFile): void {
    if (!this.files.has(path)) {
      for (const ancestor of driverAncestors(path)) {
        this.directories.set(ancestor, (this.directories.get(ancestor) ?? 0) + 1);
      }
    }
    this.files.set(path, file);
  }

  drop(path: string): void {
    if (!this.files.delete(path)) return;
    for (const ancestor of driverAncestors(path)) {
      const count = this.directories.get(ancestor)! - 1;
      if (count === 0) this.directories.delete(ancestor);
      else this.directories.set(ancestor, count);
    }
  }

  kind(path: string): 'file' | 'directory' | null {
    if (path === '' || this.directories.has(path)) return 'directory';
    return this.files.has(path) ? 'file' : null;
  }

  /** The files at or beneath `path`. */
  subtree(path: string): string[] {
    if (this.files.has(path)) return [path];
    if (!this.directories.has(path) && path !== '') return [];
    return [...this.files.keys()].filter((file) => isBeneath(file, path));
  }

  entries(dir: string): DriverEntry[] {
    return this.subtree(dir)
      .filter((path) => path !== dir)
      .map((path) => ({ path: asDriverPath(path), size: utf8Length(this.files.get(path)!.content) }));
  }
}

let versionCounter = 0;
function nextVersion(): string {
  versionCounter += 1;
  return String(versionCounter);
}

function spaceDriver(spaces: Map<string, Space>, key: string): MemoryDriver {
  const space = (): Space => {
    let found = spaces.get(key);
    if (!found) {
      found = new Space();
      spaces.set(key, found);
    }
    return found;
  };
  // Every method does all its work synchronously, so each is atomic with respect to the others;
  // concurrency is only what the engine interleaves between its own awaits. Nothing here resends a
  // request, so operation ids need no record.
  return {
    capabilities: { atomicRename: true },
    namespace(name) {
      return spaceDriver(spaces, key === '' ? name : `${key}/${name}`);
    },
    async read(path) {
      const files = space();
      const file = files.files.get(path);
      if (file) return { kind: 'file', content: file.content, version: file.version };
      return files.kind(path) === 'directory' ? { kind: 'directory' } : null;
    },
    async stat(path) {
      return space().kind(path);
    },
    async describe(path, { limit }) {
      const files = space();
      const file = files.files.get(path);
      if (file) return { kind: 'file', content: file.content, version: file.version };
      if (files.kind(path) !== 'directory') return null;
      return foldListing(path, files.entries(path), limit);
    },
    async write(path, content, { expect }) {
      const files = space();
      const ancestor = driverAncestors(path).find((candidate) => files.files.has(candidate));
      if (ancestor !== undefined) throw refusePathConflict(ancestor);
      if (files.directories.has(path)) throw refusePathConflict(path);
      const current = files.files.get(path);
      if (expect && ('absent' in expect ? current : current?.version !== expect.version)) {
        throw refuseConflict(path);
      }
      const version = nextVersion();
      files.put(path, { content, version });
      return { version };
    },
    async *list(dir) {
      yield* space().entries(dir);
    },
    async remove(path) {
      const files = space();
      const doomed = files.subtree(path);
      for (const file of doomed) files.drop(file);
      return doomed.length > 0;
    },
    async move(from, to) {
      const files = space();
      const moving = files.subtree(from);
      if (moving.length === 0) throw refuseNotFound(from);
      const ancestor = driverAncestors(to).find((candidate) => files.files.has(candidate));
      if (ancestor !== undefined) throw refusePathConflict(ancestor);
      if (files.kind(to) !== null) throw refuseAlreadyExists(to);
      const moved = moving.map(
        (path) => [to + path.slice(from.length), files.files.get(path)!.content] as const,
      );
      for (const path of moving) files.drop(path);
      for (const [path, content] of moved) files.put(path, { content, version: nextVersion() });
    },
    async close() {},
  };
}

/**
 * A driver that keeps files in this process's memory. Each call makes a separate backend; stores
 * made on one driver (with `namespace` options, or on `driver.namespace(name)`) share it, as
 * stores on one Redis server would.
 */
export function createInMemoryDriver(): MemoryDriver {
  return spaceDriver(new Map(), '');
}

/**
 * A memory store in this process's memory: the reference every other store is tested against, and
 * a fast store for tests of your own application. Nothing survives the process.
 */
export function createInMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return createMemoryStore(createInMemoryDriver(), options);
}
