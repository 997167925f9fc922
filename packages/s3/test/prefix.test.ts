// The prefix decides where a store lives in the bucket. No prefix may lie inside another store's
// tree: prefix `p/carol/memories/x` would be files that carol's model sees and deletes, and prefix
// `p/namespaces/n` would be the store of prefix `p` in namespace `n`.
import type { MemoryStore } from '@memdir/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createS3Driver, createS3Store } from '../src/index.js';
import { clearPrefix, keysUnder, rawClient, storeOptions, uniquePrefix } from './helpers.js';

const admin = rawClient();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function open(prefix: string, namespace?: string): MemoryStore {
  const store = createS3Store({ ...storeOptions(prefix), ...(namespace ? { namespace } : {}) });
  cleanups.push(async () => {
    await store.close();
    await clearPrefix(admin, `${prefix}/`);
  });
  return store;
}

const RULE =
  'use key segments separated by single slashes, without a leading slash, an empty, "." or ".." segment, a control character, or a segment named memories, namespaces or .memdir (e.g. "agents/alice")';

describe('the prefix option', () => {
  it.each([
    ['p/carol/memories/x', "inside prefix p/carol's files"],
    ['p/namespaces/n', 'the store of prefix p in namespace n'],
    ['p/.memdir/x', "inside prefix p's lease and probe objects"],
    ['memories', 'the files of the store without a prefix'],
    ['p/./x', 'a "." segment'],
    ['p/../x', 'a ".." segment'],
    ['p//x', 'an empty segment'],
    ['/p', 'a leading slash'],
    ['p/\u0007', 'a control character'],
  ])('%s (%s) is refused when the store is made, with the rule', (prefix) => {
    const expected = new TypeError(`Invalid @memdir/s3 option prefix ${JSON.stringify(prefix)}: ${RULE}`);
    expect(() => createS3Store(storeOptions(prefix))).toThrow(expected);
    expect(() => createS3Driver(storeOptions(prefix))).toThrow(expected);
  });

  it('names that only look like the reserved ones are prefixes like any other', () => {
    for (const prefix of ['p/memories.d', 'p/Memories', 'p/.memdirx', 'p/namespaces-old', 'p/x.', 'p/...']) {
      expect(() => createS3Driver(storeOptions(prefix))).not.toThrow();
    }
  });

  it('two allowed prefixes, one below the other, never see each other', async () => {
    const base = uniquePrefix('prefix-nesting');
    const carol = open(base);
    const below = open(`${base}/x`);
    const team = open(base, 'n');
    await carol.create({ command: 'create', path: '/memories/carol.md', file_text: 'carol\n' });
    await below.create({ command: 'create', path: '/memories/below.md', file_text: 'below\n' });
    await team.create({ command: 'create', path: '/memories/team.md', file_text: 'team\n' });
    const listing = (store: MemoryStore) =>
      store.view({ command: 'view', path: '/memories' }).then((text) => text.split('\n').slice(2));
    expect(await listing(carol)).toEqual(['6B\t/memories/carol.md']);
    expect(await listing(below)).toEqual(['6B\t/memories/below.md']);
    expect(await listing(team)).toEqual(['5B\t/memories/team.md']);
    // Each store's history is its own too.
    const first = '.memdir/history/9999999999999998-memver_0000000000000001';
    expect((await keysUnder(admin, `${base}/`)).sort()).toEqual([
      `${base}/${first}`,
      `${base}/memories/carol.md`,
      `${base}/namespaces/n/${first}`,
      `${base}/namespaces/n/memories/team.md`,
      `${base}/x/${first}`,
      `${base}/x/memories/below.md`,
    ]);
  });
});
