// SPEC section 3: a namespace's quota (`quota.maxBytes`, `quota.maxFiles`), judged in the same atomic
// step as each change. The texts byte for byte, the order of checks (QUOTA_EXCEEDED last), changes
// that never raise the total never refused, hidden files counted, neighbours not counted, and
// concurrent writers from several store instances never past the quota. For stores whose
// capabilities declare `quotas`.

import type { MemoryStore } from '@memdir/core';
import { isMemoryToolError } from '@memdir/core';
import { expect } from 'vitest';
import { expectError, seed, view } from './assertions.js';
import type { Suite } from './suite.js';

const bytesFull = (path: string, total: number, max: number) =>
  `The memory directory is full: saving ${path} would use ${total} of ${max} bytes. Delete or shorten files in /memories first.`;
const filesFull = (count: number, max: number) =>
  `The memory directory is full: it holds ${count} of ${max} files. Delete files in /memories first.`;

function create(store: MemoryStore, path: string, file_text: string): Promise<string> {
  return store.create({ command: 'create', path, file_text });
}

export function quotaTests(suite: Suite): void {
  const { test } = suite;
  if (suite.capabilities.quotas !== true) return;

  test('quota: a create past maxBytes is QUOTA_EXCEEDED with the total it would leave, and writes nothing', async () => {
    const store = await suite.open({ quota: { maxBytes: 100 } });
    await seed(store, { '/memories/a.md': 'x'.repeat(60) });
    const before = await suite.snapshot();
    await expectError(
      create(store, '/memories/b.md', 'y'.repeat(41)),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/b.md', 101, 100),
    );
    expect(await suite.snapshot()).toEqual(before);
    // Exactly at the quota is allowed.
    expect(await create(store, '/memories/b.md', 'y'.repeat(40))).toBe(
      'File created successfully at: /memories/b.md',
    );
  });

  test('quota: UTF-8 bytes are what count (a multi-byte character counts its bytes)', async () => {
    const store = await suite.open({ quota: { maxBytes: 10 } });
    await expectError(
      create(store, '/memories/e.md', '\u00e9'.repeat(6)),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/e.md', 12, 10),
    );
    expect(await create(store, '/memories/e.md', '\u00e9'.repeat(5))).toBe(
      'File created successfully at: /memories/e.md',
    );
  });

  test('quota: overwriting a file counts the difference; a shorter overwrite is never refused, even past a lowered quota', async () => {
    const roomy = await suite.open({ quota: { maxBytes: 100 } });
    await seed(roomy, { '/memories/a.md': 'x'.repeat(50), '/memories/b.md': 'y'.repeat(40) });
    await expectError(
      create(roomy, '/memories/a.md', 'x'.repeat(61)),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/a.md', 101, 100),
    );
    expect(await create(roomy, '/memories/a.md', 'x'.repeat(60))).toBe(
      'File created successfully at: /memories/a.md',
    );
    // The quota lowered below what the namespace holds: nothing that raises the total passes, but
    // shrinking, equal-size writes, renames and deletes do.
    const tight = await suite.open({ quota: { maxBytes: 50 } });
    expect(await create(tight, '/memories/a.md', 'z'.repeat(60))).toBe(
      'File created successfully at: /memories/a.md',
    );
    expect(await create(tight, '/memories/a.md', 'z'.repeat(30))).toBe(
      'File created successfully at: /memories/a.md',
    );
    await expectError(
      create(tight, '/memories/a.md', 'z'.repeat(31)),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/a.md', 71, 50),
    );
    expect(
      await tight.rename({ command: 'rename', old_path: '/memories/b.md', new_path: '/memories/c/b.md' }),
    ).toBe('Successfully renamed /memories/b.md to /memories/c/b.md');
    expect(await tight.delete({ command: 'delete', path: '/memories/c' })).toBe(
      'Successfully deleted /memories/c',
    );
  });

  test('quota: str_replace and insert that raise the total past maxBytes are refused; one that shrinks it passes past the quota', async () => {
    const roomy = await suite.open({ quota: { maxBytes: 1000 } });
    await seed(roomy, { '/memories/n.md': 'alpha\nbeta' });
    const tight = await suite.open({ quota: { maxBytes: 12 } });
    // 10 bytes now; +3 is 13 > 12.
    await expectError(
      tight.str_replace({
        command: 'str_replace',
        path: '/memories/n.md',
        old_str: 'beta',
        new_str: 'betaxyz',
      }),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/n.md', 13, 12),
    );
    await expectError(
      tight.insert({ command: 'insert', path: '/memories/n.md', insert_line: 2, insert_text: 'gam' }),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/n.md', 14, 12),
    );
    expect(await view(tight, '/memories/n.md')).toBe(
      "Here's the content of /memories/n.md with line numbers:\n     1\talpha\n     2\tbeta",
    );
    const tighter = await suite.open({ quota: { maxBytes: 5 } });
    expect(
      await tighter.str_replace({
        command: 'str_replace',
        path: '/memories/n.md',
        old_str: 'beta',
        new_str: 'b',
      }),
    ).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\talpha\n     2\tb',
    );
  });

  test('quota: a new file past maxFiles is QUOTA_EXCEEDED with the count held; replacing a file is not', async () => {
    const store = await suite.open({ quota: { maxFiles: 2 } });
    await seed(store, { '/memories/a.md': 'a', '/memories/.hidden/b.md': 'hidden files count' });
    const before = await suite.snapshot(['/memories/.hidden']);
    await expectError(create(store, '/memories/c.md', 'c'), 'QUOTA_EXCEEDED', filesFull(2, 2));
    expect(await suite.snapshot(['/memories/.hidden'])).toEqual(before);
    expect(await create(store, '/memories/a.md', 'replaced')).toBe(
      'File created successfully at: /memories/a.md',
    );
    await store.delete({ command: 'delete', path: '/memories/a.md' });
    expect(await create(store, '/memories/c.md', 'c')).toBe('File created successfully at: /memories/c.md');
  });

  test('quota: where both quotas would be passed, the bytes text is reported', async () => {
    const store = await suite.open({ quota: { maxBytes: 10, maxFiles: 1 } });
    await seed(store, { '/memories/a.md': 'aaaaaaaa' });
    await expectError(
      create(store, '/memories/b.md', 'bbb'),
      'QUOTA_EXCEEDED',
      bytesFull('/memories/b.md', 11, 10),
    );
    await expectError(create(store, '/memories/b.md', 'b'), 'QUOTA_EXCEEDED', filesFull(1, 1));
  });

  test('quota: QUOTA_EXCEEDED comes last: TOO_LARGE, NO_MATCH, INVALID_LINE, PATH_CONFLICT and ALREADY_EXISTS win over it', async () => {
    const store = await suite.open({ quota: { maxBytes: 20, maxFiles: 1 }, maxFileBytes: 30 });
    await seed(store, { '/memories/f.md': 'ffff' });
    await expectError(
      create(store, '/memories/g.md', 'g'.repeat(31)),
      'TOO_LARGE',
      'File /memories/g.md would be 31 bytes, over the limit of 30 bytes. Nothing was written.',
    );
    await expectError(
      store.str_replace({
        command: 'str_replace',
        path: '/memories/f.md',
        old_str: 'zz',
        new_str: 'z'.repeat(40),
      }),
      'NO_MATCH',
    );
    await expectError(
      store.insert({
        command: 'insert',
        path: '/memories/f.md',
        insert_line: 9,
        insert_text: 'x'.repeat(40),
      }),
      'INVALID_LINE',
    );
    await expectError(create(store, '/memories/f.md/under', 'x'), 'PATH_CONFLICT');
    const strict = await suite.open({ quota: { maxBytes: 20, maxFiles: 1 }, overwrite: false });
    await expectError(create(strict, '/memories/f.md', 'x'.repeat(40)), 'ALREADY_EXISTS');
  });

  test('quota: the files of another namespace do not count', async () => {
    const neighbour = await suite.open({ namespace: 'conformance-quota-neighbour' });
    await seed(neighbour, { '/memories/big.md': 'n'.repeat(500) });
    const store = await suite.open({ quota: { maxBytes: 100, maxFiles: 2 } });
    expect(await create(store, '/memories/a.md', 'a'.repeat(100))).toBe(
      'File created successfully at: /memories/a.md',
    );
  });

  test('quota: 40 creates racing from four store instances fill the quota exactly and never pass it', async () => {
    const options = { quota: { maxBytes: 100 } };
    const stores = [
      await suite.open(options),
      await suite.open(options),
      await suite.open(options),
      await suite.open(options),
    ];
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, index) =>
        create(stores[index % 4]!, `/memories/r/${String(index).padStart(2, '0')}.md`, 'x'.repeat(10)),
      ),
    );
    const created = results.filter((result) => result.status === 'fulfilled').length;
    for (const result of results) {
      if (result.status === 'rejected') {
        expect(isMemoryToolError(result.reason) && result.reason.code, String(result.reason)).toBe(
          'QUOTA_EXCEEDED',
        );
      }
    }
    expect(created).toBe(10);
    const listing = await view(stores[0]!, '/memories/r');
    expect(listing.split('\n')[1]).toBe('100B\t/memories/r');
  });
}
