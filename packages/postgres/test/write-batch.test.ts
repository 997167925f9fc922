// Writes of one namespace that arrive while others are in flight go together in one statement
// (write-batch.ts). Each gets the outcome it would get sent alone, in the order they came: created,
// CONFLICT for an expectation that fails, PATH_CONFLICT for a path under a file an earlier write of
// the same batch created, QUOTA_EXCEEDED once the earlier ones filled the namespace; a replayed op id
// answers what it answered; history records one version per write, with its own actor.
import type { DriverPath, DriverWriteOptions, MemoryDriver, MemoryToolError } from '@memdir/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDriver, type PostgresDriver } from '../src/index.js';
import { countingPool, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
const schema = freshSchema('mdt_batch');
/** The statements the driver sent, by kind: a lone write, a batch of writes, anything else. */
const sent = { write: 0, writeMany: 0, other: 0 };
let driver: PostgresDriver;

beforeAll(async () => {
  // A pool whose connections count what the driver sends (the real server answers every one).
  const pool = countingPool(
    (text) => {
      if (text.includes('write_v4($1, e.path')) sent.writeMany++;
      else if (text.includes('write_v4($1, $2')) sent.write++;
      else sent.other++;
    },
    { max: 8 },
  );
  driver = createPostgresDriver({ pool, schema });
  await driver.setup();
});
afterAll(async () => {
  await driver.close();
  await dropSchema(admin, schema);
  await admin.end();
});

const op = () => globalThis.crypto.randomUUID().replaceAll('-', '');
const path = (text: string) => text as DriverPath;

function reset(): void {
  Object.assign(sent, { write: 0, writeMany: 0, other: 0 });
}

async function outcomes(
  writes: ReadonlyArray<[string, string, Partial<DriverWriteOptions>?]>,
  ns: MemoryDriver = driver,
): Promise<string[]> {
  const settled = await Promise.allSettled(
    writes.map(([file, content, options]) => ns.write(path(file), content, { op: op(), ...options })),
  );
  return settled.map((result) =>
    result.status === 'fulfilled' ? 'ok' : `${(result.reason as MemoryToolError).code}`,
  );
}

describe('concurrent writes of one namespace', () => {
  it('64 new files at once: every one written, in far fewer statements than writes', async () => {
    reset();
    const writes = Array.from({ length: 64 }, (_, index): [string, string] => [
      `many/f${index}.md`,
      `file ${index}\n`,
    ]);
    expect(
      await outcomes(writes.map(([file, content]) => [file, content, { expect: { absent: true } }])),
    ).toEqual(writes.map(() => 'ok'));
    expect(sent.writeMany).toBeGreaterThan(0);
    expect(sent.write + sent.writeMany).toBeLessThan(16);
    for (const [file, content] of writes) {
      const read = await driver.read(path(file));
      expect(read?.kind === 'file' && read.content).toBe(content);
    }
  });

  it('each write of a batch gets its own outcome, as if sent alone in the order they came', async () => {
    await driver.write(path('mixed/exists.md'), 'old\n', { op: op() });
    const before = await driver.read(path('mixed/exists.md'));
    const version = before?.kind === 'file' ? before.version : '';
    reset();
    const results = await outcomes([
      // Two first, sent alone; the rest wait for them and go together.
      ['mixed/lead1.md', 'a'],
      ['mixed/lead2.md', 'b'],
      ['mixed/exists.md', 'x', { expect: { absent: true } }],
      ['mixed/exists.md', 'y', { expect: { version: 'not-its-version' } }],
      ['mixed/exists.md', 'new\n', { expect: { version } }],
      ['mixed/file', 'a file'],
      ['mixed/file/under.md', 'under a file an earlier write of the batch made'],
      ['mixed/dir/inside.md', 'in'],
      ['mixed/dir', 'a file where the batch made a directory'],
    ]);
    expect(results).toEqual([
      'ok',
      'ok',
      'CONFLICT',
      'CONFLICT',
      'ok',
      'ok',
      'PATH_CONFLICT',
      'ok',
      'PATH_CONFLICT',
    ]);
    // Two alone, then one statement for the other seven (a failed batch would send each alone).
    expect(sent).toMatchObject({ write: 2, writeMany: 1 });
    const after = await driver.read(path('mixed/exists.md'));
    expect(after?.kind === 'file' && after.content).toBe('new\n');
    expect((await driver.read(path('mixed/file')))?.kind).toBe('file');
    expect((await driver.read(path('mixed/dir')))?.kind).toBe('directory');
  });

  it('a quota is judged write by write: the batch stops at the limit, not past it by one byte', async () => {
    const tenant = driver.namespace('quota-batch');
    const quota = { maxBytes: 1_000 };
    reset();
    const writes = Array.from({ length: 20 }, (_, index): [string, string, Partial<DriverWriteOptions>] => [
      `q/f${index}.md`,
      'x'.repeat(99),
      { quota, expect: { absent: true } },
    ]);
    const results = await outcomes(writes, tenant);
    // 10 files of 99 bytes fit in 1,000 bytes; the 11th would take 1,089.
    expect(results.filter((result) => result === 'ok')).toHaveLength(10);
    expect(results.filter((result) => result === 'QUOTA_EXCEEDED')).toHaveLength(10);
    expect(sent.writeMany).toBeGreaterThan(0);
    const usage = await (tenant.usage as NonNullable<MemoryDriver['usage']>)();
    expect(usage.bytes).toBe(990);
    expect(usage.files).toBe(10);
  });

  it('a replayed op id answers what it answered, inside a batch or after it', async () => {
    const ids = Array.from({ length: 6 }, () => op());
    const first = await Promise.all(
      ids.map((id, index) => driver.write(path(`replay/f${index}.md`), `v1 ${index}`, { op: id })),
    );
    reset();
    // The same ops again, with other content: nothing is applied twice, the versions are the same.
    const again = await Promise.all(
      ids.map((id, index) => driver.write(path(`replay/f${index}.md`), `v2 ${index}`, { op: id })),
    );
    expect(again).toEqual(first);
    expect(sent.writeMany).toBeGreaterThan(0);
    for (let index = 0; index < ids.length; index++) {
      const read = await driver.read(path(`replay/f${index}.md`));
      expect(read?.kind === 'file' && read.content).toBe(`v1 ${index}`);
    }
  });

  it('history records one version per write of a batch, with its own actor and hash', async () => {
    reset();
    const writes = Array.from({ length: 12 }, (_, index) =>
      driver.write(path(`hist/f${index}.md`), `content ${index}\n`, {
        op: op(),
        record: {
          actor: { type: 'session', id: `s${index}` },
          command: 'create',
          toolUseId: null,
          keepVersions: 20,
          keepDays: 30,
        },
      }),
    );
    await Promise.all(writes);
    expect(sent.writeMany).toBeGreaterThan(0);
    const page = await (driver.listVersions as NonNullable<MemoryDriver['listVersions']>)({
      path: path('hist'),
      limit: 100,
    });
    expect(page.versions).toHaveLength(12);
    for (const version of page.versions) {
      const index = Number(version.path!.match(/f(\d+)\.md$/)![1]);
      expect(version.actor).toEqual({ type: 'session', id: `s${index}` });
      expect(version.operation).toBe('created');
      expect(version.size).toBe(`content ${index}\n`.length);
    }
  });
});
