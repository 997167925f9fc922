// The unified diff of `memdir diff`, in the format of `diff -u` (3 lines of context, `@@ -a,b +c,d @@`
// hunks), so it reads like git's and `patch` takes it. The hunks are jsdiff's (`diff`, the line diff
// most of npm uses); this file draws them, with colours on a terminal (colour.ts). Two texts too far apart for a
// bounded search (MAX_EDITS) are shown as one hunk that replaces every line: still a true diff.
import { structuredPatch } from 'diff';
import { paint, type Style } from './colour.js';

/** The labels of the two sides, for the `---` and `+++` lines. */
export interface DiffLabels {
  readonly old: string;
  readonly new: string;
}

/** How the diff is drawn: with ANSI colours (for a terminal) or plain. */
export interface DiffStyle {
  readonly colour: boolean;
}

const CONTEXT = 3;

function range(start: number, count: number): string {
  // diff -u: an empty side is shown at the line before it.
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

/**
 * The unified diff from `before` to `after`, or '' when they are equal. Lines end with `\n`; a text
 * whose last line has no newline gets diff's `\ No newline at end of file` after it.
 */
export function unifiedDiff(before: string, after: string, labels: DiffLabels, style: DiffStyle): string {
  if (before === after) return '';
  const styled = (colour: Style, text: string) => (style.colour ? paint(colour, text) : text);
  const out: string[] = [styled('bold', `--- ${labels.old}`), styled('bold', `+++ ${labels.new}`)];
  for (const hunk of hunksOf(before, after)) {
    out.push(
      styled('cyan', `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`),
    );
    for (const line of hunk.lines) {
      out.push(line[0] === '-' ? styled('red', line) : line[0] === '+' ? styled('green', line) : line);
    }
  }
  return `${out.join('\n')}\n`;
}

/** Edits beyond which the search stops: its work is bounded by (old + new lines) x this. */
const MAX_EDITS = 2_000;

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

function hunksOf(before: string, after: string): Hunk[] {
  const patch = structuredPatch('', '', before, after, '', '', {
    context: CONTEXT,
    maxEditLength: MAX_EDITS,
  });
  if (patch !== undefined) return patch.hunks;
  // Too far apart: every old line out, every new line in.
  const side = (text: string, sign: string) => {
    if (text === '') return [];
    const lines = text.split('\n');
    const ended = lines[lines.length - 1] === '';
    if (ended) lines.pop();
    const signed = lines.map((line) => `${sign}${line}`);
    if (!ended) signed.push('\\ No newline at end of file');
    return signed;
  };
  const removed = side(before, '-');
  const added = side(after, '+');
  const count = (lines: string[]) => lines.filter((line) => line[0] !== '\\').length;
  return [
    {
      oldStart: 1,
      oldLines: count(removed),
      newStart: 1,
      newLines: count(added),
      lines: [...removed, ...added],
    },
  ];
}
