// `--verbose`: what the store's driver reports (connections lost and regained, retries, lock waits,
// setup, slow commands) as lines on stderr, for an operator watching a command or a server. The
// drivers' log fields hold no path and no content; the passwords of the run's store URLs are taken
// out of every line all the same.
import type { MemdirLogger } from '@memdir/core';
import type { CliIo } from './io.js';
import { scrubSecrets } from './store-url-shown.js';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A logger writing `memdir: {level}: {message} {fields as JSON}` lines to the CLI's stderr. */
export function stderrLogger(io: CliIo, storeUrls: ReadonlyArray<string | undefined>): MemdirLogger {
  const logger: MemdirLogger = {};
  for (const level of LEVELS) {
    logger[level] = (message, fields) => {
      const details = fields === undefined || Object.keys(fields).length === 0 ? '' : ` ${json(fields)}`;
      // Not awaited: a logger returns nothing (process.stderr writes synchronously to files and pipes).
      io.stderr.write(scrubSecrets(`memdir: ${level}: ${message}${details}\n`, storeUrls));
    };
  }
  return logger;
}

function json(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields, (_key, value: unknown) =>
      value instanceof Error ? `${value.name}: ${value.message}` : value,
    );
  } catch {
    return '{}';
  }
}

/** The store options of `--verbose` (none without it), for commands that parse their own flags. */
export function verboseOptions(
  values: { verbose?: unknown },
  io: CliIo,
  storeUrls: ReadonlyArray<string | undefined>,
): { logger?: MemdirLogger } {
  return values.verbose === true ? { logger: stderrLogger(io, storeUrls) } : {};
}
