// What a call costs: the server check is made once per client, so a store per namespace on one
// client costs no round trip beyond its own commands (counted on the wire by a loopback proxy);
// and each call's round trips as the driver reports them to telemetry.
import diagnostics from 'node:diagnostics_channel';
import type { DriverTrace } from '@memdir/core';
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

it('telemetry: the driver channel reports one round trip for a view, a str_replace and an insert', async () => {
  const seen: Array<{
    method: string;
    roundTrips: number;
    requests: number;
    retries: number;
    outcome: unknown;
  }> = [];
  const channel = diagnostics.tracingChannel<unknown, DriverTrace & object>('memdir:driver');
  const handlers = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (context: DriverTrace) => {
      const { method, roundTrips, requests, retries, outcome } = context;
      seen.push({ method, roundTrips, requests, retries, outcome });
    },
    error: () => {},
  };
  // Driver calls are traced within traced commands: listen to both.
  const commands = diagnostics.tracingChannel('memdir:command');
  const quiet = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
  commands.subscribe(quiet);
  channel.subscribe(handlers);
  const prefix = uniquePrefix('n');
  const store = createRedisStore({ url: redisUrl(), keyPrefix: prefix });
  try {
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'one' });
    seen.length = 0;
    await store.view({ command: 'view', path: '/memories/a.md' });
    await store.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'one',
      new_str: 'two',
    });
    await store.insert({ command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'x' });
    expect(seen).toEqual([
      { method: 'describe', roundTrips: 1, requests: 1, retries: 0, outcome: 'ok' },
      { method: 'edit', roundTrips: 1, requests: 1, retries: 0, outcome: 'ok' },
      { method: 'edit', roundTrips: 1, requests: 1, retries: 0, outcome: 'ok' },
    ]);
  } finally {
    channel.unsubscribe(handlers);
    commands.unsubscribe(quiet);
    await store.close();
    await admin.connect().catch(() => {});
    await deleteUnder(admin, prefix);
  }
});
