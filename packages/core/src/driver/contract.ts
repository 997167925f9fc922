// The driver contract (v3): `MemoryDriver`, the storage primitives an adapter implements, with the
// options each call receives, what it returns, and the history and admin methods a driver may add.
// Everything a driver author needs to read is here; the helpers that make meeting it easy are the
// kit (`driver/index.ts`, `@memdir/core/driver`). What a driver can do is in `capabilities.ts`.
import type { QuotaBreach } from '../errors.js';
import type { DriverPath } from '../path.js';
import type { Actor, MemoryCommandName } from '../tool.js';
import type { DriverCapabilities } from './capabilities.js';

export type { DriverPath } from '../path.js';
export type { DriverCapabilities } from './capabilities.js';

/** A file as a driver returns it. */
export interface DriverFile {
  readonly kind: 'file';
  /** The whole content, decoded as UTF-8, exactly as written. */
  readonly content: string;
  /** Opaque; changes whenever the content is replaced. Compared only for equality. */
  readonly version: string;
}

/** A directory, as `read` reports it (a directory exists while a file lies beneath it; `''` always). */
export interface DriverDirectory {
  readonly kind: 'directory';
}

/** One entry of a directory's two-level listing (see {@link MemoryDriver.describe}). */
export interface DriverListingEntry {
  /**
   * The entry relative to the described directory: `name` at depth 1, `name/child` at depth 2.
   * Never a hidden name at either depth.
   */
  readonly path: string;
  readonly directory: boolean;
  /** A file's UTF-8 size; for a directory, the total of the visible files beneath it at any depth. */
  readonly size: number;
}

/** A directory with its listing, as `describe` returns it. */
export interface DriverListing {
  readonly kind: 'directory';
  /** The total UTF-8 size of the visible files beneath the directory, at any depth. */
  readonly size: number;
  /** How many visible entries lie at depth 1 and 2 (what the listing would show without a limit). */
  readonly count: number;
  /**
   * Entries, in any order. They must include every one of the first `min(limit, count)` entries in
   * listing order (siblings by `compareNames`, each directory followed by its own children), and may
   * include more: the engine sorts and keeps what fits.
   */
  readonly entries: readonly DriverListingEntry[];
}

/** One file in a flat listing: its driver path (from the namespace root, not from `dir`) and size. */
export interface DriverEntry {
  readonly path: DriverPath;
  /** The file's size in UTF-8 bytes. */
  readonly size: number;
  /**
   * The MD5 of the file's UTF-8 bytes (32 lowercase hex digits), as the backend computed it, where
   * its listing gives one at no cost (an S3 ETag of an object written in one PUT); see
   * {@link DriverCapabilities.listsContentMd5}. Equal to the MD5 of the content means the file
   * holds that content; anything else means nothing (an encrypted object's ETag is no MD5), and
   * whoever needs to know reads the file.
   */
  readonly contentMd5?: string | undefined;
}

/** A condition `write` checks in the same atomic step as the write. */
export type WriteExpectation =
  /** The file must exist with exactly this version. */
  | { readonly version: string }
  /** No file may exist at the path. */
  | { readonly absent: true };

/**
 * Counters a driver may fill in for telemetry, when the engine passes them (only while someone
 * listens on the `memdir:driver` channel).
 */
export interface DriverCallStats {
  /** Round trips to the backend this call made (a pipeline or one script counts once). */
  roundTrips: number;
  /** Requests sent (an S3 store's HTTP requests; equal to `roundTrips` where nothing is pipelined). */
  requests: number;
  /** Calls retried after a passing failure (a reconnect, a rollback, a lost compare-and-swap). */
  retries: number;
}

/** What every driver call may receive. */
export interface DriverCallOptions {
  /**
   * The command's deadline, in `Date.now()` milliseconds: one for all the calls of one command
   * ({@link MemoryStoreOptions.timeoutMs} after it started). A driver derives every request timeout,
   * retry, lock wait and group-commit limit from the time left (the kit's `timeLeft`), so that a
   * stalled server gives `BACKEND` within the deadline and a slow but live one is waited for up to
   * it. Read it again before each request: it moves later when the call reports progress
   * ({@link progressed}). Absent when the driver is called on its own: the kit then allows 5 s from
   * the call.
   */
  readonly deadline?: number | undefined;
  /**
   * Aborted when the engine stops waiting (the deadline passed). A driver should give up the request
   * (an HTTP abort, say); the engine has already reported the command as failed. Made only when
   * read, so a driver that never reads it costs nothing. It is a getter of the engine's options
   * object: pass the options on as they are, or read `signal` before copying them (a spread copy
   * keeps every other field, not this one).
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Tells the engine that the backend made progress on the queue this call waits in: another
   * writer's turn ended (the lock changed hands, a group of edits committed, the object this call
   * waits to write changed). The engine then moves the deadline to `timeoutMs` from now, but never
   * past `queueTimeoutMs` after the command started, nor earlier than it was, so a command that waits
   * its turn behind writers that keep finishing is not failed while its turn comes. Call it only
   * for progress seen on the backend: a lock that one holder keeps (a stalled or crashed holder),
   * or a server that does not answer, is none, and the command fails at its deadline as before.
   * `deadline` (and `signal`) follow it on the options object the engine passed; a copy
   * (`{ ...options }`) keeps the deadline it had and not this method. Absent when the driver is
   * called on its own.
   */
  progressed?(): void;
  /** Telemetry counters to fill in, when someone listens (see {@link DriverCallStats}). */
  readonly stats?: DriverCallStats | undefined;
  /**
   * Reads of a file (`read`, `describe` of a file, `edit`, `update`) with this set record the time
   * the file was read, for expiry with `refreshOnRead` (admin drivers): `sweep` expires a file by
   * the later of its last change and its last touched read. Drivers without `capabilities.admin`
   * ignore it.
   */
  readonly touch?: boolean | undefined;
}

/** What a version records of the change that made it (history; see {@link DriverChangeOptions.record}). */
export interface ChangeRecord {
  /** Who made the change, or null when the application did not say. */
  readonly actor: Actor | null;
  /**
   * The command: one of the six, or `restore`, `sweep` (expiry), `import`, or `update` (an update
   * by id: `updateById`).
   */
  readonly command: MemoryCommandName | 'restore' | 'sweep' | 'import' | 'update';
  /** The tool call's id, when the application gave one. */
  readonly toolUseId: string | null;
  /** A file's newest versions to keep whatever their age (pruning in the change's own step). */
  readonly keepVersions: number;
  /** Versions younger than this (in days) are kept whatever their number. */
  readonly keepDays: number;
}

/** A namespace's quota as the driver judges it (see {@link DriverCapabilities.quotas}). */
export interface DriverQuota {
  readonly maxBytes?: number | undefined;
  readonly maxFiles?: number | undefined;
}

/** What every call that changes something receives. */
export interface DriverChangeOptions extends DriverCallOptions {
  /**
   * The operation id: made by the engine once per command, and the same on every change call of
   * that command (a retried compare-and-swap reuses it). A driver whose client may send one request
   * twice (ioredis resends in-flight commands after a reconnect; SDKs retry) records the id with the
   * outcome of a call that changed something, and a call that finds its id already recorded returns
   * that outcome without applying anything again. Ids are unique (random, 22+ characters from
   * `A-Z a-z 0-9 _ -`).
   */
  readonly op: string;
  /**
   * The namespace's quota, to judge in the same atomic step as the change (drivers with
   * `capabilities.quotas`): a change that would raise the namespace's total bytes past `maxBytes`,
   * or a new file past `maxFiles`, is refused with the kit's `refuseQuota` and changes nothing. A
   * change that does not raise the total (or, for files, adds no file) is never refused. Where
   * both would be passed, the bytes breach is reported.
   */
  readonly quota?: DriverQuota | undefined;
  /**
   * Present when history is on (drivers with `capabilities.history`): record one version per file
   * the call changes, in the same atomic step, carrying this record, the call's `op` and the
   * server's time (one time for every version of the call), and prune that file's versions as
   * {@link ChangeRecord.keepVersions} and `keepDays` say, judged at that time: at most the kit's
   * `PRUNE_PER_CHANGE` per file changed, oldest first (the kit's `prunable`), so a change never
   * does unbounded work and 10,000 edits of one file with `keepDays: 0` leave at most
   * `keepVersions` versions. Absent: record nothing (the file keeps its file id all the same, and
   * the namespace's counters and change time move as usual).
   *
   * The operation of each version: `write` of a new file `created`, of an existing one `modified`;
   * `edit` and `update` `modified`; `remove` `deleted` (no content, hash or size); `move` `renamed`
   * (`previousPath` the old path; hash, size and content those of the file, unchanged); a change
   * that is refused, or an `edit` whose outcome is not `edited`, records nothing.
   */
  readonly record?: ChangeRecord | undefined;
}

/** Options of {@link MemoryDriver.write}. */
export interface DriverWriteOptions extends DriverChangeOptions {
  /** Checked in the same atomic step as the write; none means "create or replace". */
  readonly expect?: WriteExpectation | undefined;
  /**
   * When the write creates a new file, give it this file id instead of a new one (`copyStore` with
   * `withHistory`, which writes the files of imported versions without a `record`). Ignored when
   * the file exists, which keeps its own.
   */
  readonly fileId?: string | undefined;
}

/** Options of {@link MemoryDriver.describe}. */
export interface DriverDescribeOptions extends DriverCallOptions {
  /**
   * The most entries the engine can show (it computes this from `maxViewChars`): a driver may stop
   * collecting entries after the first `limit` in listing order, and must still count them all.
   */
  readonly limit: number;
}

/** Options of {@link MemoryDriver.list}. */
export interface DriverListOptions extends DriverCallOptions {
  /**
   * The driver may, for an entry with a hidden name (starting with `.`, or `node_modules`), report
   * that one entry with any size instead of every file beneath it: hidden files count for nothing in
   * a listing except that the visible directories above them exist.
   * @default false
   */
  readonly skipHidden?: boolean | undefined;
}

/**
 * An edit as data, for {@link MemoryDriver.edit}: the driver applies it where the bytes are, with
 * exactly the rules of SPEC sections 4.3 and 4.4 (the kit's `applyEdit` is the reference).
 */
export type DriverEdit =
  /** Replace the one occurrence of `oldStr` (non-empty) by `newStr`. */
  | { readonly kind: 'str_replace'; readonly oldStr: string; readonly newStr: string }
  /** Insert `text` (its one trailing newline already removed) as a new line after line `line`. */
  | { readonly kind: 'insert'; readonly line: number; readonly text: string };

/** Options of {@link MemoryDriver.edit}. */
export interface DriverEditOptions extends DriverChangeOptions {
  /** The store's `maxFileBytes`: a result larger than this is `too-large`, and nothing is written. */
  readonly maxFileBytes: number;
}

/**
 * What an edit came to, with what the engine needs for its texts (SPEC 4.3, 4.4). Every outcome but
 * `edited` wrote nothing.
 */
export type DriverEditOutcome =
  /**
   * Written. For `str_replace`, the snippet: `firstLine` is the 1-based number of its first line and
   * `lines` the lines `max(0, k-2)` to `min(count, k+3)` (exclusive, 0-based) of the new content
   * split on `\n`, `k` being the line the replacement starts on. For `insert`, `firstLine` is 0 and
   * `lines` empty.
   */
  | { readonly outcome: 'edited'; readonly firstLine: number; readonly lines: readonly string[] }
  /** No file at the path: a directory, or nothing. */
  | { readonly outcome: 'missing'; readonly kind: 'directory' | null }
  /** `str_replace`: `oldStr` does not occur. */
  | { readonly outcome: 'no-match' }
  /**
   * `str_replace`: `oldStr` occurs `count` (> 1) times, overlapping ones included; `lines` has the
   * 1-based line of each of the first 100 occurrences.
   */
  | { readonly outcome: 'multiple'; readonly count: number; readonly lines: readonly number[] }
  /** `insert`: `line` is outside `[0, lines]`, `lines` being the file's line count (split on `\n`). */
  | { readonly outcome: 'invalid-line'; readonly lines: number }
  /** The result would be `bytes` UTF-8 bytes, more than `maxFileBytes`. */
  | { readonly outcome: 'too-large'; readonly bytes: number }
  /** The result would pass the namespace's quota. */
  | { readonly outcome: 'quota'; readonly breach: QuotaBreach };

/**
 * The storage primitives an adapter implements, over one namespace of one backend (contract v3). The
 * `@memdir/core/driver` kit has the helpers most drivers need (extend its `AbstractMemoryDriver`);
 * the core README's implementor section says how each backend meets these guarantees.
 *
 * Paths are {@link DriverPath}s, validated and normalised by the engine; a driver never re-checks
 * them. A directory exists exactly while at least one file lies beneath it; `''` (the root) always.
 *
 * Errors: a refusal is a `MemoryToolError` with the code given and `path` set to the driver path it
 * concerns (make them with the kit's `refuse*` functions); its message never reaches the model (the
 * engine writes its own). Any other failure should be a `MemoryToolError` `BACKEND` with a `reason`
 * and an `outcome`, whose message says what failed in plain words, without secrets or host paths
 * (the kit's `storeUnavailable`, `outcomeUnknown` and `backendFailure`), with the original error on
 * `cause`; anything else thrown is reported as an unexpected `BACKEND` failure.
 *
 * Lifecycle: a driver closes what it made (a client built from a URL), never a client the
 * application passed in; a namespaced driver shares its parent's and closes nothing of it.
 *
 * Every command costs the fewest calls the driver allows: `view` one (`describe`), `create`,
 * `delete` and `rename` one, `str_replace` and `insert` one with `edit` (else two: `read`, then
 * `write` with `expect`; or one `update`).
 */
export interface MemoryDriver {
  readonly capabilities: DriverCapabilities;

  /**
   * What the driver is, for telemetry: `kind` (`memory`, `fs`, `redis`, `postgres`, `s3`, or a custom
   * driver's own word) and `id`, a stable, low-cardinality name of the backend that carries no
   * secret (a hash of host, port and prefix, say).
   * @default { kind: 'custom', id: 'custom' }
   */
  readonly identity?: { readonly kind: string; readonly id: string } | undefined;

  /**
   * A driver over namespace `name` of the same backend. The files of each namespace, and those of
   * the driver it was called on, are disjoint: no path in one can reach the other. Calling it on a
   * namespaced driver nests the namespace. The returned driver shares the backend's connection;
   * closing it does not close the parent.
   * @throws TypeError when `name` is not a valid namespace name (1-128 characters from
   *   `A-Z a-z 0-9 . _ - @ + =`, not starting with `.`): `AbstractMemoryDriver` checks it before
   *   its `openNamespace` runs, so every driver refuses the same names.
   */
  namespace(name: string): MemoryDriver;

  /**
   * What is at `path`: the file with its version, `{ kind: 'directory' }` (always for `''`), or null
   * when nothing is there.
   */
  read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null>;

  /**
   * Optional: what `read` would say, without the content. Without it the engine calls `read`.
   */
  stat?(path: DriverPath, options?: DriverCallOptions): Promise<'file' | 'directory' | null>;

  /**
   * Optional fast path that answers a `view` in one call, from one consistent snapshot: the file at
   * `path`; or the directory's listing (visible entries at depth 1 and 2 with their sizes, the
   * directory's own visible size and the count of entries; hidden subtrees skipped, never read);
   * or null when nothing is there. Without it the engine calls `read`, then `list` for a directory,
   * and folds the listing itself (the kit's `foldListing`).
   */
  describe?(path: DriverPath, options: DriverDescribeOptions): Promise<DriverFile | DriverListing | null>;

  /**
   * Writes a whole file, creating its parent directories. Atomic: readers see the old or the new
   * content, never a mix, and the checks below happen in the same atomic step as the write.
   * Refuses, writing nothing, with, in this order:
   * - `PATH_CONFLICT` (path: the ancestor) when an ancestor of `path` is a file;
   * - `PATH_CONFLICT` (path: `path`) when `path` is a directory;
   * - `CONFLICT` (path: `path`) when `expect` does not hold (the version differs, the file is
   *   missing, or a file exists where `{ absent: true }` was expected);
   * - `QUOTA_EXCEEDED` (path: `path`, with the breach) when `quota` would be passed.
   * @returns the new version, and (drivers with `capabilities.records`) the file's record as the
   *   write left it.
   */
  write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
  ): Promise<{ version: string; record?: DriverRecord | undefined }>;

  /**
   * Optional: applies an edit in one atomic step where the bytes are (one script, one function
   * call), so `str_replace` and `insert` cost one round trip and never retry. The rules are SPEC
   * 4.3 and 4.4 exactly, as the kit's `applyEdit` implements them (overlapping occurrences, line
   * numbers, the 100-line cap, UTF-8 sizes); the outcomes are listed at {@link DriverEditOutcome},
   * checked in this order: missing, then the edit's own (`no-match`, `multiple`, `invalid-line`),
   * then `too-large`, then `quota`. Records a version and refreshes the read time like `write`.
   */
  edit?(path: DriverPath, edit: DriverEdit, options: DriverEditOptions): Promise<DriverEditOutcome>;

  /**
   * Optional fast path for a read-modify-write (`str_replace`, `insert`) where `edit` is not: in one
   * atomic step (under the driver's lock, or in one transaction), read the file at `path`, call
   * `edit` with its content, and write what `edit` returns. When `edit` throws, nothing is written
   * and the error propagates as is. Quota refusals as for `write`. Without it the engine reads,
   * then writes with `{ version }`, and retries when the compare-and-swap loses.
   * @returns what is at `path` when no file is there (`'directory'`, or null for nothing), calling
   *   nothing; `'file'` once the edit is written.
   */
  update?(
    path: DriverPath,
    edit: (content: string) => string,
    options: DriverChangeOptions,
  ): Promise<'file' | 'directory' | null>;

  /**
   * Every file beneath directory `dir` (`''` for all), at any depth, in any order; nothing when `dir`
   * does not exist. A consistent snapshot (no file seen twice or missed by a concurrent move), in a
   * bounded number of requests per file (never a scan of the whole backend).
   */
  list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry>;

  /**
   * Removes the file at `path`, or directory `path` with everything beneath it, atomically when
   * `capabilities.atomicRename`. Never called with `''`. With `record`, one `deleted` version per
   * file removed. With `expect` (drivers with `capabilities.removeExpect`; the engine never passes
   * it to others), a file must be at `path` and match it, checked in the same atomic step: else
   * `CONFLICT` (path: `path`) and nothing is removed (a directory at `path` never matches).
   * @returns false when nothing was there.
   */
  remove(path: DriverPath, options: DriverRemoveOptions): Promise<boolean>;

  /**
   * Moves file or directory `from` (with everything beneath it) to `to`, creating `to`'s parents.
   * Never called with `''`, nor with `to` beneath `from` or equal to it. Refuses, moving nothing,
   * with, in this order:
   * - `NOT_FOUND` (path: `from`) when nothing is at `from`;
   * - `PATH_CONFLICT` (path: the ancestor) when an ancestor of `to` is a file;
   * - `ALREADY_EXISTS` (path: `to`) when a file or directory is at `to`.
   * With `record`, one `renamed` version per file moved; file ids move with the files. A move
   * never raises the total, so no quota refuses it.
   */
  move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void>;

  // --- identity (capabilities.records, updateById, removeExpect; docs/identity.md) ----------------

  /**
   * The record of the file at `path` (with its content when `options.content`), or null when no
   * file is there (a directory, or nothing). One round trip where the backend allows.
   */
  readRecord?(path: DriverPath, options?: DriverRecordOptions): Promise<DriverRecord | null>;

  /**
   * The record of the file whose id is `fileId` in this namespace (with its content when
   * `options.content`), or null when no such file is here now (deleted, another namespace's, made
   * up, malformed). One round trip where the backend allows.
   */
  locate?(fileId: string, options?: DriverRecordOptions): Promise<DriverRecord | null>;

  /**
   * A page of the records beneath directory `query.under`, without content, in the order of the
   * UTF-8 bytes of their keys (a file's key is its path; a folder marker's its path and `/`), after
   * `query.after`, at most `query.limit` items (markers count), and the key to pass as `after` for
   * the next page (null at the end; a short page may still have one). `depth` n >= 1: files at most
   * n levels beneath `under` and one marker per folder n levels beneath it that holds deeper files;
   * 0: every file beneath, no marker. A key `after` that ends in `/` skips everything beneath that
   * folder. Keyset paging: a file that stays put while pages are read is listed exactly once.
   * Hidden names are listed like any other. Bounded work per page; one round trip where the
   * backend allows, and no read of content.
   */
  listRecords?(query: DriverRecordQuery, options?: DriverCallOptions): Promise<DriverRecordPage>;

  /**
   * `listRecords(query)` here and `beside.driver.readRecord(beside.path, { content: beside.content })`
   * in one call: for a caller that needs a page and one record of another namespace of the same
   * backend (the memory stores API reads a store's page and its registry entry, kept in a
   * namespace of its own). One round trip where the backend allows; the page is as `listRecords`
   * gives it. Never called on a driver without `capabilities.records`.
   * @returns the page and the record (null when no file is at `beside.path`); or null, having read
   *   nothing, when this driver cannot read `beside.driver` in the same call (another backend or
   *   kind of driver, a wrapped one): the engine then makes the two calls at once.
   */
  listRecordsBeside?(
    query: DriverRecordQuery,
    beside: DriverRecordBeside,
    options?: DriverCallOptions,
  ): Promise<DriverRecordsBeside | null>;

  /**
   * Changes the file whose id is `fileId`: its content, its path or both, in one atomic step, as
   * one version (command `update`: `modified` for content alone, else `renamed` with the new
   * content), creating the new path's parents. In this order:
   * - `NOT_FOUND` (path `''`) when no file has that id here;
   * - success, changing and recording nothing (`changed: false`), when the content given and the
   *   path given are those the file has (whatever `expectSha256` says: a retried update that was
   *   saved succeeds);
   * - `CONFLICT` (path: the file's path) when `expectSha256` is given and is not the SHA-256 of
   *   the file's content;
   * - for a new path: `PATH_CONFLICT` (path: the ancestor) when an ancestor of it is a file (the
   *   file itself included), `ALREADY_EXISTS` (path: the new path) when a file or directory is
   *   there;
   * - `TOO_LARGE` (path: the file's new path) when the content is over `maxFileBytes`;
   *   `QUOTA_EXCEEDED` as `write`.
   * A replayed call (its `op` recorded) applies nothing again and returns the record as it is.
   * One round trip where the backend allows.
   */
  updateById?(
    fileId: string,
    change: DriverUpdateChange,
    options: DriverUpdateByIdOptions,
  ): Promise<DriverUpdateResult>;

  // --- history (capabilities.history) -------------------------------------------------------------

  /**
   * This namespace's versions matching `query`, newest first (by id), at most `query.limit`, and the
   * cursor of the next page (null at the end). Bounded work per call: a page may hold fewer than
   * `limit` versions even when more follow (`next` is then set). One round trip where the backend
   * allows (an index per filter).
   */
  listVersions?(query: DriverVersionQuery, options?: DriverCallOptions): Promise<DriverVersionPage>;

  /** One version with its content (null when redacted, or for a `deleted` version), or null when unknown. */
  readVersion?(id: string, options?: DriverCallOptions): Promise<DriverVersionWithContent | null>;

  /**
   * Writes version `id`'s content at `options.to` (default: the version's own path) in one atomic
   * step, as a new `restored` version (command `restore`, `restoredFrom` = `id`), creating or
   * replacing the file there. Refuses, changing nothing, with, in this order:
   * - `NOT_FOUND` (path: `to`, or `''` when `to` is not given) when the version is unknown or has no
   *   content (redacted, pruned, or a deletion);
   * - `PATH_CONFLICT` (path: the ancestor, or `to`) as `write` does;
   * - `CONFLICT` (path: `to`) when `expectSha256` is given and does not hold (a string: a file must
   *   be at `to` and its content have that SHA-256; null: no file may be at `to`);
   * - `TOO_LARGE` (path: `to`) when the content is over `maxFileBytes`; `QUOTA_EXCEEDED` as `write`.
   * The file keeps its id when one is at `to`. A file created this way takes the version's file id
   * when `to` is where that file was deleted and it has not come back since (its newest version is
   * that deletion, at `to`); else a new id. Prunes that file's versions like any change. One round
   * trip where the backend allows.
   * @returns the new version.
   */
  restoreVersion?(id: string, options: DriverRestoreOptions): Promise<DriverVersion>;

  /**
   * Removes version `id`'s content, path, previous path, size and hash for good, keeping the rest,
   * with the time of redaction (server ms). Redacting twice changes nothing more (the first time
   * stays). The file itself is not touched: a live file keeps its content.
   * @returns the version as it now is, or null when unknown.
   */
  redactVersion?(id: string, options: DriverChangeOptions): Promise<DriverVersion | null>;

  /**
   * The files as they were at a past point: every file whose newest version at or before `at` (a
   * server time in ms, or a version id: that version and older ones) is neither a deletion nor
   * redacted, with that version, in any order; with `options.path`, only those at or beneath it.
   * What pruning removed is missing: a file whose versions up to `at` were all pruned is not there.
   */
  treeAt?(at: DriverPointInTime, options?: DriverTreeOptions): Promise<readonly DriverTreeEntry[]>;

  /**
   * Optional (`copyStore` with `withHistory`): writes `versions` as they are, oldest first, into
   * this namespace's history: ids, file ids, paths, times, actors, operation ids, hashes, content and
   * redactions kept, nothing pruned; then sets the namespace's version sequence past the last id,
   * so versions recorded later sort after them. Files are not touched (the caller writes them with
   * `write` and `fileId`, without a record). Call it again with the next batch to import more.
   * Refuses, writing nothing, with `CONFLICT` (path `''`) when the namespace holds a version whose
   * id is not older than the first one given (so it imports into an empty history, or continues
   * its own import), and with `INVALID_INPUT` when the ids are not ascending ids of the kit's
   * `sequenceVersionId` form.
   */
  importVersions?(versions: readonly DriverVersionWithContent[], options: DriverCallOptions): Promise<void>;

  // --- admin (capabilities.admin) ---------------------------------------------------------------

  /**
   * The namespaces directly below this driver that hold anything (files or versions), in byte order
   * of their names (names are ASCII), after `after`, at most `limit`, those starting with `prefix`
   * when given; `next` is the last name of the page when more may follow. Never a scan of the whole
   * backend in one call. A namespace once dropped is not listed (until something is written to it).
   */
  listNamespaces?(query: DriverNamespaceQuery, options?: DriverCallOptions): Promise<DriverNamespacePage>;

  /**
   * What this driver's own namespace holds, from what the backend maintains (no walk where a
   * counter can do): one round trip where the backend allows.
   */
  usage?(options?: DriverCallOptions): Promise<DriverUsage>;

  /**
   * Erases namespace `name` below this driver (files, folders, versions, receipts, leases, and the
   * namespaces nested in it), at most `options.batch` items per call. Resumable: call again until
   * `done`; a crash between calls leaves a namespace that a later call finishes. Touches no other
   * namespace, also none whose name starts with `name`. Stores open on the namespace see it empty
   * afterwards and may write to it again.
   */
  dropNamespace?(
    name: string,
    options: DriverDropOptions,
  ): Promise<{ readonly removed: number; readonly done: boolean }>;

  /**
   * One bounded batch of this namespace's upkeep, at most `options.batch` items: removes the files
   * whose last change (or touched read, whichever is later) is before `options.expireBefore`, each
   * recorded as a `deleted` version with `options.record` and `options.op` when a record is given;
   * then removes versions that `options.retention` no longer keeps, for every file, deleted ones
   * included (the kit's `prunable`: never one of a file's newest `keepVersions`). Only this
   * namespace's own files, not those of namespaces nested in it. Call again until `done`.
   */
  sweep?(
    options: DriverSweepOptions,
  ): Promise<{ readonly expired: number; readonly pruned: number; readonly done: boolean }>;

  /** Releases connections or handles the driver opened itself. Idempotent. */
  close(): Promise<void>;
}

// --- identity ------------------------------------------------------------------------------

/**
 * What a driver keeps beside every file (capabilities.records), in the same atomic step as each
 * change, with history on or off. docs/identity.md.
 */
export interface DriverRecord {
  readonly kind: 'file';
  readonly path: DriverPath;
  /**
   * `mem_` and 16 to 128 characters from `A-Z a-z 0-9 _ -`: new for a new file (also one made at a
   * path where another was deleted), kept by renames and content changes, and by a restore of a
   * deleted file at its path (the id its history records).
   */
  readonly fileId: string;
  /** Lowercase hex SHA-256 of the content's UTF-8 bytes. */
  readonly sha256: string;
  /** The content's UTF-8 bytes. */
  readonly size: number;
  /**
   * When the file was made (server ms). Null only from the engine's fallback for a driver without
   * records, when its history does not say.
   */
  readonly createdAt: number | null;
  /** When its content or path last changed (server ms); null as `createdAt`. */
  readonly changedAt: number | null;
  /** The version holding the current content, when history recorded one; else null. */
  readonly versionId: string | null;
  /** The content, when the call asked for it ({@link DriverRecordOptions.content}). */
  readonly content?: string | undefined;
}

/** Options of `readRecord` and `locate`. */
export interface DriverRecordOptions extends DriverCallOptions {
  /** Give the content too, from the same snapshot. */
  readonly content?: boolean | undefined;
}

/** A folder in a listing by depth ({@link DriverRecordQuery.depth}): its key is `path` and `/`. */
export interface DriverFolderMarker {
  readonly kind: 'folder';
  readonly path: DriverPath;
}

/** Which records `listRecords` returns. */
export interface DriverRecordQuery {
  /** A directory: only what lies beneath it (`''`, the default: everything). */
  readonly under?: DriverPath | undefined;
  /**
   * 0 (the default): every file beneath `under`. n >= 1: files at most n levels beneath it (a file
   * directly in `under` is 1 level beneath), and a marker for each folder n levels beneath it
   * holding deeper files.
   */
  readonly depth?: number | undefined;
  /** Only items whose key sorts after this one (the `next` of the previous page). */
  readonly after?: string | null | undefined;
  /** The most items to return, 1 to 1,000. */
  readonly limit: number;
}

/** A page of records. */
export interface DriverRecordPage {
  readonly items: readonly (DriverRecord | DriverFolderMarker)[];
  /** Pass as `after` for the next page; null when there is none. */
  readonly next: string | null;
}

/** The record {@link MemoryDriver.listRecordsBeside} reads beside its page: the driver's file at `path`. */
export interface DriverRecordBeside {
  /** The driver of the other namespace (a store's `driver`, already inside its namespace). */
  readonly driver: MemoryDriver;
  readonly path: DriverPath;
  /** Give the content too. */
  readonly content?: boolean | undefined;
}

/** What {@link MemoryDriver.listRecordsBeside} read. */
export interface DriverRecordsBeside {
  readonly page: DriverRecordPage;
  /** The record at the other driver's path, or null when no file is there. */
  readonly record: DriverRecord | null;
}

/** What `updateById` changes: at least one of the two. */
export interface DriverUpdateChange {
  readonly content?: string | undefined;
  readonly path?: DriverPath | undefined;
}

/** Options of `updateById`. */
export interface DriverUpdateByIdOptions extends DriverChangeOptions {
  /** The SHA-256 (lowercase hex) the current content must have. */
  readonly expectSha256?: string | undefined;
  /** The store's `maxFileBytes`. */
  readonly maxFileBytes: number;
}

/** What `updateById` did. */
export interface DriverUpdateResult {
  /** The file's record after the call (without content). */
  readonly record: DriverRecord;
  /** False when the requested state was already there and nothing was written. */
  readonly changed: boolean;
}

/** Options of `remove`. */
export interface DriverRemoveOptions extends DriverChangeOptions {
  /**
   * What the file at the path must be, checked in the remove's atomic step (drivers with
   * `capabilities.removeExpect`): its id, its content's SHA-256 (lowercase hex), or both.
   */
  readonly expect?:
    | { readonly fileId?: string | undefined; readonly sha256?: string | undefined }
    | undefined;
}

// --- history -------------------------------------------------------------------------------

/** What a version says happened to its file. */
export type VersionOperation = 'created' | 'modified' | 'renamed' | 'deleted' | 'restored';

/** One version as a driver stores it (paths are driver paths, times server milliseconds). */
export interface DriverVersion {
  /**
   * The kit's `sequenceVersionId` of a counter kept per namespace (`memver_` and 16 digits), taken
   * in the change's atomic step: ids sort in the order the changes committed within the namespace,
   * as strings, and an id is never reused within the namespace's life (not after pruning; a
   * dropped namespace starts again from 1).
   */
  readonly id: string;
  /** `mem_` and 16 or more characters: the same for one file across renames. */
  readonly fileId: string;
  /** The path after the change (for a deletion: the path deleted); null once redacted. */
  readonly path: DriverPath | null;
  /** `renamed`: the path before; else null. Null once redacted. */
  readonly previousPath: DriverPath | null;
  readonly operation: VersionOperation;
  /** Lowercase hex SHA-256 of the UTF-8 content after the change; null for a deletion and once redacted. */
  readonly sha256: string | null;
  /** UTF-8 bytes of the content after the change; null for a deletion and once redacted. */
  readonly size: number | null;
  /** The server's time of the change, in ms since the epoch. */
  readonly at: number;
  readonly actor: Actor | null;
  readonly command: ChangeRecord['command'];
  /** The operation id of the command (shared by every version of one folder delete or rename). */
  readonly operationId: string;
  readonly toolUseId: string | null;
  /** `restored`: the version whose content was written back; else null. */
  readonly restoredFrom: string | null;
  /** When the version was redacted (server ms), or null. */
  readonly redactedAt: number | null;
}

/** A version with its content. */
export interface DriverVersionWithContent extends DriverVersion {
  /** The content after the change; null for a deletion and once redacted. */
  readonly content: string | null;
}

/** Which versions `listVersions` returns. Every field narrows; none given is every version. */
export interface DriverVersionQuery {
  /**
   * A file or a directory: versions whose `path` or `previousPath` is at or beneath it (`''`: all,
   * redacted ones included; otherwise redacted versions, which have no path, never match).
   */
  readonly path?: DriverPath | undefined;
  readonly fileId?: string | undefined;
  /** Versions whose actor has this id. */
  readonly actor?: string | undefined;
  /** Inclusive bounds on `at`, server ms. */
  readonly since?: number | undefined;
  readonly until?: number | undefined;
  readonly operations?: readonly VersionOperation[] | undefined;
  /** The cursor of the previous page (`next`): only versions older than it. */
  readonly cursor?: string | undefined;
  /** The most versions to return, 1 to 1,000. */
  readonly limit: number;
}

/** A page of versions. */
export interface DriverVersionPage {
  readonly versions: readonly DriverVersion[];
  /** Pass as `cursor` for the next page; null when there is none. */
  readonly next: string | null;
}

/** A point in the past: a server time in ms, or a version id (that version and everything before it). */
export type DriverPointInTime = { readonly time: number } | { readonly version: string };

/** One file of {@link MemoryDriver.treeAt}. */
export interface DriverTreeEntry {
  readonly path: DriverPath;
  /** The version that made the file what it was then (read its content with `readVersion`). */
  readonly version: string;
  readonly fileId: string;
  /** UTF-8 bytes and SHA-256 of the file's content then. */
  readonly size: number;
  readonly sha256: string;
}

/** Options of {@link MemoryDriver.treeAt}. */
export interface DriverTreeOptions extends DriverCallOptions {
  /** Only files at or beneath this path (a file or a directory; `''` or absent: all). */
  readonly path?: DriverPath | undefined;
}

/** Options of {@link MemoryDriver.restoreVersion}. */
export interface DriverRestoreOptions extends DriverChangeOptions {
  /** Where the content goes: another path, or (absent) the version's own. */
  readonly to?: DriverPath | undefined;
  /** The current content's SHA-256 (hex) that must hold, or null for "no file at `to`". */
  readonly expectSha256?: string | null | undefined;
  /** The store's `maxFileBytes`. */
  readonly maxFileBytes: number;
  /** Always present for a restore (command `restore`). */
  readonly record: ChangeRecord;
}

// --- admin ---------------------------------------------------------------------------------

/** Which namespaces `listNamespaces` returns. */
export interface DriverNamespaceQuery {
  readonly prefix?: string | undefined;
  /** Only names after this one (byte order): the `next` of the previous page. */
  readonly after?: string | undefined;
  /** 1 to 1,000. */
  readonly limit: number;
}

/** A page of namespace names. */
export interface DriverNamespacePage {
  readonly names: readonly string[];
  /** Pass as `after` for the next page; null when there is none. */
  readonly next: string | null;
}

/** What a namespace holds. */
export interface DriverUsage {
  /** Files (hidden ones included). */
  readonly files: number;
  /** UTF-8 bytes of all files. */
  readonly bytes: number;
  /** Versions kept (0 without history). */
  readonly versions: number;
  /**
   * The server time (ms) of the last change to a file (a write, an edit, a move, a removal, an
   * expiry, a restore), or null when nothing was ever changed (or since the namespace was dropped).
   */
  readonly lastChangeAt: number | null;
}

/** Options of {@link MemoryDriver.dropNamespace}. */
export interface DriverDropOptions extends DriverCallOptions {
  /** The most items (keys, rows, objects, files) to remove in this call. */
  readonly batch: number;
}

/** Options of {@link MemoryDriver.sweep}. */
export interface DriverSweepOptions extends DriverCallOptions {
  /** The operation id the deletions of this batch carry. */
  readonly op: string;
  /** Expire files whose last change (or touched read) is before this server time (ms); none: expire nothing. */
  readonly expireBefore?: number | undefined;
  /** Prune versions as these say, judged at `now`; none: prune nothing. */
  readonly retention?: { readonly keepVersions: number; readonly keepDays: number } | undefined;
  /** The time retention is judged at (ms): the server's time unless a test moves it. */
  readonly now?: number | undefined;
  /** How deletions are recorded (history on), actor `service`, command `sweep`. */
  readonly record?: ChangeRecord | undefined;
  /** The most files and versions to remove in this call. */
  readonly batch: number;
}
