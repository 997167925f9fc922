// createMemoryAdmin and the kit's createOwningAdmin beyond the conformance group: what they close,
// their option and argument errors, UNSUPPORTED without the capability, a drop that makes no
// progress or leaves something behind, and a sweep over more namespaces than one page.
import { describe, expect, it } from 'vitest';
import { createOwningAdmin, wrapDriver } from '../src/driver/index.js';
import {
  createInMemoryDriver,
  createMemoryAdmin,
  createMemoryStore,
  type MemoryDriver,
  MemoryToolError,
} from '../src/index.js';

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryToolError);
    const { code, message } = error as MemoryToolError;
    return { code, message };
  }
  throw new Error('expected a rejection');
}

/** A driver whose close() is counted. */
function counting(driver: MemoryDriver): { driver: MemoryDriver; closes: () => number } {
  let closes = 0;
  const wrapped = wrapDriver(driver, {
    close: async () => {
      closes++;
    },
  });
  return { driver: wrapped, closes: () => closes };
}

describe('createMemoryAdmin', () => {
  it('closes nothing of the driver; createOwningAdmin closes it; a closed admin refuses calls', async () => {
    const shared = counting(createInMemoryDriver());
    const admin = createMemoryAdmin(shared.driver);
    await admin.close();
    await admin.close();
    expect(shared.closes()).toBe(0);
    expect(await rejection(admin.listNamespaces())).toEqual({
      code: 'BACKEND',
      message: 'The memory store is closed.',
    });
    const owned = counting(createInMemoryDriver());
    const owning = createOwningAdmin(owned.driver);
    await owning[Symbol.asyncDispose]();
    expect(owned.closes()).toBe(1);
    // Invalid options close the driver it was given to own.
    const refused = counting(createInMemoryDriver());
    expect(() => createOwningAdmin(refused.driver, { batch: 0 })).toThrow(
      'Invalid @memdir/core option batch: expected a positive integer, got 0',
    );
    expect(refused.closes()).toBe(1);
  });

  it('invalid options are TypeErrors in the house style', () => {
    const driver = createInMemoryDriver();
    expect(() => createMemoryAdmin(driver, { expire: { afterDays: -1 } })).toThrow(
      'Invalid @memdir/core option expire.afterDays: expected a number greater than 0, got -1',
    );
    expect(() => createMemoryAdmin(driver, { history: { keepVersions: 0 } })).toThrow(
      'Invalid @memdir/core option history.keepVersions: expected a positive integer, got 0',
    );
    expect(() => createMemoryAdmin(driver, { timeoutMs: 1.5 })).toThrow(
      'Invalid @memdir/core option timeoutMs: expected a positive integer, got 1.5',
    );
  });

  it('every method is UNSUPPORTED on a driver without capabilities.admin', async () => {
    const admin = createMemoryAdmin(
      wrapDriver(createInMemoryDriver(), { capabilities: { atomicRename: true } }),
    );
    const unsupported = {
      code: 'UNSUPPORTED',
      message: "No admin operations: this store's driver has none (capabilities.admin is not set).",
    };
    for (const call of [admin.listNamespaces(), admin.usage('a'), admin.dropNamespace('a'), admin.sweep()]) {
      expect(await rejection(call)).toEqual(unsupported);
    }
  });

  it('bad namespace names and cursors are INVALID_INPUT, and nothing is dropped', async () => {
    const driver = createInMemoryDriver();
    await createMemoryStore(driver, { namespace: 'keep' }).create({
      command: 'create',
      path: '/memories/a.md',
      file_text: 'a',
    });
    const admin = createMemoryAdmin(driver);
    expect(await rejection(admin.dropNamespace('..'))).toEqual({
      code: 'INVALID_INPUT',
      message:
        'namespace must be a namespace name (use 1 to 128 characters from A-Z a-z 0-9 . _ - @ + = and do not start with "."), got ".."',
    });
    expect((await rejection(admin.listNamespaces({ cursor: 'a/b' }))).code).toBe('INVALID_INPUT');
    expect((await admin.listNamespaces()).namespaces).toEqual(['keep']);
  });

  it('a drop whose batches make no progress fails after three of them; one that leaves files behind fails its check', async () => {
    const inner = createInMemoryDriver();
    const stuck = wrapDriver(inner, { dropNamespace: async () => ({ removed: 0, done: false }) });
    expect(await rejection(createMemoryAdmin(stuck).dropNamespace('t'))).toEqual({
      code: 'BACKEND',
      message: 'Dropping namespace t made no progress: 3 batches in a row removed nothing. Run it again.',
    });
    await createMemoryStore(inner, { namespace: 't' }).create({
      command: 'create',
      path: '/memories/x.md',
      file_text: 'x',
    });
    const liar = wrapDriver(inner, { dropNamespace: async () => ({ removed: 1, done: true }) });
    expect(await rejection(createMemoryAdmin(liar).dropNamespace('t'))).toEqual({
      code: 'BACKEND',
      message:
        'Namespace t still holds 1 file and 1 version after it was dropped: something wrote to it meanwhile, or the driver missed some. Run it again.',
    });
  });

  it('a sweep covers the default space and every namespace, past the first page of names', async () => {
    const driver = createInMemoryDriver();
    const names = Array.from({ length: 230 }, (_, index) => `tenant-${String(index).padStart(3, '0')}`);
    for (const name of names) {
      await createMemoryStore(driver, { namespace: name }).create({
        command: 'create',
        path: '/memories/a.md',
        file_text: name,
      });
    }
    const admin = createMemoryAdmin(driver, { expire: { afterDays: 1 }, batch: 1 });
    const report = await admin.sweep({ now: Date.now() + 2 * 86_400_000 });
    expect(report).toEqual({ namespaces: 231, expired: 230, pruned: 0 });
    expect((await admin.usage('tenant-229')).files).toBe(0);
  });
});
