// The memdir driver over one store of a memory stores API (API.md; `@anthropic-ai/sdk` 1.17.0's
// `beta.memoryStores`). A memdir path `a/b.md` is the API's `/a/b.md`. What each primitive costs
// and what it cannot make atomic:
// - `read`/`stat`: a path is found through a listing of its folder (`path_prefix`, `depth=1`), then
//   read by id; an id learned before is tried first (one request, checked against the path).
// - `write`: a create (`never overwrites`), and on a taken path an update of that memory; with an
//   expected version, one update by id under the read's `content_sha256` (the compare-and-swap the
//   engine retries when it loses).
// - `remove`/`move` of a file: one delete or one update of `path`; of a folder: one request per
//   memory, not atomic (capabilities.atomicRename is false).
// api.ts sends the requests, errors.ts reads the API's answers.
import type {
  DriverCallOptions,
  DriverCapabilities,
  DriverChangeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverPath,
  DriverWriteOptions,
  MemoryDriver,
} from '@memdir/core';
import {
  AbstractMemoryDriver,
  asDriverPath,
  backendFailure,
  compareUtf8,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
} from '@memdir/core/driver';
import type { ApiMemory, MemoriesApi } from './api.js';
import {
  type ApiRefusal,
  apiFailure,
  isNotFound,
  isPathConflict,
  isPreconditionFailed,
  isTooLarge,
  refusalOf,
} from './errors.js';

/** What is at a path, as a listing of its folder shows it. */
type Found = { kind: 'file'; memory: ApiMemory } | { kind: 'directory' } | null;

/** The most memory ids a driver remembers by path; past it, it forgets them all and learns again. */
const MAX_KNOWN_IDS = 10_000;

/** How many times a create that meets a file, then finds it gone, starts again. */
const WRITE_ATTEMPTS = 5;

const apiPath = (path: string): string => `/${path}`;
const driverPath = (path: string): DriverPath => asDriverPath(path.slice(1));
/** The folder prefix of the API for driver folder `dir` (`''` is the root). */
const apiFolder = (dir: string): string => (dir === '' ? '/' : `/${dir}/`);

/** A file's version: its memory id and content hash, so a compare-and-swap needs no lookup. */
const versionOf = (memory: ApiMemory): string => `${memory.id}:${memory.content_sha256}`;

/** The memory stores driver. Make one with `createMemoryStoresDriver`. */
export class MemoryStoresDriver extends AbstractMemoryDriver {
  readonly capabilities: DriverCapabilities;
  readonly identity: { readonly kind: string; readonly id: string };
  readonly #api: MemoriesApi;
  /** Memory ids by path, learned from listings: tried first, always checked against the path. */
  readonly #ids = new Map<string, string>();

  constructor(api: MemoriesApi, maxMemoryBytes: number) {
    super();
    this.#api = api;
    this.capabilities = { atomicRename: false, maxFileBytes: maxMemoryBytes };
    this.identity = { kind: 'memory-stores', id: api.storeId };
  }

  /** Whether the store still takes changes (false once archived), in one request. */
  async archived(options?: DriverCallOptions): Promise<boolean> {
    try {
      return (await this.#api.retrieveStore(options)).archived_at !== null;
    } catch (error) {
      throw apiFailure(error, false);
    }
  }

  protected openNamespace(name: string): MemoryDriver {
    throw new TypeError(
      `@memdir/memory-stores has no namespaces: a store URL names one memory store, so open the store meant for "${name}" by its own id instead.`,
    );
  }

  async read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null> {
    if (path === '') return { kind: 'directory' };
    const found = await this.#find(path, true, options);
    if (found?.kind !== 'file') return found;
    return { kind: 'file', content: found.memory.content ?? '', version: versionOf(found.memory) };
  }

  async stat(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null> {
    if (path === '') return 'directory';
    return (await this.#find(path, false, options))?.kind ?? null;
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const expect = options.expect;
    if (expect !== undefined && 'version' in expect) {
      const cut = expect.version.lastIndexOf(':');
      const id = expect.version.slice(0, cut);
      try {
        return {
          version: versionOf(await this.#api.update(id, { content }, expect.version.slice(cut + 1), options)),
        };
      } catch (error) {
        const refusal = refusalOf(error);
        // Gone, or changed since it was read: the engine reads again and retries.
        if (isNotFound(refusal) || isPreconditionFailed(refusal)) throw refuseConflict(path);
        throw this.#changeFailure(error);
      }
    }
    for (let attempt = 1; ; attempt += 1) {
      let inTheWay: string | undefined;
      try {
        const memory = await this.#api.create(apiPath(path), content, options);
        this.#learn(path, memory.id);
        return { version: versionOf(memory) };
      } catch (error) {
        const refusal = refusalOf(error);
        if (!isPathConflict(refusal)) throw this.#changeFailure(error);
        const conflict = await this.#conflictOf(path, refusal!, options);
        if (conflict.kind !== 'same') throw refusePathConflict(conflict.path);
        if (expect !== undefined) throw refuseConflict(path);
        inTheWay = conflict.id;
      }
      // A file is at the path: replace its content (no precondition: "create or replace").
      try {
        if (inTheWay !== undefined) {
          const memory = await this.#api.update(inTheWay, { content }, undefined, options);
          if (memory.path === apiPath(path)) return { version: versionOf(memory) };
        }
      } catch (error) {
        if (!isNotFound(refusalOf(error))) throw this.#changeFailure(error);
      }
      // Deleted or moved meanwhile: start again, a few times.
      this.#ids.delete(path);
      if (attempt >= WRITE_ATTEMPTS) throw refuseConflict(path);
    }
  }

  async *list(dir: DriverPath, options?: DriverCallOptions): AsyncIterable<DriverEntry> {
    let page: string | null = null;
    do {
      const result = await this.#listPage(apiFolder(dir), 0, page, options);
      for (const item of result.data) {
        if (item.type !== 'memory') continue;
        this.#learn(driverPath(item.path), item.id);
        yield { path: driverPath(item.path), size: item.content_size_bytes };
      }
      page = result.next;
    } while (page !== null);
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const found = await this.#find(path, false, options);
    if (found === null) return false;
    if (found.kind === 'file') return this.#delete(path, found.memory.id, options);
    // A folder: one delete per memory beneath it, not one atomic step.
    let removed = false;
    for (const memory of await this.#memoriesUnder(path, options)) {
      removed = (await this.#delete(driverPath(memory.path), memory.id, options)) || removed;
    }
    return removed;
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const source = await this.#find(from, false, options);
    if (source === null) throw refuseNotFound(from);
    if ((await this.#find(to, false, options)) !== null) throw refuseAlreadyExists(to);
    if (source.kind === 'file') {
      await this.#rename(from, source.memory.id, to, options);
      return;
    }
    // A folder: one update of `path` per memory beneath it, not one atomic step.
    for (const memory of await this.#memoriesUnder(from, options)) {
      const path = driverPath(memory.path);
      await this.#rename(path, memory.id, asDriverPath(to + path.slice(from.length)), options);
    }
  }

  /** Remembers that memory `id` is at `path` (checked again before it is used). */
  #learn(path: string, id: string): void {
    if (this.#ids.size >= MAX_KNOWN_IDS) this.#ids.clear();
    this.#ids.set(path, id);
  }

  async close(): Promise<void> {
    // The SDK's client holds no connection of its own (it uses the global fetch).
    this.#ids.clear();
  }

  /** Moves memory `id` (at `from`) to `to`, refusing as `move` does. */
  async #rename(from: DriverPath, id: string, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    try {
      await this.#api.update(id, { path: apiPath(to) }, undefined, options);
      this.#ids.delete(from);
      this.#learn(to, id);
    } catch (error) {
      const refusal = refusalOf(error);
      if (isNotFound(refusal)) throw refuseNotFound(from);
      if (!isPathConflict(refusal)) throw this.#changeFailure(error);
      const conflict = await this.#conflictOf(to, refusal!, options);
      throw conflict.kind === 'ancestor' ? refusePathConflict(conflict.path) : refuseAlreadyExists(to);
    }
  }

  /** Deletes memory `id` at `path`: false when it was already gone. */
  async #delete(path: DriverPath, id: string, options: DriverChangeOptions): Promise<boolean> {
    this.#ids.delete(path);
    try {
      await this.#api.delete(id, undefined, options);
      return true;
    } catch (error) {
      if (isNotFound(refusalOf(error))) return false;
      throw this.#changeFailure(error);
    }
  }

  /**
   * What stands in the way of a file at `path`, from the path a 409 named (or, when the API named
   * none, from lookups): a file at `path` itself (with its id), a file at one of its ancestors
   * (`ancestor`, that path), or files beneath it (`beneath`: `path` is a folder).
   */
  async #conflictOf(
    path: DriverPath,
    refusal: ApiRefusal,
    options: DriverCallOptions,
  ): Promise<{ kind: 'same'; id: string | undefined } | { kind: 'ancestor' | 'beneath'; path: DriverPath }> {
    const { conflictingPath, conflictingId } = refusal;
    if (conflictingPath?.startsWith('/')) {
      const other = driverPath(conflictingPath);
      if (other === path) {
        // An API that names the path but not the memory: look its id up.
        if (conflictingId !== undefined) return { kind: 'same', id: conflictingId };
        const found = await this.#find(path, false, options);
        return { kind: 'same', id: found?.kind === 'file' ? found.memory.id : undefined };
      }
      if (path.startsWith(`${other}/`)) return { kind: 'ancestor', path: other };
      return { kind: 'beneath', path };
    }
    const found = await this.#find(path, false, options);
    if (found?.kind === 'file') return { kind: 'same', id: found.memory.id };
    if (found?.kind === 'directory') return { kind: 'beneath', path };
    const parts = path.split('/');
    for (let end = 1; end < parts.length; end += 1) {
      const ancestor = asDriverPath(parts.slice(0, end).join('/'));
      if ((await this.#find(ancestor, false, options))?.kind === 'file')
        return { kind: 'ancestor', path: ancestor };
    }
    return { kind: 'same', id: undefined };
  }

  /**
   * What is at `path` (never `''`): the memory id learned before, read and checked against the
   * path; else the listing of its folder, one level deep, read until it passes the path (the
   * listing is in the order of the paths' UTF-8 bytes). With `content`, a file is read in full.
   */
  async #find(path: DriverPath, content: boolean, options?: DriverCallOptions): Promise<Found> {
    const known = this.#ids.get(path);
    if (known !== undefined) {
      const memory = await this.#retrieve(known, content, options);
      if (memory !== null && memory.path === apiPath(path)) return { kind: 'file', memory };
      this.#ids.delete(path);
    }
    const slash = path.lastIndexOf('/');
    const folder = apiFolder(slash === -1 ? '' : path.slice(0, slash));
    const asFile = apiPath(path);
    const asFolder = `${asFile}/`;
    let page: string | null = null;
    do {
      const result = await this.#listPage(folder, 1, page, options);
      for (const item of result.data) {
        if (item.type === 'memory' && item.path === asFile) {
          this.#learn(path, item.id);
          if (!content) return { kind: 'file', memory: item };
          const memory = await this.#retrieve(item.id, true, options);
          // Deleted or moved between the listing and the read: as if it was never listed.
          return memory !== null && memory.path === asFile ? { kind: 'file', memory } : null;
        }
        if (item.type === 'memory_prefix' && item.path === asFolder) return { kind: 'directory' };
        if (compareUtf8(item.path, asFolder) > 0) return null;
      }
      page = result.next;
    } while (page !== null);
    return null;
  }

  /** Every memory beneath folder `dir`, read before anything changes. */
  async #memoriesUnder(dir: DriverPath, options: DriverCallOptions): Promise<ApiMemory[]> {
    const memories: ApiMemory[] = [];
    let page: string | null = null;
    do {
      const result = await this.#listPage(apiFolder(dir), 0, page, options);
      for (const item of result.data) if (item.type === 'memory') memories.push(item);
      page = result.next;
    } while (page !== null);
    return memories;
  }

  async #listPage(prefix: string, depth: number, page: string | null, options?: DriverCallOptions) {
    try {
      return await this.#api.list(prefix, depth, page, options);
    } catch (error) {
      throw apiFailure(error, false);
    }
  }

  /** Memory `id`, or null when it is gone. */
  async #retrieve(id: string, full: boolean, options?: DriverCallOptions): Promise<ApiMemory | null> {
    try {
      return await this.#api.retrieve(id, full, options);
    } catch (error) {
      if (isNotFound(refusalOf(error))) return null;
      throw apiFailure(error, false);
    }
  }

  /** A change the API refused for a reason that is no refusal of the contract. */
  #changeFailure(error: unknown) {
    if (isTooLarge(refusalOf(error))) {
      return backendFailure({
        detail:
          'the memory is larger than the API takes (lower maxFileBytes, or raise maxMemoryBytes to match)',
        reason: 'misconfigured',
        cause: new Error('memory stores API: content too large'),
      });
    }
    return apiFailure(error, true);
  }
}
