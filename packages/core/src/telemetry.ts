// Content-free telemetry: two Node `TracingChannel`s that anyone may subscribe to (the
// `@memdir/otel` package does), with no dependency and no cost when nobody listens. A context never
// holds a path or a byte of content unless the application opted in with `telemetry.paths`.
import { createHmac } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { ChangeRecord } from './driver/contract.js';
import type { BackendFailureReason, MemoryToolErrorCode } from './errors.js';
import type { TelemetryOptions } from './store-options.js';

/**
 * What `memdir:command` carries for one command (one tool call). The same object is passed to the
 * channel's `start`, `end`, `asyncStart`, `asyncEnd` and `error` events; the counters and `outcome`
 * are final by `asyncEnd`.
 * @stability stable: fields are only ever added.
 */
export interface CommandTrace {
  /**
   * `view`, `create`, `str_replace`, `insert`, `delete`, `rename` (or `restore`, `import`...), or
   * `unknown` for an input whose command could not be read.
   */
  readonly command: ChangeRecord['command'] | 'unknown';
  /** The driver's kind (`memory`, `fs`, `redis`, `postgres`, `s3`, or a custom driver's). */
  readonly store: string;
  /** A stable, low-cardinality id of the backend, with no secret in it. */
  readonly storeId: string;
  /** The tool call's id, when the integration passed one. */
  readonly toolUseId: string | undefined;
  /** The path, only with `telemetry.paths` set: plain, or an HMAC-SHA-256 (hex) with its key. */
  path: string | undefined;
  /** `ok`, or the error code. */
  outcome: 'ok' | MemoryToolErrorCode | undefined;
  /** For `BACKEND`: why. */
  reason: BackendFailureReason | undefined;
  /** UTF-8 bytes of file content read and written. */
  bytesRead: number;
  bytesWritten: number;
  /** Driver calls the command made. */
  driverCalls: number;
  /** Round trips, requests and retries the driver reported (where it knows them). */
  roundTrips: number;
  requests: number;
  retries: number;
  /** Compare-and-swap writes the engine lost to another writer and retried. */
  conflicts: number;
  /** Milliseconds from start to end, set before `asyncEnd`. */
  durationMs: number;
}

/**
 * What `memdir:driver` carries for one driver call; a driver fills in `roundTrips`, `requests` and
 * `retries` through `options.stats` (the same object).
 * @stability stable: fields are only ever added.
 */
export interface DriverTrace {
  /** The driver method: `read`, `describe`, `write`, `edit`, `update`, `remove`, `move`... */
  readonly method: string;
  readonly store: string;
  readonly storeId: string;
  /** The command this call belongs to. */
  readonly command: CommandTrace['command'];
  /** The trace of that command (the same object `memdir:command` carries), to parent a span on. */
  readonly parent: CommandTrace;
  roundTrips: number;
  requests: number;
  retries: number;
  /** `ok`, or the error code the call ended with. */
  outcome: 'ok' | MemoryToolErrorCode | undefined;
  reason: BackendFailureReason | undefined;
  durationMs: number;
}

/** The channel of commands: `diagnostics_channel.tracingChannel('memdir:command')`. */
export const commandChannel = diagnostics.tracingChannel<unknown, CommandTrace & object>('memdir:command');
/** The channel of driver calls: `diagnostics_channel.tracingChannel('memdir:driver')`. */
export const driverChannel = diagnostics.tracingChannel<unknown, DriverTrace & object>('memdir:driver');

/** How a store shows paths in telemetry: never, hashed with the application's key, or plain. */
export type PathShown = (path: string) => string | undefined;

/** The path policy of `telemetry` (checked: `hash` needs a key). */
export function pathPolicy(telemetry: TelemetryOptions | undefined): PathShown {
  const mode = telemetry?.paths ?? 'none';
  if (mode === 'none') return () => undefined;
  if (mode === 'plain') return (path) => path;
  if (mode === 'hash') {
    const key = telemetry?.key;
    if (key === undefined || (typeof key === 'string' && key.length === 0)) {
      throw new TypeError("Invalid @memdir/core option telemetry.key: paths: 'hash' needs a key");
    }
    return (path) => createHmac('sha256', key).update(path, 'utf8').digest('hex');
  }
  throw new TypeError(
    `Invalid @memdir/core option telemetry.paths: expected 'none', 'hash' or 'plain', got ${JSON.stringify(mode)}`,
  );
}

/** A fresh trace of one command. */
export function commandTrace(
  command: CommandTrace['command'],
  identity: { readonly kind: string; readonly id: string },
  toolUseId: string | undefined,
): CommandTrace {
  return {
    command,
    store: identity.kind,
    storeId: identity.id,
    toolUseId,
    path: undefined,
    outcome: undefined,
    reason: undefined,
    bytesRead: 0,
    bytesWritten: 0,
    driverCalls: 0,
    roundTrips: 0,
    requests: 0,
    retries: 0,
    conflicts: 0,
    durationMs: 0,
  };
}
