// What a driver tells operators (connection lost and regained, retries, lock waits, lease repairs,
// setup, slow calls): through the application's logger when it gave one, else `NODE_DEBUG=memdir`.
// Never a path or content: drivers log events and counts.
import { debuglog } from 'node:util';
import type { MemdirLogger } from '../store-options.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** A driver's log: one method per level, each `(message, fields?)`. */
export interface DriverLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

let debug: ReturnType<typeof debuglog> | undefined;

/**
 * The log of a driver of `@memdir/<pkg>`: `logger`'s methods (a missing level is skipped), or, with
 * no logger, Node's `util.debuglog('memdir')`, printed when `NODE_DEBUG` includes `memdir`.
 * Messages are prefixed with the package (`redis: connection lost`).
 */
export function driverLog(pkg: string, logger?: MemdirLogger): DriverLog {
  const write = (level: Level, message: string, fields?: Record<string, unknown>) => {
    const text = `${pkg}: ${message}`;
    if (logger) {
      const method = logger[level];
      if (typeof method === 'function') method.call(logger, text, { package: `@memdir/${pkg}`, ...fields });
      return;
    }
    debug ??= debuglog('memdir');
    if (debug.enabled) debug('%s %s%s', level, text, fields ? ` ${JSON.stringify(fields)}` : '');
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}
