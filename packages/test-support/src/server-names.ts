// The names of the servers the tests use, apart from how they are started: servers.ts finds or
// starts them, containers.ts starts one in a container, env.ts reads where one is.

/** The servers the adapters' tests and the bench use. */
export type ServerName = 'redis' | 'redis-cluster' | 'postgres' | 's3';

/** Every server name, in the order `scripts/services.sh` starts them. */
export const SERVER_NAMES: readonly ServerName[] = ['redis', 'redis-cluster', 'postgres', 's3'];
