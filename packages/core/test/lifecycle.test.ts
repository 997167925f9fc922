// Core v3's ownership rule: a store closes what it made, never a driver the application passed in;
// an adapter hands a driver it made over with the kit's `createOwningStore`. And namespaces are
// checked by core before any driver sees them.
import { describe, expect, it } from 'vitest';
import { AbstractMemoryDriver, createOwningStore, wrapDriver } from '../src/driver/index.js';
import { createInMemoryDriver, createMemoryStore, type MemoryDriver } from '../src/index.js';

/** `driver` with a count of the closes of itself and of every namespaced driver made from it. */
function counting(driver: MemoryDriver): { driver: MemoryDriver; closes: string[] } {
  const closes: string[] = [];
  const wrap = (inner: MemoryDriver, label: string): MemoryDriver =>
    wrapDriver(inner, {
      namespace: (name) => wrap(inner.namespace(name), `${label}/${name}`),
      close: async () => {
        closes.push(label);
        await inner.close();
      },
    });
  return { driver: wrap(driver, 'root'), closes };
}

describe('a store closes what it made, never what it was given', () => {
  it('createMemoryStore(driver) leaves the driver open on close()', async () => {
    const { driver, closes } = counting(createInMemoryDriver());
    const store = createMemoryStore(driver);
    await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    await store.close();
    expect(closes).toEqual([]);
    // The driver still works for the application.
    expect(await driver.read('a.md' as never)).toMatchObject({ kind: 'file', content: 'a' });
  });

  it('with a namespace, the store closes the namespaced driver it made and not the parent', async () => {
    const { driver, closes } = counting(createInMemoryDriver());
    const stores = [
      createMemoryStore(driver, { namespace: 't1' }),
      createMemoryStore(driver, { namespace: 't2' }),
    ];
    for (const store of stores) await store.close();
    expect(closes).toEqual(['root/t1', 'root/t2']);
  });

  it('close() is idempotent and a closed store answers BACKEND with reason closed', async () => {
    const { driver, closes } = counting(createInMemoryDriver());
    const store = createOwningStore(driver, { namespace: 'n' });
    await store.close();
    await store.close();
    expect(closes).toEqual(['root/n', 'root']);
    await expect(store.view({ command: 'view', path: '/memories' })).rejects.toMatchObject({
      code: 'BACKEND',
      reason: 'closed',
      outcome: 'not-applied',
      message: 'The memory store is closed.',
    });
  });

  it('createOwningStore closes the driver it was handed, after the namespaced one', async () => {
    const { driver, closes } = counting(createInMemoryDriver());
    const store = createOwningStore(driver, { namespace: 'x' });
    await store.close();
    expect(closes).toEqual(['root/x', 'root']);
  });

  it('createOwningStore closes the driver when the options are invalid, and throws the TypeError', () => {
    const { driver, closes } = counting(createInMemoryDriver());
    expect(() => createOwningStore(driver, { maxViewChars: 0 })).toThrow(
      'Invalid @memdir/core option maxViewChars: expected a positive integer, got 0',
    );
    expect(closes).toEqual(['root']);
  });

  it('await using closes a store (Symbol.asyncDispose)', async () => {
    const { driver, closes } = counting(createInMemoryDriver());
    {
      await using store = createOwningStore(driver);
      await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });
    }
    expect(closes).toEqual(['root']);
  });
});

describe('namespaces are checked by core, for every driver', () => {
  class Careless extends AbstractMemoryDriver {
    readonly capabilities = { atomicRename: true };
    readonly opened: string[] = [];
    protected openNamespace(name: string): MemoryDriver {
      this.opened.push(name);
      return this;
    }
    read = async () => null;
    write = async () => ({ version: '1' });
    async *list() {}
    remove = async () => false;
    move = async () => {};
    close = async () => {};
  }

  it.each([
    ['empty', ''],
    ['.', '.'],
    ['..', '..'],
    ['a slash', 'a/b'],
    ['an escape', '../x'],
    ['129 characters', 'n'.repeat(129)],
  ])('a driver extending AbstractMemoryDriver never sees an invalid name (%s)', (_label, name) => {
    const driver = new Careless();
    expect(() => driver.namespace(name)).toThrow(TypeError);
    expect(() => driver.namespace(name)).toThrow(/^Invalid @memdir\/core option namespace: /);
    expect(driver.opened).toEqual([]);
  });

  it('createMemoryStore checks the namespace option before it asks the driver', () => {
    const inner = createInMemoryDriver();
    const asked: string[] = [];
    const driver = wrapDriver(inner, {
      namespace: (name) => {
        asked.push(name);
        return inner.namespace(name);
      },
    });
    expect(() => createMemoryStore(driver, { namespace: '../..' })).toThrow(
      'Invalid @memdir/core option namespace: "../..": use 1 to 128 characters from A-Z a-z 0-9 . _ - @ + = and do not start with "."',
    );
    expect(asked).toEqual([]);
  });
});
