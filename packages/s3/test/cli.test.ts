import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/cli.js';
import { bucket, clearPrefix, keysUnder, rawClient, server, uniquePrefix } from './helpers.js';

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

describe('openStore for s3:// URLs', () => {
  it('opens s3://bucket/prefix with the endpoint from the URL and credentials from the options', async () => {
    const prefix = uniquePrefix('cli');
    const { endpoint, credentials } = server.clientConfig;
    const store = await openStore(
      `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
      {
        credentials,
        namespace: 'cli',
      },
    );
    const admin = rawClient();
    closing.push(async () => {
      await store.close();
      await clearPrefix(admin, `${prefix}/`);
      admin.destroy();
    });
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'from the cli' });
    expect(await store.view({ command: 'view', path: '/memories/a.md' })).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\tfrom the cli",
    );
    expect(await keysUnder(admin, `${prefix}/`)).toEqual([
      `${prefix}/namespaces/cli/.memdir/history/9999999999999998-memver_0000000000000001`,
      `${prefix}/namespaces/cli/memories/a.md`,
    ]);
  });

  it('refuses credentials in the URL without repeating them', () => {
    let message = '';
    try {
      openStore('s3://AKIASECRET:verysecretkey@my-bucket/prefix', {});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^Invalid store URL s3:\/\/\*\*\*@my-bucket\/prefix: credentials do not belong in the URL\./,
    );
    expect(message).not.toMatch(/AKIASECRET|verysecretkey/);
  });

  it('refuses a malformed URL, a bad bucket name, an unknown parameter, and never echoes the query', () => {
    expect(() => openStore('s3:/bucket', {})).toThrow(/^Invalid store URL s3:\/bucket: not an s3:\/\/ URL\./);
    expect(() => openStore('s3://B!/x', {})).toThrow(
      /the bucket name is missing or not a valid S3 bucket name/,
    );
    expect(() => openStore('s3://my-bucket?secret=hunter2', {})).toThrow(/unknown parameter "secret"/);
    expect(() => openStore('s3://my-bucket?secret=hunter2', {})).not.toThrow(/hunter2/);
    expect(() => openStore('s3://my-bucket?forcePathStyle=yes', {})).toThrow(
      /forcePathStyle must be true or false/,
    );
  });
});
