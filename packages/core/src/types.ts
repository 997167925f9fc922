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
}

/** What a driver can do; the engine and the conformance suite read it. */
export interface DriverCapabilities {
  /** True when moving or deleting a directory is one atomic step (false on S3). */
  readonly atomicRename: boolean;
}

/** A file as a driver returns it. */
export interface DriverFile {
  /** The whole content, decoded as UTF-8. */
  content: string;
  /** Opaque; changes whenever the content is replaced. Compared only for equality. */
  version: string;
}

/** One file in a listing. */
export interface DriverEntry {
  /** The file's driver path (from the namespace root, e.g. `notes/a.md`), not relative to the listed dir. */
  path: string;
  /** The file's size in UTF-8 bytes. */
  size: number;
}

/** A condition `write` checks in the same atomic step as the write. */
export type WriteExpectation =
  /** The file must exist with exactly this version. */
  | { version: string }
  /** No file may exist at the path. */
  | { absent: true };

/**
 * The storage primitives an adapter implements, over one namespace of one backend. See the
 * implementor section of the README for how each backend meets these guarantees.
 *
 * Paths are driver paths: normalised memory paths without the `/memories/` prefix (`''` is the root,
 * `notes/a.md` a file). The engine validates every path before calling a driver; a driver never
 * re-checks them. A directory exists exactly while at least one file lies beneath it.
 *
 * Errors: the refusals below are `MemoryToolError`s with the code given and `path` set to the path
 * concerned; their messages are never shown to the model (the engine writes its own). Any other
 * failure should be a `MemoryToolError` with code `BACKEND`, a plain-words message without secrets
 * or host paths, and the original error on `cause`; anything else thrown is wrapped as `BACKEND`.
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

  /** The file at `path`: null when no file is there (nothing, or a directory). */
  read(path: string): Promise<DriverFile | null>;

  /** What is at `path`: `'directory'` for `''` always, and for any path with a file beneath it. */
  stat(path: string): Promise<'file' | 'directory' | null>;

  /**
   * Writes a whole file, creating its parent directories. Atomic: readers see the old or the new
   * content, never a mix, and the checks below happen in the same atomic step as the write.
   * Refuses, writing nothing, with:
   * - `PATH_CONFLICT` (path: the ancestor) when an ancestor of `path` is a file;
   * - `PATH_CONFLICT` (path: `path`) when `path` is a directory;
   * - `CONFLICT` when `expect` does not hold (the version differs, or the file is missing, or a file
   *   exists where `{ absent: true }` was expected).
   * @returns the new version.
   */
  write(path: string, content: string, expect?: WriteExpectation): Promise<{ version: string }>;

  /**
   * Optional fast path for a read-modify-write (`str_replace`, `insert`): in one atomic step (under
   * the driver's lock, or in one transaction), read the file at `path`, call `edit` with its
   * content, and write what `edit` returns. When `edit` throws, nothing is written and the error
   * propagates as is. Without this method the engine reads, then writes with `{ version }`, and
   * retries when the compare-and-swap loses; a backend that can hold a lock across the edit saves
   * the second read and the retries.
   * @returns false, calling nothing, when no file is at `path` (nothing, or a directory).
   */
  update?(path: string, edit: (content: string) => string): Promise<boolean>;

  /**
   * Every file beneath directory `dir` (`''` for all), at any depth, in any order; nothing when `dir`
   * does not exist. Should be a consistent snapshot (no file seen twice or missed by a concurrent
   * move). When `options.skipHidden` is set the driver may, for an entry under `dir` with a hidden
   * name (starting with `.`, or `node_modules`), report that one entry with any size instead of
   * every file beneath it: hidden files count for nothing in a listing except that the visible
   * directories above them exist, and the engine filters them anyway.
   */
  list(dir: string, options?: { skipHidden?: boolean }): AsyncIterable<DriverEntry>;

  /**
   * Removes the file at `path`, or directory `path` with everything beneath it, atomically when
   * `capabilities.atomicRename`. Never called with `''`.
   * @returns false when nothing was there.
   */
  remove(path: string): Promise<boolean>;

  /**
   * Moves file or directory `from` (with everything beneath it) to `to`, creating `to`'s parents.
   * Never called with `''`, nor with `to` beneath `from`. Refuses, moving nothing, with:
   * - `NOT_FOUND` (path: `from`) when nothing is at `from`;
   * - `PATH_CONFLICT` (path: the ancestor) when an ancestor of `to` is a file;
   * - `ALREADY_EXISTS` (path: `to`) when a file or directory is at `to`.
   */
  move(from: string, to: string): Promise<void>;

  /** Releases connections or handles the driver opened itself. Idempotent. */
  close(): Promise<void>;
}
