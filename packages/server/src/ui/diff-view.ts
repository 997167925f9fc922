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
