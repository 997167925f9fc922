// A unified diff between two versions' contents (jsdiff's `structuredPatch`, 3 lines of context),
// as HTML: every line escaped and its hidden characters shown, additions and removals marked by
// class and by their `+`/`-`, so the diff reads without colour too.
import { structuredPatch } from 'diff';
import { type Html, html, shown } from './html.js';

/** The unified diff of `before` and `after` as a `<pre tabindex="0">`, or a sentence when they are the same. */
export function unifiedDiff(before: string, after: string, beforeName: string, afterName: string): Html {
  const patch = structuredPatch(beforeName, afterName, before, after, '', '', { context: 3 });
  if (patch.hunks.length === 0) return html`<p class="notice">The two versions have the same content.</p>`;
  const lines: Html[] = [
    html`<span class="remove">--- ${shown(beforeName)}</span>\n`,
    html`<span class="add">+++ ${shown(afterName)}</span>\n`,
  ];
  for (const hunk of patch.hunks) {
    lines.push(
      html`<span class="hunk">@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@</span>\n`,
    );
    for (const line of hunk.lines) {
      const kind = line[0] === '+' ? 'add' : line[0] === '-' ? 'remove' : 'same';
      lines.push(html`<span class="${kind}">${shown(line)}</span>\n`);
    }
  }
  return html`<pre class="diff" tabindex="0">${lines}</pre>`;
}

/** One row of a side-by-side diff: a line of each side (or none), with its number. */
interface SplitRow {
  readonly kind: 'same' | 'change' | 'hunk';
  readonly before?: { n: number; line: string } | undefined;
  readonly after?: { n: number; line: string } | undefined;
}

/** The rows of the side-by-side view: removals beside the additions that replace them. */
function splitRows(before: string, after: string): SplitRow[] {
  const patch = structuredPatch('', '', before, after, '', '', { context: 3 });
  const rows: SplitRow[] = [];
  for (const hunk of patch.hunks) {
    rows.push({ kind: 'hunk' });
    let oldN = hunk.oldStart;
    let newN = hunk.newStart;
    let removed: Array<{ n: number; line: string }> = [];
    let added: Array<{ n: number; line: string }> = [];
    const flush = () => {
      for (let index = 0; index < Math.max(removed.length, added.length); index++) {
        rows.push({ kind: 'change', before: removed[index], after: added[index] });
      }
      removed = [];
      added = [];
    };
    for (const line of hunk.lines) {
      if (line[0] === '-') removed.push({ n: oldN++, line: line.slice(1) });
      else if (line[0] === '+') added.push({ n: newN++, line: line.slice(1) });
      else if (line[0] === ' ') {
        flush();
        rows.push({
          kind: 'same',
          before: { n: oldN++, line: line.slice(1) },
          after: { n: newN++, line: line.slice(1) },
        });
      }
    }
    flush();
  }
  return rows;
}

/** The same diff side by side: the old version on the left, the new on the right. */
export function sideBySideDiff(before: string, after: string): Html {
  const rows = splitRows(before, after);
  if (rows.length === 0) return html`<p class="notice">The two versions have the same content.</p>`;
  const cell = (side: { n: number; line: string } | undefined, kind: string) =>
    side === undefined
      ? html`<td class="n"></td><td></td>`
      : html`<td class="n">${side.n}</td><td class="${kind}">${shown(side.line)}</td>`;
  const body = rows.map((row) =>
    row.kind === 'hunk'
      ? html`<tr><td class="n hunk" colspan="4">...</td></tr>`
      : html`<tr>${cell(row.before, row.kind === 'change' ? 'remove' : 'same')}${cell(row.after, row.kind === 'change' ? 'add' : 'same')}</tr>`,
  );
  return html`<div class="scroll" tabindex="0"><table class="lines diff split">
<thead><tr><th scope="col" colspan="2">Before</th><th scope="col" colspan="2">After</th></tr></thead>
<tbody>${body}</tbody></table></div>`;
}
