// The kit's paging of records (driver/records.ts): the order of keys by UTF-8 bytes, the cursor
// that skips a folder, the depth rule, and the checks of a query. Pure logic: no store.
import { describe, expect, it } from 'vitest';
import {
  compareUtf8,
  isAfterKey,
  isFileId,
  itemAtDepth,
  pageOfRecords,
  recordKey,
} from '../src/driver/index.js';
import type { DriverPath, DriverRecord } from '../src/index.js';

function file(path: string): DriverRecord {
  return {
    kind: 'file',
    path: path as DriverPath,
    fileId: `mem_${'A'.repeat(22)}`,
    sha256: '0'.repeat(64),
    size: 0,
    createdAt: 0,
    changedAt: 0,
    versionId: null,
  };
}

describe('records kit', () => {
  it('orders by UTF-8 bytes: U+FF5E before U+1F600, where UTF-16 order is the other way', () => {
    expect('\u{1F600}' < '\uFF5E').toBe(true);
    expect(compareUtf8('\uFF5E', '\u{1F600}')).toBeLessThan(0);
    expect(compareUtf8('a', 'a')).toBe(0);
  });

  it('gives a folder the key of its path and a slash, and a cursor at a folder skips what lies beneath it', () => {
    expect(recordKey({ kind: 'folder', path: 'a/b' as DriverPath })).toBe('a/b/');
    expect(recordKey(file('a/b.md'))).toBe('a/b.md');
    expect(isAfterKey('a/b/c.md', 'a/b/')).toBe(false);
    expect(isAfterKey('a/b0', 'a/b/')).toBe(true);
    expect(isAfterKey('a/b.md', 'a/b/')).toBe(false);
    expect(isAfterKey('b', null)).toBe(true);
  });

  it('folds a file deeper than the depth into the marker of its folder at that depth', () => {
    expect(itemAtDepth(file('a/b/c/d.md'), '', 2)).toEqual({ kind: 'folder', path: 'a/b' });
    expect(itemAtDepth(file('a/b/c/d.md'), 'a', 2)).toEqual({ kind: 'folder', path: 'a/b/c' });
    expect(itemAtDepth(file('a/b.md'), '', 2)).toMatchObject({ kind: 'file', path: 'a/b.md' });
    expect(itemAtDepth(file('a/b/c/d.md'), '', 0)).toMatchObject({ kind: 'file' });
  });

  it('pages with markers counted, a next key only when more follow, and nothing outside the folder', () => {
    const records = ['z.md', 'a/x/1.md', 'a/x/2.md', 'a/y.md', 'a-b.md', 'ab/c.md'].map(file);
    const first = pageOfRecords(records, { under: 'a' as DriverPath, depth: 1, limit: 1 });
    expect(first.items).toEqual([{ kind: 'folder', path: 'a/x' }]);
    expect(first.next).toBe('a/x/');
    const second = pageOfRecords(records, {
      under: 'a' as DriverPath,
      depth: 1,
      limit: 1,
      after: first.next,
    });
    expect(second.items.map(recordKey)).toEqual(['a/y.md']);
    expect(second.next).toBeNull();
    const all = pageOfRecords(records, { limit: 10 });
    expect(all.items.map(recordKey)).toEqual(['a-b.md', 'a/x/1.md', 'a/x/2.md', 'a/y.md', 'ab/c.md', 'z.md']);
    expect(all.next).toBeNull();
  });

  it('refuses a limit outside 1 to 1,000 or a negative depth as a TypeError (a caller that broke the contract)', () => {
    expect(() => pageOfRecords([], { limit: 0 })).toThrow(TypeError);
    expect(() => pageOfRecords([], { limit: 1001 })).toThrow(TypeError);
    expect(() => pageOfRecords([], { limit: 1, depth: -1 })).toThrow(TypeError);
  });

  it('knows a file id by its shape', () => {
    expect(isFileId(`mem_${'a'.repeat(16)}`)).toBe(true);
    expect(isFileId(`mem_${'a'.repeat(15)}`)).toBe(false);
    expect(isFileId(`mem_${'a'.repeat(129)}`)).toBe(false);
    expect(isFileId('mem_aaaaaaaaaaaaaaaa/')).toBe(false);
    expect(isFileId(5)).toBe(false);
  });
});
