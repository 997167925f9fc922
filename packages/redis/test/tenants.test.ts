// Cheap tenant handles: the server check is made once per client, so a store per namespace on one
// client costs no round trip beyond its own commands. Counted on the wire by a loopback proxy.
import { startRoundTripCounter } from '@memdir/test-support';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { createRedisDriver, createRedisStore } from '../src/index.js';
import { deleteUnder, newRedis, redisUrl, uniquePrefix } from './helpers.js';

const admin = newRedis();
afterAll(() => admin.quit());

it('1,000 namespaces x one view each, on one client: at most 1,002 round trips', async () => {
  const counter = await startRoundTripCounter(redisUrl());
  const client = new Redis(counter.url, { lazyConnect: true });
  client.on('error', () => {});
  const prefix = uniquePrefix('n');
  try {
    // The client's own handshake (ioredis's ready check) is not memdir's.
    await client.connect();
    counter.resetStats();
    for (let index = 0; index < 1_000; index++) {
      const store = createRedisStore({ client, keyPrefix: prefix, namespace: `tenant-${index}` });
      expect(await store.view({ command: 'view', path: '/memories' })).toContain('0B\t/memories');
      await store.close();
    }
    const storeTurns = counter.stats().turns;
    // The same through one driver's namespaces.
    counter.resetStats();
    const driver = createRedisDriver({ client, keyPrefix: prefix });
    for (let index = 0; index < 1_000; index++) {
      await driver.namespace(`tenant-${index}`).describe('' as never, { limit: 10 });
    }
    const driverTurns = counter.stats().turns;
    console.log('round trips for 1,000 tenant views:', { stores: storeTurns, namespaces: driverTurns });
    expect(storeTurns).toBeLessThanOrEqual(1_002);
    expect(driverTurns).toBeLessThanOrEqual(1_000);
  } finally {
    client.disconnect();
    await counter.close();
    await admin.connect().catch(() => {});
    await deleteUnder(admin, prefix);
  }
}, 120_000);
