// SPEC section 3 (namespace) and section 8: stores with different namespaces on one backend, and the
// store without a namespace, never see, change or list each other's files.

import type { MemoryStore } from '@memdir/core';
import { expect } from 'vitest';
import { expectError, fileHeader, listingHeader, view, walk } from './assertions.js';
import type { Suite } from './suite.js';

const HIDDEN_ROOTS = ['/memories/.hidden', '/memories/node_modules'];

/** Paths a store with namespace `a` might use to reach namespace `b` or the store without one. */
const REACHING_OUT = [
  '/memories/../b/memories/shared.md',
  '/memories/../../b/shared.md',
  '/memories/../shared.md',
  '/memories/%2e%2e/b/shared.md',
  '/memories/..%2fb%2fshared.md',
  '/memories\\..\\b\\shared.md',
  '/memoriesb/shared.md',
  '../b/memories/shared.md',
  '/b/memories/shared.md',
  '/memories/\u0000/../b/shared.md',
];

export function isolationTests(suite: Suite): void {
  const { test } = suite;

  async function threeStores(): Promise<Record<'a' | 'b' | 'none', MemoryStore>> {
    return {
      a: await suite.open({ namespace: 'a' }),
      b: await suite.open({ namespace: 'b' }),
      none: await suite.open({ namespace: undefined }),
    };
  }

  async function trees(stores: Record<string, MemoryStore>) {
    const result: Record<string, unknown> = {};
    for (const [name, store] of Object.entries(stores)) result[name] = await walk(store, HIDDEN_ROOTS);
    return result;
  }

  test("isolation: the same path in namespaces 'a', 'b' and none holds three different files", async () => {
    const stores = await threeStores();
    const texts = { a: 'from a', b: 'from b!', none: 'from none' };
    for (const [name, store] of Object.entries(stores)) {
      await store.create({
        command: 'create',
        path: '/memories/shared.md',
        file_text: texts[name as keyof typeof texts],
      });
    }
    for (const [name, store] of Object.entries(stores)) {
      const text = texts[name as keyof typeof texts];
      expect(await view(store, '/memories/shared.md')).toBe(
        `${fileHeader('/memories/shared.md')}     1\t${text}`,
      );
      expect(await view(store, '/memories')).toBe(
        `${listingHeader('/memories')}${text.length}B\t/memories\n${text.length}B\t/memories/shared.md`,
      );
    }
  });

  test('isolation: files written in one namespace never appear in the views of the others', async () => {
    const stores = await threeStores();
    await stores.a.create({ command: 'create', path: '/memories/only-a/x.md', file_text: 'a' });
    await stores.a.create({ command: 'create', path: '/memories/.hidden/a.md', file_text: 'a' });
    await stores.b.create({ command: 'create', path: '/memories/only-b.md', file_text: 'b' });
    await stores.none.create({ command: 'create', path: '/memories/node_modules/none.md', file_text: 'n' });
    expect(await view(stores.a, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/only-a/\n1B\t/memories/only-a/x.md`,
    );
    expect(await view(stores.b, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/only-b.md`,
    );
    // The store without a namespace must not list the namespaces (no "a/" or "b/" directory).
    expect(await view(stores.none, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
    for (const path of ['/memories/only-a/x.md', '/memories/only-a', '/memories/.hidden/a.md']) {
      await expectError(
        view(stores.b, path),
        'NOT_FOUND',
        `The path ${path} does not exist. Please provide a valid path.`,
      );
      await expectError(
        view(stores.none, path),
        'NOT_FOUND',
        `The path ${path} does not exist. Please provide a valid path.`,
      );
    }
    await expectError(
      view(stores.a, '/memories/node_modules/none.md'),
      'NOT_FOUND',
      'The path /memories/node_modules/none.md does not exist. Please provide a valid path.',
    );
    await expectError(
      view(stores.a, '/memories/only-b.md'),
      'NOT_FOUND',
      'The path /memories/only-b.md does not exist. Please provide a valid path.',
    );
  });

  test("isolation: a directory named like another namespace stays in its own namespace ('/memories/b/...' in 'a')", async () => {
    const stores = await threeStores();
    await stores.b.create({ command: 'create', path: '/memories/shared.md', file_text: 'b' });
    await stores.a.create({
      command: 'create',
      path: '/memories/b/shared.md',
      file_text: 'a pretending to be b',
    });
    await stores.a.create({
      command: 'create',
      path: '/memories/b/memories/shared.md',
      file_text: 'a again',
    });
    await stores.none.create({
      command: 'create',
      path: '/memories/a/shared.md',
      file_text: 'none pretending to be a',
    });
    expect(await view(stores.b, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/shared.md`,
    );
    expect(await view(stores.b, '/memories/shared.md')).toBe(`${fileHeader('/memories/shared.md')}     1\tb`);
    await expectError(
      view(stores.a, '/memories/shared.md'),
      'NOT_FOUND',
      'The path /memories/shared.md does not exist. Please provide a valid path.',
    );
    await expectError(
      view(stores.a, '/memories/a'),
      'NOT_FOUND',
      'The path /memories/a does not exist. Please provide a valid path.',
    );
  });

  test('isolation: hostile paths from one namespace reach nothing in the others', async () => {
    const stores = await threeStores();
    for (const [name, store] of Object.entries(stores)) {
      await store.create({ command: 'create', path: '/memories/shared.md', file_text: `from ${name}` });
      await store.create({ command: 'create', path: '/memories/b/shared.md', file_text: `nested ${name}` });
      await store.create({ command: 'create', path: '/memories/.hidden/h.md', file_text: `hidden ${name}` });
    }
    const before = await trees(stores);
    for (const path of REACHING_OUT) {
      const attempts = [
        stores.a.view({ command: 'view', path }),
        stores.a.create({ command: 'create', path, file_text: 'pwned' }),
        stores.a.str_replace({ command: 'str_replace', path, old_str: 'from', new_str: 'pwned' }),
        stores.a.insert({ command: 'insert', path, insert_line: 0, insert_text: 'pwned' }),
        stores.a.delete({ command: 'delete', path }),
        stores.a.rename({ command: 'rename', old_path: path, new_path: '/memories/stolen.md' }),
        stores.a.rename({ command: 'rename', old_path: '/memories/shared.md', new_path: path }),
      ];
      for (const attempt of attempts) await expectError(attempt, 'INVALID_PATH');
    }
    expect(await trees(stores)).toEqual(before);
  });

  test('isolation: delete and rename in one namespace leave the others intact', async () => {
    const stores = await threeStores();
    for (const [name, store] of Object.entries(stores)) {
      await store.create({ command: 'create', path: '/memories/d/x.md', file_text: name });
      await store.create({ command: 'create', path: '/memories/f.md', file_text: name });
    }
    expect(await stores.a.delete({ command: 'delete', path: '/memories/d' })).toBe(
      'Successfully deleted /memories/d',
    );
    expect(
      await stores.b.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' }),
    ).toBe('Successfully renamed /memories/d to /memories/e');
    expect(await stores.none.delete({ command: 'delete', path: '/memories/f.md' })).toBe(
      'Successfully deleted /memories/f.md',
    );
    expect(await view(stores.a, '/memories')).toBe(
      `${listingHeader('/memories')}1B\t/memories\n1B\t/memories/f.md`,
    );
    expect(await view(stores.b, '/memories')).toBe(
      `${listingHeader('/memories')}2B\t/memories\n1B\t/memories/e/\n1B\t/memories/e/x.md\n1B\t/memories/f.md`,
    );
    expect(await view(stores.none, '/memories')).toBe(
      `${listingHeader('/memories')}4B\t/memories\n4B\t/memories/d/\n4B\t/memories/d/x.md`,
    );
  });

  test("isolation: deleting '/memories/a' without a namespace leaves namespace 'a' intact", async () => {
    const stores = await threeStores();
    await stores.a.create({ command: 'create', path: '/memories/x.md', file_text: 'a' });
    await stores.none.create({ command: 'create', path: '/memories/a/x.md', file_text: 'none' });
    await stores.none.delete({ command: 'delete', path: '/memories/a' });
    expect(await view(stores.a, '/memories/x.md')).toBe(`${fileHeader('/memories/x.md')}     1\ta`);
    await expectError(
      stores.none.delete({ command: 'delete', path: '/memories/a' }),
      'NOT_FOUND',
      'The path /memories/a does not exist',
    );
  });

  test('isolation: namespaces that share a prefix (a, ab, a.b, a-b) stay apart', async () => {
    const names = ['a', 'ab', 'a.b', 'a-b', 'A'];
    const stores: MemoryStore[] = [];
    for (const namespace of names) stores.push(await suite.open({ namespace }));
    for (const [index, store] of stores.entries()) {
      await store.create({ command: 'create', path: '/memories/n.md', file_text: names[index]! });
    }
    await stores[0]!.delete({ command: 'delete', path: '/memories/n.md' });
    await expectError(
      view(stores[0]!, '/memories/n.md'),
      'NOT_FOUND',
      'The path /memories/n.md does not exist. Please provide a valid path.',
    );
    for (const [index, store] of stores.entries()) {
      if (index === 0) continue;
      expect(await view(store, '/memories')).toBe(
        `${listingHeader('/memories')}${names[index]!.length}B\t/memories\n${names[index]!.length}B\t/memories/n.md`,
      );
    }
  });

  test('isolation: two stores with the same namespace on one backend share their files', async () => {
    const first = await suite.open({ namespace: 'shared' });
    const second = await suite.open({ namespace: 'shared' });
    await first.create({ command: 'create', path: '/memories/x.md', file_text: 'x' });
    expect(await view(second, '/memories/x.md')).toBe(`${fileHeader('/memories/x.md')}     1\tx`);
  });

  test('isolation: stores on different backends share nothing', async () => {
    const here = await suite.open();
    const there = await suite.open({}, suite.newBackend());
    await here.create({ command: 'create', path: '/memories/x.md', file_text: 'x' });
    expect(await view(there, '/memories')).toBe(`${listingHeader('/memories')}0B\t/memories`);
  });
}
