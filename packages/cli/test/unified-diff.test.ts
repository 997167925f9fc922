// The unified diff of `memdir diff`, in the format of `diff -u` (checked against its output).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      '\u001b[1m--- a\u001b[22m\n\u001b[1m+++ b\u001b[22m\n\u001b[36m@@ -1 +1 @@\u001b[39m\n\u001b[31m-a\u001b[39m\n\u001b[32m+b\u001b[39m\n',
    );
  });

  it('diffs a large file with one change to one hunk', () => {
    const before = lines(20_000);
    const after = before.replace('\n10000\n', '\nten thousand\n');
    const diff = unifiedDiff(before, after, LABELS, PLAIN);
    expect(diff.split('\n').filter((line) => line.startsWith('@@'))).toEqual(['@@ -9997,7 +9997,7 @@']);
    expect(diff).toContain('-10000\n+ten thousand\n');
  });

  it('prints what GNU diff -u prints', () => {
    const folder = mkdtempSync(join(tmpdir(), 'memdir-diff-'));
    try {
      const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
      // A fixed walk of edits: replaced, inserted and deleted lines, a last line without newline.
      const before = Array.from({ length: 60 }, (_, i) => `${words[i % 5]} ${i}`).join('\n');
      const after = before
        .split('\n')
        .flatMap((line, i) =>
          i % 13 === 0 ? [] : i % 7 === 0 ? [line, `new ${i}`] : i % 11 === 0 ? [`${line}!`] : [line],
        )
        .join('\n')
        .concat('\n');
      writeFileSync(join(folder, 'a'), before);
      writeFileSync(join(folder, 'b'), after);
      const gnu = spawnSync('diff', ['-u', '--label', 'a', '--label', 'b', 'a', 'b'], {
        cwd: folder,
        encoding: 'utf8',
      });
      expect(gnu.status).toBe(1);
      expect(unifiedDiff(before, after, LABELS, PLAIN)).toBe(gnu.stdout);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('two texts with nothing in common: one hunk that replaces every line, in bounded work', () => {
    const before = Array.from({ length: 5_000 }, (_, i) => `old ${i}\n`).join('');
    const after = Array.from({ length: 5_000 }, (_, i) => `new ${i}\n`).join('');
    const diff = unifiedDiff(before, after, LABELS, PLAIN).split('\n');
    expect(diff.slice(0, 3)).toEqual(['--- a', '+++ b', '@@ -1,5000 +1,5000 @@']);
    expect(diff.filter((line) => line.startsWith('-old')).length).toBe(5_000);
    expect(diff.filter((line) => line.startsWith('+new')).length).toBe(5_000);
  });
});
