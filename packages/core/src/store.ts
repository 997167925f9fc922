import {
  isMemoryToolError,
  MemoryToolError,
  type MemoryToolErrorCode,
  unexpectedBackendFailure,
} from './errors.js';
import {
  commandName,
  parseCreate,
  parseDelete,
  parseInsert,
  parseRename,
  parseStrReplace,
  parseView,
} from './input.js';
import {
  driverAncestors,
  isBeneath,
  isHiddenName,
  MEMORY_ROOT,
  normalizeMemoryPath,
  toDriverPath,
  toMemoryPath,
} from './path.js';
import { fileViewHeader, type ListingEntry, renderFileBody, renderListing, renderSnippet } from './render.js';
import type { MemoryDriver, MemoryStore, MemoryStoreOptions } from './types.js';

/** Default of {@link MemoryStoreOptions.maxFileBytes}: 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1_048_576;
/** Default of {@link MemoryStoreOptions.maxViewChars}. */
export const DEFAULT_MAX_VIEW_CHARS = 16_000;
/** The most lines `view` shows of one file (SPEC section 4.1). */
export const MAX_VIEW_LINES = 999_999;

// A read-modify-write (str_replace, insert) that loses its compare-and-swap starts over from a fresh
// read. Under heavy contention many writers retry at once, so the wait grows and is jittered; the
// budget is bounded in attempts and time so a command never spins forever.
const MAX_ATTEMPTS = 200;
const RETRY_BUDGET_MS = 15_000;
const MAX_BACKOFF_MS = 25;

const NAMESPACE_PATTERN = /^[A-Za-z0-9_@+=-][A-Za-z0-9._@+=-]{0,127}$/;

/** Thrown inside a read-modify-write when it must start over on fresh content. */
class StartOver {
  constructor(readonly cause?: unknown) {}
}

/**
 * Checks a namespace name given by the application.
 * @throws TypeError when it is not 1-128 characters from `A-Z a-z 0-9 . _ - @ + =` or starts with `.`.
 */
export function validateNamespace(namespace: string): string {
  if (typeof namespace !== 'string' || !NAMESPACE_PATTERN.test(namespace)) {
    throw new TypeError(
      `Invalid memdir namespace ${JSON.stringify(namespace)}: use 1 to 128 characters from A-Z a-z 0-9 . _ - @ + = and do not start with "."`,
    );
  }
  return namespace;
}

function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`Invalid memdir option ${name}: expected a positive integer, got ${String(value)}`);
  }
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Wraps anything a driver throws that is not a `MemoryToolError` as a `BACKEND` error. */
function backendError(cause: unknown): MemoryToolError {
  if (isMemoryToolError(cause) && cause.code === 'BACKEND') return cause;
  return unexpectedBackendFailure(cause);
}

/** True for a driver refusal with one of `codes`; anything else is rethrown as a backend failure. */
function isRefusal(error: unknown, ...codes: MemoryToolErrorCode[]): error is MemoryToolError {
  if (isMemoryToolError(error) && codes.includes(error.code)) return true;
  // A driver may refuse a path itself (the filesystem store's symlink check): that is for the model.
  if (isMemoryToolError(error) && error.code === 'INVALID_PATH') throw error;
  throw backendError(error);
}

/** The UTF-8 length of `text`, without encoding it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function tooLarge(path: string, bytes: number, limit: number): MemoryToolError {
  return new MemoryToolError(
    'TOO_LARGE',
    `File ${path} would be ${bytes} bytes, over the limit of ${limit} bytes. Nothing was written.`,
  );
}

function notFoundForEdit(path: string): MemoryToolError {
  return new MemoryToolError('NOT_FOUND', `The path ${path} does not exist. Please provide a valid path.`);
}

function notAFile(path: string): MemoryToolError {
  return new MemoryToolError('NOT_A_FILE', `The path ${path} is not a file.`);
}

/** The 1-based line of each offset in `content` (offsets ascending). */
function linesOfOffsets(content: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const offset of offsets) {
    for (let index = content.indexOf('\n', scanned); index !== -1 && index < offset; ) {
      line++;
      index = content.indexOf('\n', index + 1);
    }
    // Every newline before `offset` is now counted; resume scanning from here for the next offset.
    scanned = offset;
    lines.push(line);
  }
  return lines;
}

/**
 * The memdir engine: the six commands of the memory tool, with SPEC.md's exact strings, limits and
 * error order, on top of any {@link MemoryDriver}. Every adapter is this engine over its driver.
 *
 * `close()` closes the driver the store works on: give each store its own driver, or a namespaced
 * one (`driver.namespace(name)`, which closing leaves the parent open).
 */
export function createMemoryStore(driver: MemoryDriver, options: MemoryStoreOptions = {}): MemoryStore {
  const namespace = options.namespace === undefined ? undefined : validateNamespace(options.namespace);
  const overwrite = options.overwrite ?? true;
  if (typeof overwrite !== 'boolean')
    throw new TypeError('Invalid memdir option overwrite: expected a boolean');
  const maxFileBytes = positiveInteger(options.maxFileBytes, 'maxFileBytes', DEFAULT_MAX_FILE_BYTES);
  const maxViewChars = positiveInteger(options.maxViewChars, 'maxViewChars', DEFAULT_MAX_VIEW_CHARS);
  const files = namespace === undefined ? driver : driver.namespace(namespace);
  let closed = false;

  /** Runs a driver call, turning unknown failures into `BACKEND` errors. */
  async function io<T>(call: () => Promise<T>): Promise<T> {
    if (closed) throw new MemoryToolError('BACKEND', 'The memory store is closed.');
    try {
      return await call();
    } catch (error) {
      if (isMemoryToolError(error)) throw error;
      throw backendError(error);
    }
  }

  /** The ancestor of `path` that is a file, if any (only one can be). */
  async function fileAncestor(path: string): Promise<string | undefined> {
    for (const ancestor of driverAncestors(path)) {
      const kind = await io(() => files.stat(ancestor));
      if (kind === 'file') return ancestor;
      if (kind === null) return undefined;
    }
    return undefined;
  }

  function parentIsAFile(path: string, parent: string): MemoryToolError {
    return new MemoryToolError('PATH_CONFLICT', `Cannot create ${path}: ${toMemoryPath(parent)} is a file`);
  }

  /** Turns a driver's PATH_CONFLICT on writing `path` into the message of SPEC section 4.2. */
  async function explainWriteConflict(path: string, error: MemoryToolError): Promise<MemoryToolError> {
    const memoryPath = toMemoryPath(path);
    let conflict = error.path;
    if (conflict === undefined || (conflict !== path && !isBeneath(path, conflict))) {
      conflict = (await fileAncestor(path)) ?? path;
    }
    if (conflict === path) {
      return new MemoryToolError('PATH_CONFLICT', `The path ${memoryPath} is a directory`);
    }
    return parentIsAFile(memoryPath, conflict);
  }

  /**
   * Runs one read-modify-write until its compare-and-swap holds. `attempt` reads, computes and
   * writes with `{ version }`; a CONFLICT or PATH_CONFLICT from the driver means the file changed
   * under it, so it runs again on the new content (and reports whatever that content warrants).
   */
  async function retrying(path: string, attempt: () => Promise<string>): Promise<string> {
    const deadline = Date.now() + RETRY_BUDGET_MS;
    for (let round = 0; ; round++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof StartOver)) throw error;
        if (round + 1 >= MAX_ATTEMPTS || Date.now() >= deadline) {
          throw new MemoryToolError(
            'CONFLICT',
            `The file ${path} kept changing while it was being edited, so nothing was changed. Try again.`,
            { cause: error.cause },
          );
        }
        await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
      }
    }
  }

  /** Writes `content` over version `version` of `path`, or signals `retrying` to start over. */
  async function compareAndSwap(path: string, content: string, version: string): Promise<void> {
    try {
      await io(() => files.write(path, content, { version }));
    } catch (error) {
      if (isRefusal(error, 'CONFLICT', 'PATH_CONFLICT')) {
        throw new StartOver(error);
      }
    }
  }

  /** Reads the file an edit works on, with the errors of SPEC sections 4.3 and 4.4. */
  async function readForEdit(memoryPath: string, path: string) {
    if (path === '') throw notAFile(memoryPath);
    const file = await io(() => files.read(path));
    if (file) return file;
    const kind = await io(() => files.stat(path));
    if (kind === 'directory') throw notAFile(memoryPath);
    if (kind === 'file') {
      // It appeared between the two calls: start over.
      throw new StartOver();
    }
    throw notFoundForEdit(memoryPath);
  }

  /**
   * One read-modify-write of the file at `path`: `transform` computes the new content and the
   * result text from the current content, or throws the error the model should read. Uses the
   * driver's `update` when it has one (one atomic step), else reads and compare-and-swaps,
   * starting over when another writer got in between.
   */
  async function editFile(
    memoryPath: string,
    path: string,
    transform: (content: string) => { updated: string; result: string },
  ): Promise<string> {
    const apply = (content: string) => {
      const change = transform(content);
      const bytes = utf8Length(change.updated);
      if (bytes > maxFileBytes) throw tooLarge(memoryPath, bytes, maxFileBytes);
      return change;
    };
    const update = files.update?.bind(files);
    return retrying(memoryPath, async () => {
      if (update && path !== '') {
        let result: string | undefined;
        const found = await io(() =>
          update(path, (content) => {
            const change = apply(content);
            result = change.result;
            return change.updated;
          }),
        );
        if (found) return result!;
        // No file: say whether it is a directory or missing, as the read path does.
        await readForEdit(memoryPath, path);
        throw new StartOver();
      }
      const file = await readForEdit(memoryPath, path);
      const change = apply(file.content);
      await compareAndSwap(path, change.updated, file.version);
      return change.result;
    });
  }

  /**
   * The listing of directory `path`, or null when the directory vanished after the caller saw it
   * (a concurrent delete or rename): the caller then looks again, so the view behaves as if it ran
   * entirely before or after that command.
   */
  async function viewDirectory(memoryPath: string, path: string): Promise<string | null> {
    const entries = new Map<
      string,
      { size: number; children: Map<string, { size: number; directory: boolean }> | null }
    >();
    let total = 0;
    let listed = 0;
    const prefixLength = path === '' ? 0 : path.length + 1;
    await io(async () => {
      for await (const entry of files.list(path, { skipHidden: true })) {
        if (!isBeneath(entry.path, path)) continue;
        listed++;
        const segments = entry.path.slice(prefixLength).split('/');
        // A hidden name hides itself and everything beneath it, but the visible directories above
        // it still exist (a directory exists while any file lies beneath it, SPEC section 3): they
        // are listed, and the hidden file adds nothing to their sizes.
        const hiddenAt = segments.findIndex(isHiddenName);
        const visible = hiddenAt === -1 ? segments.length : hiddenAt;
        if (visible === 0) continue;
        const size = hiddenAt === -1 ? entry.size : 0;
        total += size;
        const [first, second] = segments as [string, string | undefined];
        let top = entries.get(first);
        if (!top) {
          top = { size: 0, children: segments.length === 1 ? null : new Map() };
          entries.set(first, top);
        }
        top.size += size;
        if (visible >= 2 && second !== undefined && top.children) {
          const child = top.children.get(second) ?? { size: 0, directory: segments.length > 2 };
          child.size += size;
          top.children.set(second, child);
        }
      }
    });
    // Nothing listed below a directory that is not the root: either it holds only hidden files the
    // driver skipped, or it was deleted or moved since it was seen. Only the second is a race.
    if (listed === 0 && path !== '' && (await io(() => files.stat(path))) !== 'directory') return null;
    const listing: ListingEntry[] = [];
    for (const name of [...entries.keys()].sort()) {
      const top = entries.get(name)!;
      listing.push({ relative: name, directory: top.children !== null, size: top.size });
      if (!top.children) continue;
      for (const childName of [...top.children.keys()].sort()) {
        const child = top.children.get(childName)!;
        listing.push({ relative: `${name}/${childName}`, directory: child.directory, size: child.size });
      }
    }
    return renderListing(memoryPath, total, listing, maxViewChars);
  }

  function viewFile(memoryPath: string, content: string, range: number[] | undefined | null): string {
    const lines = content.split('\n');
    let first = 1;
    let last = lines.length;
    if (range) {
      const [start, end] = range as [number, number];
      if (start > lines.length) {
        throw new MemoryToolError(
          'INVALID_INPUT',
          `Invalid \`view_range\` parameter: [${start}, ${end}]. Its first element \`${start}\` should be within the range of lines of the file: [1, ${lines.length}]`,
        );
      }
      first = start;
      if (end !== -1) last = Math.min(end, lines.length);
    }
    if (lines.length > MAX_VIEW_LINES) {
      throw new MemoryToolError(
        'TOO_LARGE',
        `File ${memoryPath} has too many lines (${lines.length}). Maximum is 999,999 lines.`,
      );
    }
    return fileViewHeader(memoryPath) + renderFileBody(lines, first, last, maxViewChars);
  }

  const store: MemoryStore = {
    async view(input) {
      const command = parseView(input);
      const memoryPath = normalizeMemoryPath(command.path);
      const path = toDriverPath(memoryPath);
      if (path === '') return (await viewDirectory(memoryPath, path))!;
      for (;;) {
        const file = await io(() => files.read(path));
        if (file) return viewFile(memoryPath, file.content, command.view_range);
        const kind = await io(() => files.stat(path));
        if (kind === 'directory') {
          const listing = await viewDirectory(memoryPath, path);
          if (listing !== null) return listing;
          continue;
        }
        if (kind === null) {
          throw new MemoryToolError(
            'NOT_FOUND',
            `The path ${memoryPath} does not exist. Please provide a valid path.`,
          );
        }
        // A file appeared between read and stat, or the directory vanished: look again.
      }
    },

    async create(input) {
      const command = parseCreate(input);
      const memoryPath = normalizeMemoryPath(command.path);
      const path = toDriverPath(memoryPath);
      if (path === '') throw new MemoryToolError('PATH_CONFLICT', `The path ${memoryPath} is a directory`);
      const bytes = utf8Length(command.file_text);
      if (bytes > maxFileBytes) {
        // TOO_LARGE is reported last (SPEC section 1): look for every other error first.
        const kind = await io(() => files.stat(path));
        if (kind === 'directory') {
          throw new MemoryToolError('PATH_CONFLICT', `The path ${memoryPath} is a directory`);
        }
        const ancestor = kind === null ? await fileAncestor(path) : undefined;
        if (ancestor !== undefined) throw parentIsAFile(memoryPath, ancestor);
        if (kind === 'file' && !overwrite) {
          throw new MemoryToolError('ALREADY_EXISTS', `File ${memoryPath} already exists`);
        }
        throw tooLarge(memoryPath, bytes, maxFileBytes);
      }
      try {
        await io(() => files.write(path, command.file_text, overwrite ? undefined : { absent: true }));
      } catch (error) {
        if (isRefusal(error, 'PATH_CONFLICT', 'CONFLICT')) {
          if (error.code === 'PATH_CONFLICT') throw await explainWriteConflict(path, error);
          throw new MemoryToolError('ALREADY_EXISTS', `File ${memoryPath} already exists`);
        }
      }
      return `File created successfully at: ${memoryPath}`;
    },

    async str_replace(input) {
      const command = parseStrReplace(input);
      const memoryPath = normalizeMemoryPath(command.path);
      const path = toDriverPath(memoryPath);
      const { old_str: oldStr, new_str: newStr } = command;
      return editFile(memoryPath, path, (content) => {
        const offsets: number[] = [];
        // Overlapping occurrences count: `aa` occurs twice in `aaa`.
        for (let at = content.indexOf(oldStr); at !== -1; at = content.indexOf(oldStr, at + 1)) {
          offsets.push(at);
        }
        if (offsets.length === 0) {
          throw new MemoryToolError(
            'NO_MATCH',
            `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${memoryPath}.`,
          );
        }
        if (offsets.length > 1) {
          throw new MemoryToolError(
            'MULTIPLE_MATCHES',
            `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${linesOfOffsets(content, offsets).join(', ')}. Please ensure it is unique`,
          );
        }
        const at = offsets[0]!;
        const updated = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
        return { updated, result: renderSnippet(updated, linesOfOffsets(content, [at])[0]! - 1) };
      });
    },

    async insert(input) {
      const command = parseInsert(input);
      const memoryPath = normalizeMemoryPath(command.path);
      const path = toDriverPath(memoryPath);
      const text = command.insert_text.endsWith('\n')
        ? command.insert_text.slice(0, -1)
        : command.insert_text;
      return editFile(memoryPath, path, (content) => {
        const lines = content.split('\n');
        if (command.insert_line < 0 || command.insert_line > lines.length) {
          throw new MemoryToolError(
            'INVALID_LINE',
            `Invalid \`insert_line\` parameter: ${command.insert_line}. It should be within the range of lines of the file: [0, ${lines.length}]`,
          );
        }
        lines.splice(command.insert_line, 0, text);
        return { updated: lines.join('\n'), result: `The file ${memoryPath} has been edited.` };
      });
    },

    async delete(input) {
      const command = parseDelete(input);
      const memoryPath = normalizeMemoryPath(command.path);
      const path = toDriverPath(memoryPath);
      if (path === '') {
        throw new MemoryToolError('ROOT_PROTECTED', `Cannot delete the ${MEMORY_ROOT} directory itself`);
      }
      if (!(await io(() => files.remove(path)))) {
        throw new MemoryToolError('NOT_FOUND', `The path ${memoryPath} does not exist`);
      }
      return `Successfully deleted ${memoryPath}`;
    },

    async rename(input) {
      const command = parseRename(input);
      const oldMemoryPath = normalizeMemoryPath(command.old_path);
      const newMemoryPath = normalizeMemoryPath(command.new_path);
      const from = toDriverPath(oldMemoryPath);
      const to = toDriverPath(newMemoryPath);
      if (from === '' || to === '') {
        throw new MemoryToolError('ROOT_PROTECTED', `Cannot rename the ${MEMORY_ROOT} directory itself`);
      }
      const notFound = () => new MemoryToolError('NOT_FOUND', `The path ${oldMemoryPath} does not exist`);
      if (isBeneath(to, from)) {
        // NOT_FOUND outranks PATH_CONFLICT (SPEC section 1).
        if ((await io(() => files.stat(from))) === null) throw notFound();
        throw new MemoryToolError('PATH_CONFLICT', `Cannot move ${oldMemoryPath} into itself`);
      }
      try {
        await io(() => files.move(from, to));
      } catch (error) {
        if (isRefusal(error, 'NOT_FOUND', 'PATH_CONFLICT', 'ALREADY_EXISTS')) {
          if (error.code === 'NOT_FOUND') throw notFound();
          if (error.code === 'ALREADY_EXISTS') {
            throw new MemoryToolError('ALREADY_EXISTS', `The destination ${newMemoryPath} already exists`);
          }
          const ancestor =
            error.path !== undefined && isBeneath(to, error.path) ? error.path : await fileAncestor(to);
          if (ancestor === undefined) throw backendError(error);
          throw parentIsAFile(newMemoryPath, ancestor);
        }
      }
      return `Successfully renamed ${oldMemoryPath} to ${newMemoryPath}`;
    },

    async execute(input) {
      switch (commandName(input)) {
        case 'view':
          return store.view(input as never);
        case 'create':
          return store.create(input as never);
        case 'str_replace':
          return store.str_replace(input as never);
        case 'insert':
          return store.insert(input as never);
        case 'delete':
          return store.delete(input as never);
        case 'rename':
          return store.rename(input as never);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await files.close();
    },
  };
  return store;
}
