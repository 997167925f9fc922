// The gate every driver call of a command goes through: one `Operation` per command bounds it in
// time (one deadline for all its driver calls), gives each change its operation id, quota and
// history record, traces it when someone listens, and turns whatever the driver throws into the
// errors the commands expect (SPEC section 7). The engine that makes operations is in `engine.ts`.

import type {
  ChangeRecord,
  DriverCallStats,
  DriverDirectory,
  DriverEdit,
  DriverEditOutcome,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverQuota,
  DriverRemoveOptions,
  MemoryDriver,
  WriteExpectation,
} from '../driver/contract.js';
import {
  isMemoryToolError,
  MemoryToolError,
  type MemoryToolErrorCode,
  type QuotaBreach,
  unexpectedBackendFailure,
} from '../errors.js';
import {
  changeOutcomeUnknown,
  noAnswerWithin,
  quotaBytesExceeded,
  quotaFilesExceeded,
  STORE_CLOSED,
  SYMLINK_ESCAPE,
  storeUnavailable,
} from '../messages.js';
import { type DriverPath, type MemoryPath, toMemoryPath, utf8Length } from '../path.js';
import type { EngineOptions } from '../store-options.js';
import { type CommandTrace, type DriverTrace, driverChannel } from '../telemetry.js';
import type { MemoryCallOptions } from '../tool.js';
import type { Watchdog } from './watchdog.js';

/** What `remove` may require of the file (capabilities.removeExpect). */
type RemoveExpectation = NonNullable<DriverRemoveOptions['expect']>;

/** The call options as the store passes them on: the application's, and the command's trace. */
export interface TracedCall extends MemoryCallOptions {
  readonly trace?: CommandTrace | undefined;
}

/** A fresh trace of one driver call of a traced command. */
function driverTrace(method: string, trace: CommandTrace): DriverTrace {
  return {
    method,
    store: trace.store,
    storeId: trace.storeId,
    command: trace.command,
    parent: trace,
    roundTrips: 0,
    requests: 0,
    retries: 0,
    outcome: undefined,
    reason: undefined,
    durationMs: 0,
  };
}

/** Refusal codes a driver may raise; which ones a given call may raise is the caller's to say. */
type Refusal = Extract<
  MemoryToolErrorCode,
  'PATH_CONFLICT' | 'CONFLICT' | 'NOT_FOUND' | 'ALREADY_EXISTS' | 'QUOTA_EXCEEDED' | 'TOO_LARGE'
>;

/** An operation id: 122 random bits, as a UUID (SPEC section 7: a replay is made harmless). */
function newOperationId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * What an operation needs of the engine that made it (`Engine` is one), named here so that this
 * file does not import the engine back.
 */
export interface OperationHost {
  readonly driver: MemoryDriver;
  readonly options: EngineOptions;
  readonly watchdog: Watchdog;
  readonly closed: boolean;
}

/** What every call of a closed store fails with. */
export function closedError(): MemoryToolError {
  return new MemoryToolError('BACKEND', STORE_CLOSED, { reason: 'closed' });
}

/**
 * The options of one driver call. One class for every call, with every field its own property (one
 * shape, cheap to make: an object literal with a getter costs a couple of microseconds), except
 * `signal`, a getter on the prototype that makes the command's AbortController only when a driver
 * reads it, and `progressed`, a method. `deadline` is a plain field that the operation moves when
 * a call reports progress. A driver that copies the options (`{ ...options }`) keeps the rest and
 * the deadline as it was, not `signal` or `progressed`: pass the object on, or read them first.
 */
class CallOptions {
  op: string | undefined = undefined;
  quota: DriverQuota | undefined = undefined;
  record: ChangeRecord | undefined = undefined;
  expect: WriteExpectation | RemoveExpectation | undefined = undefined;
  fileId: string | undefined = undefined;
  limit: number | undefined = undefined;
  skipHidden: boolean | undefined = undefined;
  maxFileBytes: number | undefined = undefined;
  /** The command's deadline; moved by {@link Operation.progressed} (never written by a driver). */
  deadline: number;
  readonly #operation: Operation;

  constructor(
    operation: Operation,
    readonly stats: DriverCallStats | undefined,
    public touch: true | undefined,
  ) {
    this.#operation = operation;
    this.deadline = operation.deadline;
  }

  get signal(): AbortSignal {
    return this.#operation.signal;
  }

  progressed(): void {
    this.#operation.progressed();
  }
}

/**
 * The driver calls of one command. The command has one deadline (`timeoutMs` after it started):
 * every call carries it, and past it the call's signal is aborted and the command fails with
 * `BACKEND` (for a change: "may or may not have been saved"). A call that waits its turn behind
 * other writers may report their progress, which moves the deadline (up to `queueTimeoutMs` after
 * the start; SPEC section 7 bounds the wait on a dead or silent server, not on a busy live one).
 * Refusals the caller expects come back as they are, with their `path`; anything else the driver
 * throws becomes a `BACKEND` error the model may read.
 */
export class Operation {
  /** When the command started, in `Date.now()` ms. */
  readonly started: number;
  #deadline: number;
  /** The options of the calls made so far: their `deadline` follows this one's. */
  readonly #calls: CallOptions[] = [];
  #id: string | undefined;
  #controller: AbortController | undefined;
  #aborted: MemoryToolError | undefined;
  #record: ChangeRecord | undefined;
  /** Telemetry of this command, when someone listens on `memdir:command` (see telemetry.ts). */
  readonly trace: CommandTrace | undefined;
  /** The stats object of the driver call being started (set while its options are built). */
  #current: DriverCallStats | undefined;

  constructor(
    readonly engine: OperationHost,
    readonly command: ChangeRecord['command'],
    readonly call: MemoryCallOptions | undefined,
  ) {
    this.started = Date.now();
    this.#deadline = this.started + engine.options.timeoutMs;
    this.trace = (call as TracedCall | undefined)?.trace;
  }

  /** The command's deadline, in `Date.now()` ms: `timeoutMs` after the start, or later after progress. */
  get deadline(): number {
    return this.#deadline;
  }

  /**
   * The backend made progress on the queue a call of this command waits in (a driver's
   * `options.progressed()`): the deadline moves to `timeoutMs` from now, never past `queueTimeoutMs`
   * after the start, nor earlier than it was. Too late once the deadline passed: the command has
   * failed, or is failing, whatever its watchdog's timer says. The watchdog reads the deadline when
   * its timer fires, so moving it costs no timer.
   */
  progressed(): void {
    const now = Date.now();
    if (this.#aborted || now >= this.#deadline) return;
    const { timeoutMs, queueTimeoutMs } = this.engine.options;
    const moved = Math.min(now + timeoutMs, this.started + queueTimeoutMs);
    if (moved <= this.#deadline) return;
    this.#deadline = moved;
    for (const options of this.#calls) options.deadline = moved;
  }

  /** Made once per command, when its first change call is made; every change call carries it. */
  get id(): string {
    this.#id ??= newOperationId();
    return this.#id;
  }

  /** The command's abort signal, made only when a driver reads it (an AbortController is not free). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#aborted);
    }
    return this.#controller.signal;
  }

  /** What the versions of this command record, when history is on. */
  get record(): ChangeRecord | undefined {
    const history = this.engine.options.history;
    if (!history) return undefined;
    this.#record ??= {
      actor: this.call?.actor ?? this.engine.options.actor ?? null,
      command: this.command,
      toolUseId: this.call?.toolUseId ?? null,
      keepVersions: history.keepVersions,
      keepDays: history.keepDays,
    };
    return this.#record;
  }

  /** Called by the watchdog at the deadline: the command's calls give up. */
  expire(error: MemoryToolError): void {
    this.#aborted = error;
    this.#controller?.abort(error);
  }

  get #files(): MemoryDriver {
    return this.engine.driver;
  }

  /** A call's options, kept so that its deadline follows the command's. */
  #options(touch: true | undefined): CallOptions {
    const options = new CallOptions(this, this.#current, touch);
    this.#calls.push(options);
    return options;
  }

  /** The options of a read: deadline and signal, and `touch` for a file read when reads refresh expiry. */
  #readOptions(touch: boolean): CallOptions {
    return this.#options(touch && this.engine.options.touch ? true : undefined);
  }

  /** `list`'s options: a read's, and whether hidden subtrees may be folded. */
  #listOptions(skipHidden: boolean): CallOptions {
    const options = this.#options(undefined);
    options.skipHidden = skipHidden;
    return options;
  }

  /** `describe`'s options: a read's, and the listing's limit. */
  #describeOptions(limit: number): CallOptions & { limit: number } {
    const options = this.#options(this.engine.options.touch ? true : undefined);
    options.limit = limit;
    return options as CallOptions & { limit: number };
  }

  /** The options of a change: those of a read, and the operation id, quota and history record. */
  #changeOptions(): CallOptions & { op: string } {
    const options = this.#options(this.engine.options.touch ? true : undefined);
    options.op = this.id;
    options.quota = this.engine.options.quota;
    options.record = this.record;
    return options as CallOptions & { op: string };
  }

  /** `write`'s options: a change's, and the expectation and file id. */
  #writeOptions(
    expect: WriteExpectation | undefined,
    fileId: string | undefined,
  ): CallOptions & { op: string; expect: WriteExpectation | undefined } {
    const options = this.#changeOptions();
    options.touch = undefined;
    options.expect = expect;
    options.fileId = fileId;
    return options as CallOptions & { op: string; expect: WriteExpectation | undefined };
  }

  /** `remove`'s options: a change's, and what the file must be (drivers with `removeExpect`). */
  #removeOptions(
    expect: RemoveExpectation | undefined,
  ): CallOptions & { op: string; expect: RemoveExpectation | undefined } {
    const options = this.#changeOptions();
    options.expect = expect;
    return options as CallOptions & { op: string; expect: RemoveExpectation | undefined };
  }

  /** `edit`'s options: a change's, and the file limit. */
  #editOptions(): CallOptions & { op: string; maxFileBytes: number } {
    const options = this.#changeOptions();
    options.maxFileBytes = this.engine.options.maxFileBytes;
    return options as CallOptions & { op: string; maxFileBytes: number };
  }

  read(path: DriverPath): Promise<DriverFile | DriverDirectory | null> {
    return this.#call('read', false, [], () => this.#files.read(path, this.#readOptions(true))).then(
      (node) => {
        if (this.trace && node?.kind === 'file') this.trace.bytesRead += utf8Length(node.content);
        return node;
      },
    );
  }

  /** What is at `path`, without its content when the driver can say so. */
  kind(path: DriverPath): Promise<'file' | 'directory' | null> {
    const files = this.#files;
    if (files.stat) {
      const stat = files.stat.bind(files);
      return this.#call('stat', false, [], () => stat(path, this.#readOptions(false)));
    }
    return this.read(path).then((node) => node?.kind ?? null);
  }

  /** The driver's one-call view, when it has one. */
  describe(path: DriverPath, limit: number): Promise<DriverFile | DriverListing | null> {
    const files = this.#files;
    const describe = files.describe!.bind(files);
    return this.#call('describe', false, [], () => describe(path, this.#describeOptions(limit))).then(
      (node) => {
        if (this.trace && node?.kind === 'file') this.trace.bytesRead += utf8Length(node.content);
        return node;
      },
    );
  }

  /**
   * Every file beneath `dir`. With `skipHidden` (what listings need) a hidden subtree may be reported
   * as one entry.
   */
  list(dir: DriverPath, { skipHidden }: { skipHidden: boolean }): Promise<DriverEntry[]> {
    return this.#call('list', false, [], async () => {
      const entries: DriverEntry[] = [];
      for await (const entry of this.#files.list(dir, this.#listOptions(skipHidden))) entries.push(entry);
      return entries;
    });
  }

  write(
    path: DriverPath,
    content: string,
    expect: WriteExpectation | undefined,
    refusals: readonly Refusal[],
    fileId?: string,
  ): Promise<{ version: string }> {
    if (this.trace) this.trace.bytesWritten += utf8Length(content);
    return this.#call('write', true, [...refusals, 'QUOTA_EXCEEDED'], () =>
      this.#files.write(path, content, this.#writeOptions(expect, fileId)),
    );
  }

  /** The driver's one-step edit as data, when it has one. */
  edit(path: DriverPath, edit: DriverEdit): Promise<DriverEditOutcome> {
    const files = this.#files;
    const run = files.edit!.bind(files);
    return this.#call('edit', true, [], () => run(path, edit, this.#editOptions()));
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
      return await this.#call('update', true, ['QUOTA_EXCEEDED'], () =>
        update(path, guarded, this.#changeOptions()),
      );
    } catch (error) {
      if (failed && !(isMemoryToolError(error) && error.code === 'QUOTA_EXCEEDED')) throw failed.error;
      throw error;
    }
  }

  /** Removes `path`; with `expect` (only for a driver with `capabilities.removeExpect`), under it. */
  remove(path: DriverPath, expect?: RemoveExpectation): Promise<boolean> {
    return this.#call('remove', true, expect ? ['CONFLICT'] : [], () =>
      this.#files.remove(path, this.#removeOptions(expect)),
    );
  }

  move(from: DriverPath, to: DriverPath): Promise<void> {
    return this.#call('move', true, ['NOT_FOUND', 'PATH_CONFLICT', 'ALREADY_EXISTS'], () =>
      this.#files.move(from, to, this.#changeOptions()),
    );
  }

  /**
   * Runs a driver call of this command under its deadline. `extra` (history and admin calls) lets
   * other modules reach the driver through the same gate.
   */
  async run<T>(
    method: string,
    change: boolean,
    refusals: readonly Refusal[],
    call: () => Promise<T>,
  ): Promise<T> {
    return this.#call(method, change, refusals, call);
  }

  /** The options other modules (history) pass to the driver for a change of this command. */
  changeOptions() {
    return this.#changeOptions();
  }

  /** The options other modules pass to the driver for a read of this command. */
  readOptions() {
    return this.#readOptions(false);
  }

  async #call<T>(
    method: string,
    change: boolean,
    refusals: readonly Refusal[],
    run: () => Promise<T>,
  ): Promise<T> {
    if (this.engine.closed) throw closedError();
    if (this.#aborted || Date.now() >= this.deadline) throw this.#timeout(change);
    const trace = this.trace;
    if (trace) return this.#traced(trace, method, change, refusals, run);
    let work: Promise<T>;
    try {
      work = run();
    } catch (error) {
      throw driverError(error, refusals, change);
    }
    try {
      return await this.engine.watchdog.watch(work, this, () => this.#expireWith(change));
    } catch (error) {
      throw driverError(error, refusals, change);
    }
  }

  #expireWith(change: boolean): MemoryToolError {
    const error = this.#timeout(change);
    this.expire(error);
    return error;
  }

  /** A call while someone listens: counted on the command's trace, and traced on `memdir:driver`. */
  async #traced<T>(
    trace: CommandTrace,
    method: string,
    change: boolean,
    refusals: readonly Refusal[],
    run: () => Promise<T>,
  ): Promise<T> {
    trace.driverCalls++;
    const listening = driverChannel.hasSubscribers;
    const stats: DriverCallStats & Partial<DriverTrace> = listening
      ? driverTrace(method, trace)
      : { roundTrips: 0, requests: 0, retries: 0 };
    const started = performance.now();
    // As for commands, the traced promise settles with nothing, so no content (a file read) and no
    // message (which may name a path) lands on the context.
    let outcome: { value: T } | { error: MemoryToolError } | undefined;
    const attempt = async (): Promise<void> => {
      let work: Promise<T>;
      this.#current = stats;
      try {
        work = run();
      } catch (error) {
        outcome = { error: driverError(error, refusals, change) };
        return;
      } finally {
        this.#current = undefined;
      }
      try {
        outcome = {
          value: await this.engine.watchdog.watch(work, this, () => this.#expireWith(change)),
        };
        stats.outcome = 'ok';
      } catch (error) {
        const failure = driverError(error, refusals, change);
        stats.outcome = failure.code;
        stats.reason = failure.reason;
        outcome = { error: failure };
      } finally {
        stats.durationMs = performance.now() - started;
        trace.roundTrips += stats.roundTrips;
        trace.requests += stats.requests;
        trace.retries += stats.retries;
      }
    };
    await (listening ? driverChannel.tracePromise(attempt, stats as DriverTrace) : attempt());
    if (outcome && 'value' in outcome) return outcome.value;
    throw (outcome as { error: MemoryToolError }).error;
  }

  #timeout(change: boolean): MemoryToolError {
    // The time the command was given: `timeoutMs`, or (to a tenth of a second) what progress of the
    // writers ahead of it extended it to.
    const { timeoutMs } = this.engine.options;
    const given = this.#deadline - this.started;
    const reason = noAnswerWithin(given === timeoutMs ? timeoutMs : Math.round(given / 100) * 100);
    return change
      ? new MemoryToolError('BACKEND', changeOutcomeUnknown(reason), {
          reason: 'timeout',
          outcome: 'unknown',
        })
      : new MemoryToolError('BACKEND', storeUnavailable(reason), {
          reason: 'timeout',
          outcome: 'not-applied',
        });
  }
}

/** The model's text for a quota breach of a change at `path` (SPEC section 3). */
export function quotaError(path: MemoryPath, breach: QuotaBreach, cause?: unknown): MemoryToolError {
  const message =
    breach.kind === 'bytes'
      ? quotaBytesExceeded(path, breach.total, breach.max)
      : quotaFilesExceeded(breach.count, breach.max);
  return new MemoryToolError('QUOTA_EXCEEDED', message, { quota: breach, cause });
}

/** What a command sees of an error a driver call raised. */
function driverError(error: unknown, refusals: readonly Refusal[], change: boolean): MemoryToolError {
  if (!isMemoryToolError(error)) return unexpectedBackendFailure(error, change ? 'unknown' : 'not-applied');
  if (error.code === 'BACKEND') return error;
  // A driver refuses a path only for what lies on it: the filesystem store's symbolic links.
  if (error.code === 'INVALID_PATH')
    return new MemoryToolError('INVALID_PATH', SYMLINK_ESCAPE, { cause: error });
  if ((refusals as readonly string[]).includes(error.code) && typeof error.path === 'string') {
    // A quota refusal is answered by every command the same way, so it is rendered here.
    if (error.code === 'QUOTA_EXCEEDED') {
      if (!error.quota) return unexpectedBackendFailure(error, 'not-applied');
      return quotaError(toMemoryPath(error.path), error.quota, error);
    }
    return error;
  }
  // A refusal the contract does not allow here, or one without its path: a driver bug, and its
  // message was never meant for the model.
  return unexpectedBackendFailure(error, change ? 'unknown' : 'not-applied');
}
