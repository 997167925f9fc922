// Cheap tenant handles (issue 19): 1,000 stores, one per namespace, on one already-open client (or
// pool), one `view` each, with the round trips counted on the wire. The same measure is reported
// by the Redis, PostgreSQL and tenants sections.
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import type { RoundTripCounter } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';

/** How many tenant handles are opened. */
export const TENANT_HANDLES = 1_000;
/** The goal: the connection, the server's check once, and one view each. */
export const TENANT_TURNS_GOAL = TENANT_HANDLES + 2;

/** Round trips of {@link TENANT_HANDLES} Redis stores on one ioredis client through `counter`. */
export async function redisTenantTurns(counter: RoundTripCounter, keyPrefix: string): Promise<number> {
  const client = new Redis(counter.url, { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  try {
    // The client's own connection handshake is not counted.
    counter.resetStats();
    for (let index = 0; index < TENANT_HANDLES; index++) {
      const tenant = createRedisStore({ client, keyPrefix, namespace: `tenant-${index}` });
      await tenant.view({ command: 'view', path: '/memories' });
      await tenant.close();
    }
    return counter.stats().turns;
  } finally {
    client.disconnect();
  }
}

/** Round trips of {@link TENANT_HANDLES} PostgreSQL stores on one pool of one connection through `counter`. */
export async function postgresTenantTurns(counter: RoundTripCounter, schema: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: counter.url, max: 1 });
  pool.on('error', () => {});
  try {
    counter.resetStats();
    for (let index = 0; index < TENANT_HANDLES; index++) {
      const tenant = createPostgresStore({ pool, schema, namespace: `tenant-${index}` });
      await tenant.view({ command: 'view', path: '/memories' });
      await tenant.close();
    }
    return counter.stats().turns;
  } finally {
    await pool.end().catch(() => {});
  }
}

/** PASS when `turns` meets the goal. */
export function tenantResult(turns: number): string {
  return turns <= TENANT_TURNS_GOAL ? 'PASS' : 'ABOVE';
}
