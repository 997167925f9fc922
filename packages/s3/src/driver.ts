import type { S3Client } from '@aws-sdk/client-s3';
import {
  type DriverCapabilities,
  type DriverChangeOptions,
  type DriverDescribeOptions,
  type DriverEntry,
  type DriverFile,
  type DriverListing,
  type DriverListOptions,
  type DriverPath,
  type DriverWriteOptions,
  type MemoryDriver,
  validateNamespace,
} from '@memdir/core';
import { asDriverPath, ListingFold, refuseConflict } from '@memdir/core/driver';
import { Bucket, type ListPage, opsHeader } from './bucket.js';
import { type ClientOptions, createClient } from './client.js';
import { S3Context } from './context.js';
import { decodeContent, isTombstone, updateFile } from './edits.js';
import { hiddenSubtree, KeySpace, normalizePrefix } from './keys.js';
import { isListedTombstone, listObjects } from './listing.js';
import { anythingBeneath, createPath, isLiveFile, movePath, removePath, type Space } from './structure.js';

/** Options of {@link createS3Driver}. */
export interface S3DriverOptions extends ClientOptions {
  /**
   * Your own `S3Client`, used as it is (its retries, timeouts and credentials) and never closed by
   * the store. Without it the store builds one from the options below and the SDK's usual
   * environment (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles...), and closes it in `close()`.
   * @default a client built by the store
   */
  client?: S3Client | undefined;
  /** The bucket. It must exist; the store creates nothing but objects. */
  bucket: string;
  /**
   * The key prefix under which the store keeps everything (`agents/alice` or `agents/alice/`), so
   * one bucket can hold many stores. Memory files sit at `{prefix}memories/...`.
   * @default '' (the bucket's top)
   */
  prefix?: string | undefined;
  /**
   * How long a store's lock on a namespace (held while it creates a path, deletes or renames)
   * lasts without renewal. A store that crashes while holding it blocks those changes in its
   * namespace for this long; then the next store finishes what the crashed one left half done.
   * @default 10000
   */
  leaseTtlMs?: number | undefined;
}

/** The largest object one PUT can write. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 3;
const DEFAULT_LEASE_TTL_MS = 10_000;

/**
 * A name whose last segment has a dot past its first character (`notes.md`) is most likely a file:
 * `describe` reads it first (one request). Other names (`notes`, `.archive`) are most likely
 * folders: it sends the GET and the listing together (one round trip, two requests).
 */
function looksLikeFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.lastIndexOf('.') > 0;
}

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `Invalid @memdir/s3 option ${name}: expected a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

class S3Driver implements MemoryDriver {
  readonly capabilities: DriverCapabilities;
  readonly #space: Space;
  readonly #ownsContext: boolean;

  constructor(space: Space, ownsContext: boolean) {
    this.#space = space;
    this.#ownsContext = ownsContext;
    this.capabilities = {
      atomicRename: false,
      replaySafe: true,
      maxPathBytes: space.keys.maxPathBytes,
      maxFileBytes: MAX_OBJECT_BYTES,
    };
  }

  namespace(name: string): MemoryDriver {
    return namespaced(this.#space, name, false);
  }

  get #bucket(): Bucket {
    return this.#space.context.bucket;
  }

  /** The file at `path`, or null for nothing or a move's stand-in. */
  async #file(path: string, signal: AbortSignal | undefined): Promise<DriverFile | null> {
    const key = this.#space.keys.file(path);
    const object = await this.#bucket.get(key, signal);
    if (object === null || isTombstone(object)) return null;
    this.#space.context.carried.remember(key, object.etag, object.ops);
    return { kind: 'file', content: decodeContent(object), version: object.etag };
  }

  async read(path: DriverPath, options: { signal?: AbortSignal | undefined } = {}) {
    if (path === '') return { kind: 'directory' } as const;
    const file = await this.#file(path, options.signal);
    if (file) return file;
    return (await anythingBeneath(this.#space, path, options.signal))
      ? ({ kind: 'directory' } as const)
      : null;
  }

  async stat(path: DriverPath, options: { signal?: AbortSignal | undefined } = {}) {
    if (path === '') return 'directory' as const;
    const head = await this.#bucket.head(this.#space.keys.file(path), options.signal);
    if (isLiveFile(head)) return 'file' as const;
    return (await anythingBeneath(this.#space, path, options.signal)) ? ('directory' as const) : null;
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const { signal, limit } = options;
    const prefix = this.#space.keys.beneath(path);
    let firstPage: Promise<ListPage> | undefined;
    if (path !== '') {
      if (!looksLikeFile(path)) {
        firstPage = this.#bucket.list(prefix, undefined, signal);
        // Settled below, or dropped when the GET finds a file.
        firstPage.catch(() => {});
      }
      const file = await this.#file(path, signal);
      if (file) return file;
    }
    const fold = new ListingFold(path);
    const { keys } = this.#space;
    for await (const object of listObjects(this.#bucket, prefix, { skipHidden: true, signal, firstPage })) {
      const file = keys.pathOf(object.key);
      if (file === undefined || isListedTombstone(object)) continue;
      fold.add({ path: asDriverPath(file), size: object.size });
    }
    if (fold.added === 0) return path === '' ? fold.result(limit) : null;
    return fold.result(limit);
  }

  async *list(dir: DriverPath, options: DriverListOptions = {}): AsyncIterable<DriverEntry> {
    const { keys } = this.#space;
    const prefix = keys.beneath(dir);
    let skipped: string | undefined;
    for await (const object of listObjects(this.#bucket, prefix, options)) {
      const path = keys.pathOf(object.key);
      if (path === undefined || isListedTombstone(object)) continue;
      if (options.skipHidden) {
        // One entry per hidden subtree stands for all of it (see DriverListOptions.skipHidden).
        const hidden = hiddenSubtree(object.key.slice(prefix.length));
        if (hidden !== undefined) {
          const entry = prefix.slice(keys.files.length) + hidden.slice(0, -1);
          if (entry === skipped) continue;
          skipped = entry;
          yield { path: asDriverPath(entry), size: 0 };
          continue;
        }
      }
      yield { path: asDriverPath(path), size: object.size };
    }
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const { receipts } = this.#space.context;
    if (receipts.has(options.op)) return receipts.get(options.op);
    return receipts.record(options.op, await this.#write(path, content, options));
  }

  async #write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const { expect, op, signal } = options;
    const { context, keys } = this.#space;
    const { bucket, carried } = context;
    const key = keys.file(path);
    await context.behaviour(signal);
    if (expect && 'version' in expect) {
      // An edit in place: a file that exists has no file above it and is no directory.
      const ops = opsHeader(op, carried.of(key, expect.version));
      const written = await bucket.put(key, content, { ifMatch: expect.version, ops }, signal);
      if (typeof written === 'string') {
        carried.remember(key, written, ops.split(' '));
        return { version: written };
      }
      // The SDK resent a write that had landed, or this call is itself a replay of one.
      const now = await bucket.head(key, signal);
      if (isLiveFile(now) && now.ops.includes(op)) return { version: now.etag };
      throw refuseConflict(path);
    }
    if (expect === undefined) {
      // Over a file that is there: no lease needed, for the same reason.
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = await bucket.head(key, signal);
        if (!isLiveFile(now)) break;
        if (now.ops.includes(op)) return { version: now.etag };
        const ops = opsHeader(op, now.ops);
        const written = await bucket.put(key, content, { ifMatch: now.etag, ops }, signal);
        if (typeof written === 'string') {
          carried.remember(key, written, ops.split(' '));
          return { version: written };
        }
      }
    }
    if (expect !== undefined) {
      // A file that is there refuses at once, without the lease: racing creators that lost do not
      // queue for it (the refusal holds at the moment of this HEAD).
      const now = await bucket.head(key, signal);
      if (isLiveFile(now)) {
        if (now.ops.includes(op)) return { version: now.etag };
        throw refuseConflict(path);
      }
    }
    return { version: await createPath(this.#space, path, content, expect !== undefined, op, signal) };
  }

  async update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    const { receipts } = this.#space.context;
    if (receipts.has(options.op)) return receipts.get(options.op);
    const kind = await updateFile(this.#space, path, edit, options.op, options.signal);
    // Only a call that changed something is recorded: 'directory' and null change nothing.
    return kind === 'file' ? receipts.record(options.op, kind) : kind;
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const { receipts } = this.#space.context;
    if (receipts.has(options.op)) return receipts.get(options.op);
    const removed = await removePath(this.#space, path, options.op, options.signal);
    return removed ? receipts.record(options.op, removed) : removed;
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const { receipts } = this.#space.context;
    if (receipts.has(options.op)) return;
    await movePath(this.#space, from, to, options.op, options.signal);
    receipts.record(options.op, undefined);
  }

  async close(): Promise<void> {
    if (this.#ownsContext) this.#space.context.close();
  }
}

function namespaced(space: Space, name: string, ownsContext: boolean): MemoryDriver {
  return new S3Driver(
    { context: space.context, keys: space.keys.child(validateNamespace(name)) },
    ownsContext,
  );
}

/** What {@link openDriver} gives: the root driver, and the one of `namespace` closing it. */
export function openDriver(options: S3DriverOptions, namespace: string | undefined): MemoryDriver {
  const { client, bucket, prefix, leaseTtlMs, ...clientOptions } = options;
  if (typeof bucket !== 'string' || bucket === '') {
    throw new TypeError(
      'Invalid @memdir/s3 option bucket: name the bucket, e.g. { bucket: "my-agent-memory" }',
    );
  }
  const keys = new KeySpace(normalizePrefix(prefix));
  const ttl = positiveInteger(leaseTtlMs, 'leaseTtlMs', DEFAULT_LEASE_TTL_MS);
  const s3 = client ?? createClient(clientOptions);
  const context = new S3Context({
    bucket: new Bucket(s3, bucket),
    prefix: keys.base,
    leaseTtlMs: ttl,
    release: client ? () => {} : () => s3.destroy(),
  });
  const root: Space = { context, keys };
  return namespace === undefined ? new S3Driver(root, true) : namespaced(root, namespace, true);
}

/**
 * The S3 driver, for `createMemoryStore(driver, options)` from `@memdir/core`: the memory's files as
 * objects under `{prefix}memories/`. `close()` destroys the client when the driver built it.
 *
 * @throws TypeError for a missing bucket or an invalid option.
 */
export function createS3Driver(options: S3DriverOptions): MemoryDriver {
  return openDriver(options, undefined);
}

export type { ClientOptions };
