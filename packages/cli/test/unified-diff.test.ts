// The unified diff of `memdir diff`, in the format of `diff -u` (checked against its output).
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../src/unified-diff.js';

const LABELS = { old: 'a', new: 'b' };
const PLAIN = { colour: false };
const lines = (count: number) => Array.from({ length: count }, (_, index) => `${index + 1}\n`).join('');

describe('unifiedDiff', () => {
  it('prints nothing for equal texts', () => {
    expect(unifiedDiff('same\n', 'same\n', LABELS, PLAIN)).toBe('');
  });

  it('keeps 3 lines of context and splits changes far apart into hunks', () => {
    const before = lines(20);
    const after = before.replace('2\n', 'two\n').replace('18\n', 'eighteen\n');
    expect(unifiedDiff(before, after, LABELS, PLAIN)).toBe(
      [
        '--- a',
        '+++ b',
        '@@ -1,5 +1,5 @@',
        ' 1',
        '-2',
        '+two',
        ' 3',
        ' 4',
        ' 5',
        '@@ -15,6 +15,6 @@',
        ' 15',
        ' 16',
        ' 17',
        '-18',
        '+eighteen',
        ' 19',
        ' 20',
        '',
      ].join('\n'),
    );
  });

  it('joins changes whose context overlaps', () => {
    const before = lines(10);
    const after = before.replace('3\n', 'three\n').replace('8\n', 'eight\n');
    expect(
      unifiedDiff(before, after, LABELS, PLAIN)
        .split('\n')
        .filter((line) => line.startsWith('@@')),
    ).toEqual(['@@ -1,10 +1,10 @@']);
  });

  it('marks a last line without a newline, as diff does', () => {
    expect(unifiedDiff('x\ny', 'x\ny\nz\n', LABELS, PLAIN)).toBe(
      '--- a\n+++ b\n@@ -1,2 +1,3 @@\n x\n-y\n\\ No newline at end of file\n+y\n+z\n',
    );
    expect(unifiedDiff('x\n', 'x', LABELS, PLAIN)).toBe(
      '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n',
    );
  });

  it('diffs from and to nothing', () => {
    expect(unifiedDiff('', 'a\nb\n', LABELS, PLAIN)).toBe('--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(unifiedDiff('a\n', '', LABELS, PLAIN)).toBe('--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n');
  });

  it('colours removed lines red, added green and hunk headers cyan on request', () => {
    expect(unifiedDiff('a\n', 'b\n', LABELS, { colour: true })).toBe(
      '\u001b[1m--- a\u001b[0m\n\u001b[1m+++ b\u001b[0m\n\u001b[36m@@ -1 +1 @@\u001b[0m\n\u001b[31m-a\u001b[0m\n\u001b[32m+b\u001b[0m\n',
    );
  });

  it('diffs a large file with one change to one hunk', () => {
    const before = lines(20_000);
    const after = before.replace('\n10000\n', '\nten thousand\n');
    const diff = unifiedDiff(before, after, LABELS, PLAIN);
    expect(diff.split('\n').filter((line) => line.startsWith('@@'))).toEqual(['@@ -9997,7 +9997,7 @@']);
    expect(diff).toContain('-10000\n+ten thousand\n');
  });
});
