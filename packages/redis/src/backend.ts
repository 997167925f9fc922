// What a Redis driver shares with its namespaces: the connection (one client for all of them), the
// checked key prefix and subtree bound, the log, and the identity telemetry sees.
import { type DriverLog, driverLog } from '@memdir/core/driver';
import { Connection } from './connection.js';
import { checkOptions, type RedisDriverOptions } from './options.js';

/** What a driver shares with its namespaces. */
export interface Backend {
  readonly connection: Connection;
  readonly prefix: string;
  readonly maxSubtreeEntries: number;
  readonly log: DriverLog;
  readonly identity: { readonly kind: 'redis'; readonly id: string };
}

/**
 * The backend of a new driver: `options` checked, the client made (or the user's taken).
 * @throws TypeError for invalid options.
 */
export function openBackend(options: RedisDriverOptions): Backend {
  const { prefix, maxSubtreeEntries } = checkOptions(options);
  const log = driverLog('redis', options.logger);
  const connection = new Connection(options, log);
  const identity = { kind: 'redis', id: connection.identity(prefix) } as const;
  return { connection, prefix, maxSubtreeEntries, log, identity };
}
