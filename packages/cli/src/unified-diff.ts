// The unified diff of `memdir diff`: Myers' O(ND) line diff, printed in the format of `diff -u`
// (3 lines of context, `@@ -a,b +c,d @@` hunks), so it reads like git's and `patch` takes it.

/** One line of an edit script: kept, removed from the old text, or added in the new one. */
interface Edit {
  readonly kind: ' ' | '-' | '+';
  readonly line: string;
}

/** Marks a last line without its newline, so it differs from the same line with one. */
const NO_NEWLINE = '\u0000no-newline';

/** Lines of `text`, each without its newline; a last line that had none carries {@link NO_NEWLINE}. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += NO_NEWLINE;
  return lines;
}

/** The shortest edit script from `a` to `b` (Myers 1986), as kept, removed and added lines. */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const frontier = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(frontier.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && frontier[offset + k - 1]! < frontier[offset + k + 1]!)
          ? frontier[offset + k + 1]!
          : frontier[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      frontier[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Walk back from the end through the saved frontiers.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = d === 0 ? 0 : v[offset + previousK]!;
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      edits.push({ kind: ' ', line: a[--x]! });
      y--;
    }
    if (d === 0) break;
    if (down) edits.push({ kind: '+', line: b[--y]! });
    else edits.push({ kind: '-', line: a[--x]! });
  }
  while (x > 0) edits.push({ kind: ' ', line: a[--x]! });
  return edits.reverse();
}

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
const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const CYAN = '\u001b[36m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

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
  const a = linesOf(before);
  const b = linesOf(after);
  const edits = editScript(a, b);
  const paint = (colour: string, text: string) => (style.colour ? `${colour}${text}${RESET}` : text);
  const out: string[] = [paint(BOLD, `--- ${labels.old}`), paint(BOLD, `+++ ${labels.new}`)];
  // Old and new line numbers (0-based) before each edit.
  const positions: Array<{ ai: number; bi: number }> = [];
  let ai = 0;
  let bi = 0;
  for (const edit of edits) {
    positions.push({ ai, bi });
    if (edit.kind !== '+') ai++;
    if (edit.kind !== '-') bi++;
  }
  const changed = edits.map((edit) => edit.kind !== ' ');
  let index = 0;
  while (index < edits.length) {
    const first = changed.indexOf(true, index);
    if (first === -1) break;
    // A hunk: from CONTEXT lines before its first change to CONTEXT lines after its last, joining
    // changes less than 2 * CONTEXT kept lines apart.
    const start = Math.max(index, first - CONTEXT);
    let end = first;
    for (let next = first; next < edits.length; next++) {
      if (changed[next]) end = next;
      else if (next - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(edits.length, end + CONTEXT + 1);
    const body = edits.slice(start, stop);
    const oldCount = body.filter((edit) => edit.kind !== '+').length;
    const newCount = body.filter((edit) => edit.kind !== '-').length;
    const { ai: oldStart, bi: newStart } = positions[start]!;
    out.push(paint(CYAN, `@@ -${range(oldStart + 1, oldCount)} +${range(newStart + 1, newCount)} @@`));
    for (const edit of body) {
      const last = edit.line.endsWith(NO_NEWLINE);
      const text = `${edit.kind}${last ? edit.line.slice(0, -NO_NEWLINE.length) : edit.line}`;
      out.push(edit.kind === '-' ? paint(RED, text) : edit.kind === '+' ? paint(GREEN, text) : text);
      if (last) out.push('\\ No newline at end of file');
    }
    index = stop;
  }
  return `${out.join('\n')}\n`;
}
