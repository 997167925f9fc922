// What the store costs on the wire and tells operators: tenant handles on one pool cost no round
// trip of their own (the setup check is cached per pool), each call counts its round trips and
// retries when asked, and the driver logs setup, lost and regained connections, never a path.
import type { DriverCallStats, DriverPath } from '@memdir/core';
import { startFaultProxy, startRoundTripCounter } from '@memdir/test-support';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresDriver, createPostgresStore } from '../src/index.js';
import { databaseUrl, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
afterAll(() => admin.end());
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const p = (path: string) => path as DriverPath;
const op = () => globalThis.crypto.randomUUID().replaceAll('-', '');

describe('cheap tenant handles', () => {
  it('1,000 namespaces x one view each on one pool take at most 1,002 round trips', async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(admin, schema));
    const ready = createPostgresDriver({ connectionString: databaseUrl(), schema });
    await ready.setup();
    await ready.close();
    const counter = await startRoundTripCounter(databaseUrl());
    cleanups.push(() => counter.close());
    const pool = new pg.Pool({ connectionString: counter.url, max: 1 });
    pool.on('error', () => {});
    cleanups.push(() => pool.end());
    counter.resetStats();
    for (let tenant = 0; tenant < 1_000; tenant++) {
      const store = createPostgresStore({ pool, schema, namespace: `tenant-${tenant}` });
      expect(await store.view({ command: 'view', path: '/memories' })).toContain('0B\t/memories');
      await store.close();
    }
    // The connection's start, the setup check once, and one round trip per view.
    expect(counter.stats().turns).toBeLessThanOrEqual(1_002);
  }, 120_000);
});

describe('stats and logs', () => {
  it('a call counts its round trips and requests, the first one the setup check too', async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(admin, schema));
    const driver = createPostgresDriver({ connectionString: databaseUrl(), schema });
    cleanups.push(() => driver.close());
    await driver.setup();
    const fresh = createPostgresDriver({ connectionString: databaseUrl(), schema });
    cleanups.push(() => fresh.close());
    const stats: DriverCallStats = { roundTrips: 0, requests: 0, retries: 0 };
    await fresh.write(p('a.md'), 'a', { op: op(), stats });
    expect(stats).toEqual({ roundTrips: 2, requests: 2, retries: 0 });
    const again: DriverCallStats = { roundTrips: 0, requests: 0, retries: 0 };
    await fresh.edit!(
      p('a.md'),
      { kind: 'insert', line: 1, text: 'b' },
      { op: op(), maxFileBytes: 100, stats: again },
    );
    expect(again).toEqual({ roundTrips: 1, requests: 1, retries: 0 });
  });

  it('logs the setup, a lost connection and its return, and a retry; never a path or content', async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(admin, schema));
    const proxy = await startFaultProxy({ target: databaseUrl() });
    cleanups.push(() => proxy.close());
    const lines: string[] = [];
    const logger = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [
        level,
        (message: string, fields?: Record<string, unknown>) =>
          lines.push(`${level} ${message} ${JSON.stringify(fields)}`),
      ]),
    );
    const store = createPostgresStore({ connectionString: proxy.url, schema, logger });
    cleanups.push(() => store.close());
    await store.create({ command: 'create', path: '/memories/secret-name.md', file_text: 'secret content' });
    // A view whose connection is reset under it: run again on another, and logged.
    proxy.setMode('stall');
    const view = store.view({ command: 'view', path: '/memories/secret-name.md' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy.setMode('reset');
    proxy.setMode('pass');
    expect(await view).toContain('secret content');
    expect(lines.some((line) => line.startsWith('info postgres: setup: layout 4 is installed'))).toBe(true);
    expect(lines.some((line) => line.startsWith('warn postgres: connection to PostgreSQL lost'))).toBe(true);
    expect(lines.some((line) => line.startsWith('info postgres: connection to PostgreSQL regained'))).toBe(
      true,
    );
    for (const line of lines) {
      expect(line).not.toContain('secret');
      expect(line).toContain('"package":"@memdir/postgres"');
    }
  });
});
