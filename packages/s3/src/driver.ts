// The S3 driver: memory files as objects under `{prefix}memories/`, read with one GET or listing,
// changed by conditional writes. A file written over (a `create` over a file this process has seen,
// an edit) needs no lease; a new path, a delete and a rename queue for the namespace's lease
// (sessions.ts, structure.ts). What drivers of one client share is the backend (backend.ts).
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type {
  DriverCallOptions,
  DriverCapabilities,
  DriverChangeOptions,
  DriverDescribeOptions,
  DriverDropOptions,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListOptions,
  DriverNamespacePage,
  DriverNamespaceQuery,
  DriverPath,
  DriverPointInTime,
  DriverRestoreOptions,
  DriverSweepOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverUsage,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
  DriverWriteOptions,
  MemdirLogger,
  MemoryDriver,
} from '@memdir/core';
import {
  AbstractMemoryDriver,
  asDriverPath,
  type DriverLog,
  driverLog,
  ListingFold,
  optionError,
  positiveInteger,
  refuseConflict,
  storeUnavailable,
  utf8Length,
} from '@memdir/core/driver';
import * as admin from './admin.js';
import { type Backend, backendOf, type Space } from './backend.js';
import { Call } from './call.js';
import { type ClientOptions, createClient } from './client.js';
import { decodeContent, isTombstone, type QueuedOptions } from './edits.js';
import * as history from './history-api.js';
import { versionContent, type WriteShape } from './history-write.js';
import { anythingBeneath } from './inspect.js';
import { hiddenSubtree, KeySpace, normalizePrefix } from './keys.js';
import { isListedTombstone, listObjects } from './listing.js';
import { movePath } from './move.js';
import { type ListPage, opsHeader } from './objects.js';
import { type ChangeContext, createPath, isLiveFile, removePath } from './structure.js';
import { sweepSpace, touch } from './sweep.js';

/** Options of {@link createS3Driver}. */
export interface S3DriverOptions extends ClientOptions {
  /**
   * Your own `S3Client`, used as it is (its retries, timeouts and credentials) and never closed by
   * the store. Without it the store builds one from the options below and the SDK's usual
   * environment (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles...), and closes it in `close()`.
   * Stores made on one client share what they learn (the server's probe, the lease queues).
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
  /**
   * Where the driver reports what happens (connections lost and regained, retries, lease waits
   * and repairs, the server's probe): never a key or content.
   * @default `NODE_DEBUG=memdir` output
   */
  logger?: MemdirLogger | undefined;
}

/** The memdir driver over S3 (see {@link createS3Driver}). */
export interface S3Driver extends MemoryDriver {
  namespace(name: string): S3Driver;
  /**
   * Probes the server (the bucket exists, the credentials hold, conditional writes are enforced):
   * the first change waits for it anyway, so calling it is optional. It lets a program fail at
   * startup rather than on its first change. Once per client and bucket.
   * @throws MemoryToolError `BACKEND` (reason `misconfigured` for a missing bucket, refused
   *   credentials or a server that ignores conditions) when the store cannot be used.
   */
  ready(options?: DriverCallOptions): Promise<void>;
}

/** The largest object one PUT can write. */
const MAX_OBJECT_BYTES = 5 * 1024 ** 3;
const DEFAULT_LEASE_TTL_MS = 10_000;

/**
 * A name whose last segment has a dot past its first character (`notes.md`) is most likely a file:
 * `describe` reads it first (one request). Other names (`notes`, `.archive`) are most likely
 * folders: it sends the GET and the listing together (one round trip, two requests).
 */
const MD5_HEX = /^[0-9a-f]{32}$/i;

/**
 * What an object's listed ETag says of its content, as `DriverEntry.contentMd5`: the MD5 of its
 * bytes when it is one (32 hex digits; a multipart ETag ends in `-N`), unless the probe found that
 * this server's ETags are not MD5s (SSE-KMS). Before the probe, a 32-digit ETag is given as it is:
 * one that is no MD5 will not equal a content's MD5, and the caller then reads the file.
 */
function md5OfEtag(bucket: Backend['bucket'], etag: string): string | undefined {
  if (bucket.probing !== undefined && !bucket.behaviour.md5Etags) return undefined;
  return MD5_HEX.test(etag) ? etag.toLowerCase() : undefined;
}

function looksLikeFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.lastIndexOf('.') > 0;
}

/** What the drivers of one `createS3Driver` call share: whether it is closed, and what to close. */
interface Handle {
  closed: boolean;
  readonly close: () => Promise<void>;
}

class S3MemoryDriver extends AbstractMemoryDriver implements S3Driver {
  readonly capabilities: DriverCapabilities;
  readonly identity: { readonly kind: 's3'; readonly id: string };
  readonly #space: Space;
  readonly #log: DriverLog;
  readonly #handle: Handle;
  readonly #owner: boolean;

  constructor(space: Space, log: DriverLog, handle: Handle, owner: boolean) {
    super();
    this.#space = space;
    this.#log = log;
    this.#handle = handle;
    this.#owner = owner;
    this.capabilities = {
      atomicRename: false,
      replaySafe: true,
      quotas: true,
      history: true,
      admin: true,
      listsContentMd5: true,
      maxPathBytes: space.keys.maxPathBytes,
      maxFileBytes: MAX_OBJECT_BYTES,
    };
    const place = `${space.backend.bucket.name}\n${space.backend.prefix}`;
    this.identity = { kind: 's3', id: createHash('sha256').update(place).digest('hex').slice(0, 12) };
  }

  override namespace(name: string): S3Driver {
    return super.namespace(name) as S3Driver;
  }

  protected openNamespace(name: string): S3Driver {
    const space = { backend: this.#space.backend, keys: this.#space.keys.child(name) };
    return new S3MemoryDriver(space, this.#log, this.#handle, false);
  }

  get #backend(): Backend {
    return this.#space.backend;
  }

  /** The call of one driver method; refused once the driver is closed. */
  #call(options: DriverCallOptions | undefined): Call {
    if (this.#handle.closed) throw storeUnavailable('the store is closed', undefined, 'closed');
    return new Call(this.#log, options);
  }

  /**
   * The file at `path`, or null for nothing or a move's stand-in. With `touch`, the read is
   * recorded for expiry (sweep.ts), beside the GET.
   */
  async #file(path: string, call: Call, touched?: boolean): Promise<DriverFile | null> {
    const key = this.#space.keys.file(path);
    const [object] = await Promise.all([
      this.#backend.bucket.get(key, call),
      touched ? touch(this.#space, path, call) : undefined,
    ]);
    if (object === null || isTombstone(object)) return null;
    this.#backend.known.remember(key, {
      etag: object.etag,
      size: object.size,
      ops: object.ops,
      fileId: object.fileId,
      chain: object.chain,
    });
    return { kind: 'file', content: decodeContent(object), version: object.etag };
  }

  async ready(options?: DriverCallOptions): Promise<void> {
    await this.#backend.behaviour(this.#call(options));
  }

  async read(path: DriverPath, options?: DriverCallOptions) {
    const call = this.#call(options);
    if (path === '') return { kind: 'directory' } as const;
    const file = await this.#file(path, call, options?.touch);
    if (file) return file;
    return (await anythingBeneath(this.#space, path, call)) ? ({ kind: 'directory' } as const) : null;
  }

  async stat(path: DriverPath, options?: DriverCallOptions) {
    const call = this.#call(options);
    if (path === '') return 'directory' as const;
    const head = await this.#backend.bucket.head(this.#space.keys.file(path), call);
    if (isLiveFile(head)) return 'file' as const;
    return (await anythingBeneath(this.#space, path, call)) ? ('directory' as const) : null;
  }

  async describe(
    path: DriverPath,
    options: DriverDescribeOptions,
  ): Promise<DriverFile | DriverListing | null> {
    const call = this.#call(options);
    const { bucket } = this.#backend;
    const { keys } = this.#space;
    const prefix = keys.beneath(path);
    let firstPage: Promise<ListPage> | undefined;
    if (path !== '') {
      if (!looksLikeFile(path)) {
        firstPage = bucket.list(prefix, undefined, call);
        // Settled below, or dropped when the GET finds a file.
        firstPage.catch(() => {});
      }
      const file = await this.#file(path, call, options.touch);
      if (file) return file;
    }
    const fold = new ListingFold(path);
    for await (const object of listObjects(bucket, prefix, { skipHidden: true, call, firstPage })) {
      const file = keys.pathOf(object.key);
      if (file === undefined || isListedTombstone(object)) continue;
      fold.add({ path: asDriverPath(file), size: object.size });
    }
    if (fold.added === 0 && path !== '') return null;
    return fold.result(options.limit);
  }

  async *list(dir: DriverPath, options: DriverListOptions = {}): AsyncIterable<DriverEntry> {
    const call = this.#call(options);
    const { keys } = this.#space;
    const prefix = keys.beneath(dir);
    let skipped: string | undefined;
    const objects = listObjects(this.#backend.bucket, prefix, { skipHidden: options.skipHidden, call });
    for await (const object of objects) {
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
      yield {
        path: asDriverPath(path),
        size: object.size,
        contentMd5: md5OfEtag(this.#backend.bucket, object.etag),
      };
    }
  }

  async write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }> {
    const { receipts } = this.#backend;
    const call = this.#call(options);
    if (receipts.has(options.op)) return receipts.get(options.op) as { version: string };
    return receipts.record(options.op, await this.#write(path, content, options, call)) as {
      version: string;
    };
  }

  async #write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
    call: Call,
    restore?: { shape: WriteShape; recorded: DriverVersion[] },
  ): Promise<{ version: string }> {
    const { expect, op, quota } = options;
    const backend = this.#backend;
    const key = this.#space.keys.file(path);
    const context: ChangeContext = {
      op,
      call,
      quota,
      record: options.record,
      shape: restore?.shape ?? { newFileId: options.fileId },
      recorded: restore?.recorded,
    };
    await backend.behaviour(call);
    if (expect && 'version' in expect) {
      // A compare-and-swap in place: a file that exists has no file above it and is no directory.
      const version = await this.#overwrite(path, content, expect.version, context);
      if (version !== null) return { version };
      throw refuseConflict(path);
    }
    const known = backend.known.get(key);
    if (expect === undefined) {
      // Over a file this process has seen: no lease needed, for the same reason. If it changed or
      // went since, the path is looked at under the lease.
      if (known) {
        const version = await this.#overwrite(path, content, known.etag, context);
        if (version !== null) return { version };
        backend.known.forget(key);
      }
      return { version: await createPath(this.#space, path, content, false, context) };
    }
    if (known) {
      // A file that is still there refuses at once, without the lease: racing creators that lost
      // do not queue for it (the refusal holds at the moment of this HEAD).
      const now = await backend.bucket.head(key, call);
      if (isLiveFile(now)) {
        if (now.ops.includes(op)) return { version: now.etag };
        throw refuseConflict(path);
      }
    }
    return { version: await createPath(this.#space, path, content, true, context) };
  }

  /**
   * Writes `content` over version `etag` of the file at `path` (`If-Match`), with the quota's reservation first.
   * @returns the new version, or null when the file is no longer that version (nothing written).
   */
  async #overwrite(path: DriverPath, content: string, etag: string, context: ChangeContext) {
    const { op, call, quota } = context;
    const { bucket, known } = this.#backend;
    const key = this.#space.keys.file(path);
    const { totals } = this.#backend.namespace(this.#space.keys);
    let seen = known.get(key);
    if (seen?.etag !== etag || seen.chain === undefined) {
      // The version's size (a quota) and history headers (kept, or carried on) are not known here.
      const head = await bucket.head(key, call);
      if (!isLiveFile(head) || head.etag !== etag) return null;
      seen = { ...head, ops: known.opsOf(key, etag) };
    }
    let change = { bytes: 0, files: 0 };
    if (quota) {
      change = { bytes: utf8Length(content) - seen.size, files: 0 };
      if (change.bytes > 0) await totals.reserve(path, change, quota, call);
    }
    const ops = opsHeader(op, known.opsOf(key, etag));
    const parent = { fileId: seen.fileId, chain: seen.chain ?? '' };
    const versioned = await versionContent(
      this.#space,
      path,
      parent,
      [{ record: context.record, op, content }],
      context.shape ?? {},
      call,
    );
    const written = await bucket.put(key, content, { ifMatch: etag, ops, file: versioned.file }, call);
    if (typeof written === 'string') {
      await versioned.settle(true);
      context.recorded?.push(...versioned.drafted.map((entry) => entry.version));
      known.remember(key, {
        etag: written,
        size: utf8Length(content),
        ops: ops.split(' '),
        ...versioned.file,
      });
      if (change.bytes < 0) await totals.release({ bytes: -change.bytes, files: 0 }, call);
      return written;
    }
    // This call's own write landed and was sent again, or another writer got there first.
    const now = written.resent ? await bucket.head(key, call) : null;
    const landed = isLiveFile(now) && now.ops.includes(op);
    await versioned.settle(landed);
    if (landed) {
      context.recorded?.push(...versioned.drafted.map((entry) => entry.version));
      return now.etag;
    }
    if (change.bytes > 0) await totals.release(change, call);
    return null;
  }

  async update(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null> {
    const { receipts } = this.#backend;
    const call = this.#call(options);
    if (receipts.has(options.op)) return receipts.get(options.op) as 'file';
    const queued: QueuedOptions = { ...options, call };
    // An edit reads the file whether or not it changes it (a refused edit was still a read).
    const touched = options.touch ? touch(this.#space, path, call) : undefined;
    const [kind] = await Promise.all([
      this.#backend.namespace(this.#space.keys).edits.submit(path, edit, queued),
      touched,
    ]);
    // Only a call that changed something is recorded: 'directory' and null change nothing.
    return kind === 'file' ? (receipts.record(options.op, kind) as 'file') : kind;
  }

  async remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean> {
    const { receipts } = this.#backend;
    const call = this.#call(options);
    if (receipts.has(options.op)) return receipts.get(options.op) as boolean;
    const removed = await removePath(this.#space, path, {
      op: options.op,
      call,
      quota: options.quota,
      record: options.record,
    });
    return removed ? (receipts.record(options.op, removed) as boolean) : removed;
  }

  async move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void> {
    const { receipts } = this.#backend;
    const call = this.#call(options);
    if (receipts.has(options.op)) return;
    await movePath(this.#space, from, to, { op: options.op, call, quota: undefined, record: options.record });
    receipts.record(options.op, undefined);
  }

  // --- history (history*.ts) ---------------------------------------------------------------------

  async listVersions(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage> {
    return history.listVersions(this.#space, query, this.#call(options));
  }

  async readVersion(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null> {
    return history.readVersion(this.#space, id, this.#call(options));
  }

  async restoreVersion(id: string, options: DriverRestoreOptions): Promise<DriverVersion> {
    const call = this.#call(options);
    await this.#backend.behaviour(call);
    return history.restoreVersion(
      this.#space,
      id,
      options,
      (path, content, writeOptions, shape, recorded) =>
        this.#write(asDriverPath(path), content, writeOptions, call, { shape, recorded }),
      call,
    );
  }

  async redactVersion(id: string, options: DriverChangeOptions): Promise<DriverVersion | null> {
    return history.redactVersion(this.#space, id, this.#call(options));
  }

  async treeAt(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]> {
    return history.treeAt(this.#space, at, options?.path ?? '', this.#call(options));
  }

  async importVersions(
    versions: readonly DriverVersionWithContent[],
    options: DriverCallOptions,
  ): Promise<void> {
    return history.importVersions(this.#space, versions, this.#call(options));
  }

  // --- admin (admin.ts, sweep.ts) ---

  async listNamespaces(
    query: DriverNamespaceQuery,
    options?: DriverCallOptions,
  ): Promise<DriverNamespacePage> {
    return admin.listNamespaces(this.#space, query, this.#call(options));
  }

  async usage(options?: DriverCallOptions): Promise<DriverUsage> {
    return admin.usage(this.#space, this.#call(options));
  }

  async dropNamespace(name: string, options: DriverDropOptions): Promise<{ removed: number; done: boolean }> {
    return admin.dropNamespace(this.#space, name, options.batch, this.#call(options));
  }

  async sweep(options: DriverSweepOptions): Promise<{ expired: number; pruned: number; done: boolean }> {
    const call = this.#call(options);
    await this.#backend.behaviour(call);
    return sweepSpace(this.#space, options, call);
  }

  async close(): Promise<void> {
    if (!this.#owner || this.#handle.closed) return;
    await this.#handle.close();
  }
}

/**
 * The S3 driver, for `createMemoryStore(driver, options)` from `@memdir/core`: the memory's files as
 * objects under `{prefix}memories/`. `close()` waits for the changes under way, then destroys the
 * client when the driver built it; a client you passed in is never closed.
 *
 * @throws TypeError for a missing bucket or an invalid option.
 */
export function createS3Driver(options: S3DriverOptions): S3Driver {
  const { client, bucket, prefix, leaseTtlMs, logger, ...clientOptions } = options;
  if (typeof bucket !== 'string' || bucket === '') {
    throw optionError('s3', 'bucket', 'name the bucket, e.g. { bucket: "my-agent-memory" }');
  }
  const keys = new KeySpace(normalizePrefix(prefix));
  const ttl = positiveInteger('s3', 'leaseTtlMs', leaseTtlMs, DEFAULT_LEASE_TTL_MS);
  const s3 = client ?? createClient(clientOptions);
  const backend = backendOf(s3, bucket, keys.base, ttl, client === undefined);
  const handle: Handle = {
    closed: false,
    close: async () => {
      // Changes under way finish first (a lease is released, not left to expire).
      await backend.idle();
      handle.closed = true;
      if (client === undefined) {
        backend.bucket.closed = true;
        s3.destroy();
      }
    },
  };
  return new S3MemoryDriver({ backend, keys }, driverLog('s3', logger), handle, true);
}

export type { ClientOptions };
