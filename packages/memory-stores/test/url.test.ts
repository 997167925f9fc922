// Store URLs and options, checked before anything is sent: what a URL names, and every URL or
// option refused, with a message that repeats no key.
import type { MemoryDriver } from '@memdir/core';
import { describe, expect, it } from 'vitest';
import { createMemoryStoresDriver, createMemoryStoresStore, parseStoreUrl } from '../src/index.js';

const SECRET = 'sk-ant-SECRET-0123456789';

describe('parseStoreUrl', () => {
  it('names the API base and the store id', () => {
    expect(parseStoreUrl('memstore+https://api.anthropic.com/memstore_01ABC')).toEqual({
      baseUrl: 'https://api.anthropic.com',
      storeId: 'memstore_01ABC',
    });
    expect(parseStoreUrl('memstore+https://example.com:8443/proxy/anthropic/memstore_x-y_z')).toEqual({
      baseUrl: 'https://example.com:8443/proxy/anthropic',
      storeId: 'memstore_x-y_z',
    });
    expect(parseStoreUrl('MEMSTORE+HTTP://127.0.0.1:8787/memstore_1')).toEqual({
      baseUrl: 'http://127.0.0.1:8787',
      storeId: 'memstore_1',
    });
    expect(parseStoreUrl('memstore+http://localhost/memstore_1').baseUrl).toBe('http://localhost');
    expect(parseStoreUrl('memstore+http://[::1]:9/memstore_1').baseUrl).toBe('http://[::1]:9');
  });

  it.each([
    [`memstore+https://${SECRET}@api.anthropic.com/memstore_1`, 'must not hold a user or key'],
    [`memstore+https://user:${SECRET}@api.anthropic.com/memstore_1`, 'MEMDIR_MEMORY_STORES_KEY'],
    [`memstore+https://api.anthropic.com/memstore_1?key=${SECRET}`, 'takes no query or fragment'],
    [`memstore+https://api.anthropic.com/memstore_1#${SECRET}`, 'takes no query or fragment'],
    ['memstore+https://api.anthropic.com/', "must end with the store's id"],
    ['memstore+https://api.anthropic.com/store_1', "must end with the store's id"],
    ['memstore+http://10.0.0.5/memstore_1', 'only for a server on this machine'],
    ['https://api.anthropic.com/memstore_1', 'starts with memstore+https://'],
  ])('refuses %s', (url, words) => {
    expect(() => parseStoreUrl(url)).toThrow(TypeError);
    expect(() => parseStoreUrl(url)).toThrow(words);
    try {
      parseStoreUrl(url);
    } catch (error) {
      expect((error as Error).message).not.toContain(SECRET);
    }
  });
});

describe('options', () => {
  it('a driver has no namespaces: namespace() is refused with what to do instead', () => {
    const driver = createMemoryStoresDriver({ storeId: 'memstore_1', apiKey: SECRET });
    expect(() => driver.namespace('team')).toThrow(
      '@memdir/memory-stores has no namespaces: a store URL names one memory store, so open the store meant for "team" by its own id instead.',
    );
    expect(() =>
      createMemoryStoresStore({ storeId: 'memstore_1', apiKey: SECRET, namespace: 'x' } as never),
    ).toThrow('Invalid @memdir/memory-stores option namespace: a memory stores API store has no namespaces');
  });

  it('declares what it cannot do', () => {
    const driver: MemoryDriver = createMemoryStoresDriver({ storeId: 'memstore_1', apiKey: SECRET });
    expect(driver.capabilities).toEqual({ atomicRename: false, maxFileBytes: 102_400 });
    expect(driver.edit).toBeUndefined();
    expect(driver.update).toBeUndefined();
    expect(driver.listVersions).toBeUndefined();
  });

  it('refuses a store maxFileBytes above the API limit, and a missing key names the variables', () => {
    expect(() =>
      createMemoryStoresStore({ storeId: 'memstore_1', apiKey: SECRET, maxFileBytes: 1_048_576 }),
    ).toThrow('1048576 is more than this backend holds in one file (102400 bytes)');
    const saved = { ...process.env };
    delete process.env['MEMDIR_MEMORY_STORES_KEY'];
    delete process.env['ANTHROPIC_API_KEY'];
    try {
      expect(() => createMemoryStoresDriver({ storeId: 'memstore_1' })).toThrow(
        'Invalid @memdir/memory-stores option apiKey: no key: set MEMDIR_MEMORY_STORES_KEY (or ANTHROPIC_API_KEY) in the environment, or pass apiKey',
      );
    } finally {
      Object.assign(process.env, saved);
    }
  });

  it.each([
    [{ storeId: 'nope', apiKey: SECRET }, 'option storeId'],
    [{ storeId: 'memstore_1', baseUrl: `https://u:${SECRET}@x.example`, apiKey: SECRET }, 'option baseUrl'],
    [{ storeId: 'memstore_1', baseUrl: 'ftp://x.example', apiKey: SECRET }, 'option baseUrl'],
    [{ storeId: 'memstore_1', apiKey: '' }, 'option apiKey'],
    [{ storeId: 'memstore_1', apiKey: SECRET, maxMemoryBytes: 0 }, 'option maxMemoryBytes'],
  ])('refuses %o', (options, words) => {
    expect(() => createMemoryStoresDriver(options)).toThrow(words);
    try {
      createMemoryStoresDriver(options);
    } catch (error) {
      expect((error as Error).message).not.toContain(SECRET);
    }
  });
});
