/**
 * The six commands of the memory tool, as Claude sends them (SPEC section 1). The shapes match the
 * Anthropic SDK's `BetaMemoryTool20250818*Command` types, so a {@link MemoryStore} can be handed to
 * `betaMemoryTool()` as its handlers. Optional fields may also be `null`, which counts as omitted.
 */
export interface ViewCommand {
  command: 'view';
  path: string;
  /** `[start, end]`, 1-based and inclusive; `end = -1` reads to the end of the file. */
  view_range?: number[] | null;
}

export interface CreateCommand {
  command: 'create';
  path: string;
  file_text: string;
}

export interface StrReplaceCommand {
  command: 'str_replace';
  path: string;
  old_str: string;
  /** Omitted or `null` deletes `old_str`. */
  new_str?: string | null;
}

export interface InsertCommand {
  command: 'insert';
  path: string;
  /** Insert after this line; `0` inserts at the top. */
  insert_line: number;
  insert_text: string;
}

export interface DeleteCommand {
  command: 'delete';
  path: string;
}

export interface RenameCommand {
  command: 'rename';
  old_path: string;
  new_path: string;
}

/** Any one tool input of the memory tool. */
export type MemoryCommand =
  | ViewCommand
  | CreateCommand
  | StrReplaceCommand
  | InsertCommand
  | DeleteCommand
  | RenameCommand;

/** The name of a memory command. */
export type MemoryCommandName = MemoryCommand['command'];

/** The command names, in the order the tool documents them. */
export const MEMORY_COMMANDS: readonly MemoryCommandName[] = [
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
];

/**
 * A memory store: the six commands of the memory tool over some storage. Each method resolves to the
 * text Claude reads, or rejects with a `MemoryToolError` whose message is the text Claude reads.
 * Every method checks its input as untrusted (it may come straight from the model).
 */
export interface MemoryStore {
  view(command: ViewCommand): Promise<string>;
  create(command: CreateCommand): Promise<string>;
  str_replace(command: StrReplaceCommand): Promise<string>;
  insert(command: InsertCommand): Promise<string>;
  delete(command: DeleteCommand): Promise<string>;
  rename(command: RenameCommand): Promise<string>;
  /** Checks a raw tool input (untrusted, any shape) and runs it. */
  execute(input: unknown): Promise<string>;
  /** Releases what the store holds (connections, handles). The store must not be used afterwards. */
  close(): Promise<void>;
  /**
   * What the store's backend can do, when the store knows (stores made by `createMemoryStore` give
   * their driver's). The conformance suite reads it to adapt the few tests that depend on it.
   */
  readonly capabilities?: DriverCapabilities | undefined;
}

/** Options every store takes (SPEC section 3). They belong to the application, never to tool input. */
export interface MemoryStoreOptions {
  /**
   * Isolates this store's files from every other namespace on the same backend (and from the
   * store without a namespace). 1 to 128 characters from `A-Z a-z 0-9 . _ - @ + =`, not starting
   * with `.`.
   * @default undefined (the backend's default space)
   */
  namespace?: string | undefined;
  /**
   * Whether `create` replaces an existing file. With `false` it fails with `ALREADY_EXISTS`.
   * @default true
   */
  overwrite?: boolean | undefined;
  /**
   * The largest file, in UTF-8 bytes, that `create`, `str_replace` and `insert` may write.
   * @default 1048576 (1 MiB)
   */
  maxFileBytes?: number | undefined;
  /**
   * The most characters of file content or listing one `view` returns before it truncates.
   * @default 16000
   */
  maxViewChars?: number | undefined;
  /**
   * The longest the engine waits for one call to the storage backend, in milliseconds. Past it the
   * command fails with `BACKEND`; for a change, the message says it may or may not have been saved
   * (SPEC section 7). The driver's call is told through its `signal` to give up.
   * @default 5000
   */
  timeoutMs?: number | undefined;
}

// --- The driver contract (v2) ---------------------------------------------------------------------

declare const memoryPathBrand: unique symbol;
declare const driverPathBrand: unique symbol;

/**
 * A memory path after {@link normalizeMemoryPath}: `/memories` or `/memories/...`, NFC, no empty, `.`
 * or `..` segment, no trailing slash. What results and messages echo.
 */
export type MemoryPath = string & { readonly [memoryPathBrand]: true };

/**
 * A driver path: a {@link MemoryPath} without `/memories` and its slash, so the root is `''` and
 * `/memories/notes/a.md` is `notes/a.md`. What drivers receive. Names are literal: no character in
 * them is special (SPEC section 3).
 */
export type DriverPath = string & { readonly [driverPathBrand]: true };

/** What a driver can do. The engine and the conformance suite read it from the driver itself. */
export interface DriverCapabilities {
  /** True when moving or deleting a directory is one atomic step (false on S3, SPEC section 6). */
  readonly atomicRename: boolean;
  /**
   * The longest normalised memory path (`/memories/...`, UTF-8 bytes) this driver can hold, when
   * below the protocol's 1024 (S3 keys are at most 1024 bytes, prefix included). The engine refuses
   * longer paths with `INVALID_PATH`, giving this limit.
   * @default 1024
   */
  readonly maxPathBytes?: number | undefined;
  /**
   * The largest file content, in UTF-8 bytes, the backend can hold. `createMemoryStore` refuses a
   * `maxFileBytes` option above it.
   * @default no limit of its own
   */
  readonly maxFileBytes?: number | undefined;
  /**
   * True when the driver records operation ids ({@link DriverChangeOptions.op}): a change call
   * that arrives again with the id of a call that already changed something returns that first
   * outcome and applies nothing again (SPEC section 7). A driver whose client may resend a request
   * (after a reconnect, or an SDK retry) must do this and say so; the conformance suite then checks
   * replays. A driver whose calls can never arrive twice need not record anything.
   * @default false
   */
  readonly replaySafe?: boolean | undefined;
}

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
}

/** A condition `write` checks in the same atomic step as the write. */
export type WriteExpectation =
  /** The file must exist with exactly this version. */
  | { readonly version: string }
  /** No file may exist at the path. */
  | { readonly absent: true };

/** What every driver call may receive. */
export interface DriverCallOptions {
  /**
   * Aborted when the engine stops waiting (its deadline, {@link MemoryStoreOptions.timeoutMs}). A
   * driver should give up the request (an HTTP abort, say); the engine has already reported the
   * command as failed.
   */
  readonly signal?: AbortSignal | undefined;
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
}

/** Options of {@link MemoryDriver.write}. */
export interface DriverWriteOptions extends DriverChangeOptions {
  /** Checked in the same atomic step as the write; none means "create or replace". */
  readonly expect?: WriteExpectation | undefined;
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
 * The storage primitives an adapter implements, over one namespace of one backend (contract v2). The
 * `@memdir/core/driver` kit has the helpers most drivers need; the README's implementor section says
 * how each backend meets these guarantees.
 *
 * Paths are {@link DriverPath}s, validated and normalised by the engine; a driver never re-checks
 * them. A directory exists exactly while at least one file lies beneath it; `''` (the root) always.
 *
 * Errors: a refusal is a `MemoryToolError` with the code given and `path` set to the driver path it
 * concerns (make them with the kit's `refuse*` functions); its message never reaches the model (the
 * engine writes its own). Any other failure should be a `MemoryToolError` `BACKEND` whose message
 * says what failed in plain words, without secrets or host paths (the kit's `storeUnavailable` and
 * `outcomeUnknown`), with the original error on `cause`; anything else thrown is reported as an
 * unexpected `BACKEND` failure.
 *
 * Every command costs the fewest calls the driver allows: `view` one (`describe`), `create`,
 * `delete` and `rename` one, `str_replace` and `insert` two (`read`, then `write` with `expect`), or
 * one with `update`.
 */
export interface MemoryDriver {
  readonly capabilities: DriverCapabilities;

  /**
   * A driver over namespace `name` of the same backend. The files of each namespace, and those of
   * the driver it was called on, are disjoint: no path in one can reach the other. Calling it on a
   * namespaced driver nests the namespace. The returned driver shares the backend's connection;
   * closing it does not close the parent.
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
   * Refuses, writing nothing, with:
   * - `PATH_CONFLICT` (path: the ancestor) when an ancestor of `path` is a file;
   * - `PATH_CONFLICT` (path: `path`) when `path` is a directory;
   * - `CONFLICT` (path: `path`) when `expect` does not hold (the version differs, the file is
   *   missing, or a file exists where `{ absent: true }` was expected).
   * @returns the new version.
   */
  write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<{ version: string }>;

  /**
   * Optional fast path for a read-modify-write (`str_replace`, `insert`): in one atomic step (under
   * the driver's lock, or in one transaction), read the file at `path`, call `edit` with its
   * content, and write what `edit` returns. When `edit` throws, nothing is written and the error
   * propagates as is. Without it the engine reads, then writes with `{ version }`, and retries when
   * the compare-and-swap loses.
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
   * `capabilities.atomicRename`. Never called with `''`.
   * @returns false when nothing was there.
   */
  remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean>;

  /**
   * Moves file or directory `from` (with everything beneath it) to `to`, creating `to`'s parents.
   * Never called with `''`, nor with `to` beneath `from` or equal to it. Refuses, moving nothing,
   * with, in this order:
   * - `NOT_FOUND` (path: `from`) when nothing is at `from`;
   * - `PATH_CONFLICT` (path: the ancestor) when an ancestor of `to` is a file;
   * - `ALREADY_EXISTS` (path: `to`) when a file or directory is at `to`.
   */
  move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void>;

  /** Releases connections or handles the driver opened itself. Idempotent. */
  close(): Promise<void>;
}
