// What every command runs on: the store's options, its paths, and its driver seen through one
// gate that bounds each call in time, gives the call its operation id, and turns whatever the driver
// throws into the errors the commands expect (SPEC section 7).
import {
  isMemoryToolError,
  MemoryToolError,
  type MemoryToolErrorCode,
  unexpectedBackendFailure,
} from '../errors.js';
import {
  changeOutcomeUnknown,
  noAnswerWithin,
  STORE_CLOSED,
  SYMLINK_ESCAPE,
  storeUnavailable,
} from '../messages.js';
import { normalizeMemoryPath, toDriverPath } from '../path.js';
import type {
  DriverCapabilities,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverPath,
  MemoryDriver,
  MemoryPath,
  WriteExpectation,
} from '../types.js';

/** The store options, checked, with their defaults. */
export interface EngineOptions {
  readonly overwrite: boolean;
  readonly maxFileBytes: number;
  readonly maxViewChars: number;
  readonly timeoutMs: number;
}

/** A path as a command holds it: the normalised memory path (for messages) and the driver's form. */
export interface CommandPath {
  readonly memory: MemoryPath;
  readonly driver: DriverPath;
}

/** Refusal codes a driver may raise; which ones a given call may raise is the caller's to say. */
type Refusal = Extract<MemoryToolErrorCode, 'PATH_CONFLICT' | 'CONFLICT' | 'NOT_FOUND' | 'ALREADY_EXISTS'>;

/** An operation id: 122 random bits, as a UUID (SPEC section 7: a replay is made harmless). */
function newOperationId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * A call's abort signal, made only if the driver asks for it: most drivers never read it, and an
 * AbortController costs more than the rest of the engine's work on a call.
 */
class LazySignal {
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** The options every driver call gets; `signal` is made on first read. */
class CallOptions {
  constructor(readonly lazy: LazySignal) {}
  get signal(): AbortSignal {
    return this.lazy.signal;
  }
}

/** The options of a change call: the operation id too. */
class ChangeOptions extends CallOptions {
  constructor(
    lazy: LazySignal,
    readonly op: string,
  ) {
    super(lazy);
  }
}

/** The options of `write`. */
class WriteOptions extends ChangeOptions {
  constructor(
    lazy: LazySignal,
    op: string,
    readonly expect: WriteExpectation | undefined,
  ) {
    super(lazy, op);
  }
}

/** The options of `describe`. */
class DescribeOptions extends CallOptions {
  constructor(
    lazy: LazySignal,
    readonly limit: number,
  ) {
    super(lazy);
  }
}

/** The engine's view of one store: options, paths, and the driver calls of each command. */
export class Engine {
  readonly capabilities: DriverCapabilities;
  #closed = false;

  constructor(
    readonly driver: MemoryDriver,
    readonly options: EngineOptions,
  ) {
    this.capabilities = driver.capabilities;
  }

  /** Checks and normalises a path the model sent (SPEC section 2, with the driver's own limit). */
  path(input: string): CommandPath {
    const memory = normalizeMemoryPath(input, { maxPathBytes: this.capabilities.maxPathBytes });
    return { memory, driver: toDriverPath(memory) };
  }

  /** A new command's driver calls, all carrying one operation id. */
  operation(): Operation {
    if (this.#closed) throw new MemoryToolError('BACKEND', STORE_CLOSED);
    return new Operation(this);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.driver.close();
  }
}

/**
 * The driver calls of one command. Each call is bounded by the store's deadline (past it the driver's
 * signal is aborted and the command fails with `BACKEND`: for a change, "may or may not have been
 * saved"); refusals the caller expects come back as they are, with their `path`; anything else the
 * driver throws becomes a `BACKEND` error the model may read.
 */
export class Operation {
  #id: string | undefined;

  constructor(readonly engine: Engine) {}

  /** Made once per command, when its first change call is made; every change call carries it. */
  get id(): string {
    this.#id ??= newOperationId();
    return this.#id;
  }

  get #files(): MemoryDriver {
    return this.engine.driver;
  }

  read(path: DriverPath): Promise<DriverFile | DriverDirectory | null> {
    return this.#call(false, [], (lazy) => this.#files.read(path, new CallOptions(lazy)));
  }

  /** What is at `path`, without its content when the driver can say so. */
  kind(path: DriverPath): Promise<'file' | 'directory' | null> {
    const files = this.#files;
    if (files.stat) {
      const stat = files.stat.bind(files);
      return this.#call(false, [], (lazy) => stat(path, new CallOptions(lazy)));
    }
    return this.read(path).then((node) => node?.kind ?? null);
  }

  /** The driver's one-call view, when it has one. */
  describe(path: DriverPath, limit: number): Promise<DriverFile | DriverListing | null> {
    const files = this.#files;
    const describe = files.describe!.bind(files);
    return this.#call(false, [], (lazy) => describe(path, new DescribeOptions(lazy, limit)));
  }

  /**
   * Every file beneath `dir`. With `skipHidden` (what listings need) a hidden subtree may be reported
   * as one entry.
   */
  list(dir: DriverPath, { skipHidden }: { skipHidden: boolean }): Promise<DriverEntry[]> {
    return this.#call(false, [], async (lazy) => {
      const entries: DriverEntry[] = [];
      for await (const entry of this.#files.list(dir, { skipHidden, signal: lazy.signal }))
        entries.push(entry);
      return entries;
    });
  }

  write(
    path: DriverPath,
    content: string,
    expect: WriteExpectation | undefined,
    refusals: readonly Refusal[],
  ): Promise<{ version: string }> {
    return this.#call(true, refusals, (lazy) =>
      this.#files.write(path, content, new WriteOptions(lazy, this.id, expect)),
    );
  }

  /** The driver's one-step read-modify-write, when it has one. */
  async update(path: DriverPath, edit: (content: string) => string): Promise<'file' | 'directory' | null> {
    const files = this.#files;
    const update = files.update!.bind(files);
    // What the edit throws (NO_MATCH, TOO_LARGE...) is the command's answer, whatever the driver
    // makes of it on the way out.
    let failed: { error: unknown } | undefined;
    const guarded = (content: string) => {
      try {
        return edit(content);
      } catch (error) {
        failed = { error };
        throw error;
      }
    };
    try {
      return await this.#call(true, [], (lazy) => update(path, guarded, new ChangeOptions(lazy, this.id)));
    } catch (error) {
      if (failed) throw failed.error;
      throw error;
    }
  }

  remove(path: DriverPath): Promise<boolean> {
    return this.#call(true, [], (lazy) => this.#files.remove(path, new ChangeOptions(lazy, this.id)));
  }

  move(from: DriverPath, to: DriverPath): Promise<void> {
    return this.#call(true, ['NOT_FOUND', 'PATH_CONFLICT', 'ALREADY_EXISTS'], (lazy) =>
      this.#files.move(from, to, new ChangeOptions(lazy, this.id)),
    );
  }

  async #call<T>(
    change: boolean,
    refusals: readonly Refusal[],
    run: (lazy: LazySignal) => Promise<T>,
  ): Promise<T> {
    if (this.engine.closed) throw new MemoryToolError('BACKEND', STORE_CLOSED);
    const { timeoutMs } = this.engine.options;
    const lazy = new LazySignal();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = noAnswerWithin(timeoutMs);
        const error = new MemoryToolError(
          'BACKEND',
          change ? changeOutcomeUnknown(reason) : storeUnavailable(reason),
        );
        lazy.abort(error);
        reject(error);
      }, timeoutMs);
    });
    const work = Promise.resolve().then(() => run(lazy));
    try {
      return await Promise.race([work, deadline]);
    } catch (error) {
      throw driverError(error, refusals);
    } finally {
      clearTimeout(timer);
      // A call that outlived the deadline may still fail later: nobody is waiting for it.
      work.catch(() => {});
    }
  }
}

/** What a command sees of an error a driver call raised. */
function driverError(error: unknown, refusals: readonly Refusal[]): MemoryToolError {
  if (!isMemoryToolError(error)) return unexpectedBackendFailure(error);
  if (error.code === 'BACKEND') return error;
  // A driver refuses a path only for what lies on it: the filesystem store's symbolic links.
  if (error.code === 'INVALID_PATH')
    return new MemoryToolError('INVALID_PATH', SYMLINK_ESCAPE, { cause: error });
  if ((refusals as readonly string[]).includes(error.code) && typeof error.path === 'string') return error;
  // A refusal the contract does not allow here, or one without its path: a driver bug, and its
  // message was never meant for the model.
  return unexpectedBackendFailure(error);
}
