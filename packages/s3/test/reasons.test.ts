// Every BACKEND failure says why (`reason`) and whether a change may have been made (`outcome`),
// against the real server: a misconfigured store (a missing bucket, refused credentials) is not
// told to try again, and the server's own error stays on `cause` for operators. (A stalled server,
// reason `timeout`, is in deadline.test.ts; a lease another store holds, reason `busy`, in
// lease.test.ts.)
import { isMemoryToolError, type MemoryToolError } from '@memdir/core';
import { freePort } from '@memdir/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3Driver, createS3Store } from '../src/index.js';
import { clearPrefix, rawClient, server, storeOptions, uniquePrefix } from './helpers.js';

const admin = rawClient();
const prefix = uniquePrefix('reasons');
afterAll(async () => {
  await clearPrefix(admin, `${prefix}/`);
  admin.destroy();
});

async function failure(run: () => Promise<unknown>): Promise<MemoryToolError> {
  const error = await run().then(
    (value) => {
      throw new Error(`expected a BACKEND failure, got ${JSON.stringify(value)}`);
    },
    (caught: unknown) => caught,
  );
  expect(isMemoryToolError(error) && error.code, String(error)).toBe('BACKEND');
  return error as MemoryToolError;
}

const MISCONFIGURED =
  /^The memory store is unavailable: .+\. Trying again will not help until the store's configuration is fixed\.$/;

describe('BACKEND reasons', () => {
  it('a missing bucket is misconfigured, for reads, changes and ready(), with the server error on cause', async () => {
    const options = { ...storeOptions(prefix), bucket: `memdir-missing-${Date.now().toString(36)}` };
    const store = createS3Store(options);
    const driver = createS3Driver(options);
    try {
      for (const run of [
        () => store.view({ command: 'view', path: '/memories' }),
        () => store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' }),
        () => driver.ready(),
      ]) {
        const error = await failure(run);
        expect(error.reason).toBe('misconfigured');
        expect(error.outcome).toBe('not-applied');
        expect(error.message).toMatch(MISCONFIGURED);
        expect(error.message).toContain('the bucket does not exist');
        expect((error.cause as { name?: string }).name).toBe('NoSuchBucket');
      }
    } finally {
      await store.close();
      await driver.close();
    }
  });

  it('refused credentials are misconfigured: a wrong secret, an unknown access key', async () => {
    const { credentials } = server.clientConfig;
    for (const wrong of [
      { ...credentials, secretAccessKey: 'not-the-secret' },
      { accessKeyId: 'memdir-nobody', secretAccessKey: 'not-the-secret' },
    ]) {
      const store = createS3Store({ ...storeOptions(prefix), credentials: wrong });
      try {
        const error = await failure(() => store.view({ command: 'view', path: '/memories' }));
        expect(error.reason).toBe('misconfigured');
        expect(error.message).toMatch(MISCONFIGURED);
        expect(error.message).not.toContain('not-the-secret');
        expect(['SignatureDoesNotMatch', 'InvalidAccessKeyId']).toContain(
          (error.cause as { name?: string }).name,
        );
      } finally {
        await store.close();
      }
    }
  });

  it('a port nobody listens on is unavailable at once, and nothing was applied', async () => {
    const port = await freePort();
    const store = createS3Store({ ...storeOptions(prefix), endpoint: `http://127.0.0.1:${port}` });
    try {
      const started = Date.now();
      const error = await failure(() =>
        store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' }),
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(error).toMatchObject({ reason: 'unavailable', outcome: 'not-applied' });
      expect(error.message).toBe(
        'The memory store is unavailable: the S3 endpoint refused the connection. Try again.',
      );
    } finally {
      await store.close();
    }
  });

  it('a closed store, and a closed driver, are closed', async () => {
    const store = createS3Store(storeOptions(prefix));
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await store.close();
    expect(await failure(() => store.view({ command: 'view', path: '/memories/a.md' }))).toMatchObject({
      reason: 'closed',
    });
    const driver = createS3Driver(storeOptions(prefix));
    const team = driver.namespace('team');
    await driver.close();
    const path = 'a.md' as Parameters<typeof driver.read>[0];
    expect(await failure(() => driver.read(path))).toMatchObject({ reason: 'closed' });
    expect(await failure(() => team.read(path))).toMatchObject({ reason: 'closed' });
  });
});
