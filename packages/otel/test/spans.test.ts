// Spans and metrics from real stores through the real OpenTelemetry SDK: every command gives an
// `execute_tool memory` span with a CLIENT child per driver call, and the metrics, on all five
// stores (in-memory, filesystem, Redis, PostgreSQL, S3 on their real servers); BACKEND failures (a
// stalled and a dropped Redis and PostgreSQL, through the fault proxy) carry their reason.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInMemoryStore, type MemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { createPostgresStore } from '@memdir/postgres';
import { createRedisStore } from '@memdir/redis';
import { createS3Store } from '@memdir/s3';
import { databaseUrl, redisUrl, s3Server, startFaultProxy } from '@memdir/test-support';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { type Otel, startOtel } from './otel-setup.js';

const SESSION = [
  { command: 'view', path: '/memories' },
  { command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta' },
  { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'beta', new_str: 'gamma' },
  { command: 'insert', path: '/memories/notes/a.md', insert_line: 0, insert_text: 'top' },
  { command: 'view', path: '/memories/notes/a.md' },
  { command: 'rename', old_path: '/memories/notes/a.md', new_path: '/memories/notes/b.md' },
  { command: 'view', path: '/memories/missing.md' },
  { command: 'delete', path: '/memories/notes' },
] as const;

let otel: Otel | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await otel?.shutdown();
  otel = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stores(): Promise<Array<[string, MemoryStore]>> {
  const folder = await mkdtemp(join(tmpdir(), 'memdir-otel-'));
  const prefix = `otel-${Math.random().toString(36).slice(2, 8)}:`;
  const fs = createFsStore({ root: folder });
  const redis = createRedisStore({ url: redisUrl(), keyPrefix: prefix });
  // The session deletes what it wrote: a namespace and a prefix of their own leave nothing behind.
  const postgres = createPostgresStore({ connectionString: databaseUrl(), namespace: prefix.slice(0, -1) });
  const { bucket, clientConfig } = s3Server();
  const s3 = createS3Store({
    bucket,
    prefix: `test/${prefix.slice(0, -1)}`,
    endpoint: clientConfig.endpoint,
    region: clientConfig.region,
    credentials: clientConfig.credentials,
  });
  cleanups.push(async () => {
    await fs.close();
    await redis.close();
    await postgres.close();
    await s3.close();
    await rm(folder, { recursive: true, force: true });
  });
  return [
    ['memory', createInMemoryStore()],
    ['fs', fs],
    ['redis', redis],
    ['postgres', postgres],
    ['s3', s3],
  ];
}

describe('a span per command, a child per driver call, and the metrics', () => {
  it('on the in-memory, filesystem, Redis, PostgreSQL and S3 stores, for all six commands', async () => {
    for (const [kind, store] of await stores()) {
      otel = startOtel();
      for (const input of SESSION)
        await store.execute(input, { toolUseId: `toolu_${input.command}` }).catch(() => {});
      const spans = otel.spans.getFinishedSpans();
      const commands = spans.filter((span) => span.name === 'execute_tool memory');
      expect(
        commands.map((span) => span.attributes['memdir.command']),
        kind,
      ).toEqual(SESSION.map((input) => input.command));
      for (const span of commands) {
        expect(span.kind).toBe(SpanKind.INTERNAL);
        expect(span.attributes).toMatchObject({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'memory',
          'gen_ai.tool.call.id': `toolu_${span.attributes['memdir.command']}`,
          'memdir.store': kind,
        });
        // Every command span has its driver calls as CLIENT children.
        const children = spans.filter(
          (child) => child.parentSpanContext?.spanId === span.spanContext().spanId,
        );
        expect(children.length, `${kind} ${span.attributes['memdir.command']}`).toBe(
          span.attributes['memdir.driver.calls'],
        );
        for (const child of children) {
          expect(child.kind).toBe(SpanKind.CLIENT);
          expect(child.name).toBe(
            `${child.attributes['db.operation.name']} ${child.attributes['db.system.name']}`,
          );
        }
      }
      const missing = commands.at(-2)!;
      expect(missing.attributes).toMatchObject({ 'memdir.outcome': 'NOT_FOUND', 'error.type': 'NOT_FOUND' });
      expect(missing.status.code).toBe(SpanStatusCode.ERROR);
      expect(commands[1]!.attributes['memdir.bytes.written']).toBe(10);
      const durations = await otel.points('memdir.command.duration');
      expect(
        durations.reduce((total, point) => total + point.value, 0),
        kind,
      ).toBe(SESSION.length);
      expect(await otel.points('memdir.command.errors')).toEqual([
        {
          attributes: {
            'memdir.command': 'view',
            'memdir.store': kind,
            'memdir.outcome': 'NOT_FOUND',
            'error.type': 'NOT_FOUND',
          },
          value: 1,
        },
      ]);
      const operations = await otel.points('db.client.operation.duration');
      const system = {
        memory: 'memdir.memory',
        fs: 'memdir.fs',
        redis: 'redis',
        postgres: 'postgresql',
        s3: 'aws.s3',
      }[kind];
      expect(
        operations.every((point) => point.attributes['db.system.name'] === system),
        kind,
      ).toBe(true);
      await otel.shutdown();
      otel = undefined;
    }
  });

  it('driverSpans: false gives one span per command and still records the operation durations', async () => {
    otel = startOtel({ driverSpans: false });
    const store = createInMemoryStore();
    await store.execute({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    expect(otel.spans.getFinishedSpans().map((span) => span.name)).toEqual(['execute_tool memory']);
    expect((await otel.points('db.client.operation.duration')).length).toBe(1);
  });
});

const THROUGH_PROXY: Array<[string, () => string, (url: string) => MemoryStore]> = [
  [
    'Redis',
    redisUrl,
    (url) =>
      createRedisStore({
        url,
        keyPrefix: `otel-f-${Math.random().toString(36).slice(2, 8)}:`,
        timeoutMs: 800,
      }),
  ],
  [
    'PostgreSQL',
    databaseUrl,
    (url) =>
      createPostgresStore({
        connectionString: url,
        namespace: `otel-f-${Math.random().toString(36).slice(2, 8)}`,
        timeoutMs: 800,
      }),
  ],
];

describe.each(THROUGH_PROXY)('BACKEND failures carry their reason, on %s', (_name, target, open) => {
  it('a stalled server: timeout; a dropped one: the reason the store gives, on the span and the error metric', async () => {
    const proxy = await startFaultProxy({ target: target() });
    const store = open(proxy.url);
    cleanups.push(async () => {
      await store.close();
      await proxy.close();
    });
    await store.view({ command: 'view', path: '/memories' });
    otel = startOtel();
    proxy.setMode('stall');
    const stalled = await store.view({ command: 'view', path: '/memories' }).catch((error: unknown) => error);
    proxy.setMode('reset');
    const dropped = await store
      .create({ command: 'create', path: '/memories/x.md', file_text: 'x' })
      .catch((error: unknown) => error);
    proxy.setMode('pass');
    expect(stalled).toMatchObject({ code: 'BACKEND', reason: 'timeout' });
    expect(dropped).toMatchObject({ code: 'BACKEND' });
    const spans = otel.spans.getFinishedSpans().filter((span) => span.name === 'execute_tool memory');
    expect(
      spans.map((span) => [span.attributes['memdir.outcome'], span.attributes['memdir.backend.reason']]),
    ).toEqual([
      ['BACKEND', 'timeout'],
      ['BACKEND', (dropped as { reason: string }).reason],
    ]);
    const errors = await otel.points('memdir.command.errors');
    expect(errors.map((point) => point.attributes['memdir.backend.reason']).sort()).toEqual(
      ['timeout', (dropped as { reason: string }).reason].sort(),
    );
  });
});
