// The reference semantics of `str_replace` and `insert` on a file's content (SPEC 4.3 and 4.4), as
// data in and data out: what the engine runs when a driver has no `edit`, what a driver without a
// server-side language runs inside its `update`, and what a server-side `edit` (Lua, PL/pgSQL) must
// give byte for byte.
import { findOccurrences, linesOfOffsets } from '../engine/match.js';
import { MAX_MATCH_LINES } from '../messages.js';
import { utf8Length } from '../path.js';
import type { DriverEdit, DriverEditOutcome } from './contract.js';

/** An edit applied to some content: its outcome, and the new content when it was `edited`. */
export interface AppliedEdit {
  readonly outcome: DriverEditOutcome;
  /** The content after the edit; null unless `outcome` is `edited`. */
  readonly content: string | null;
}

const NOT_EDITED = (outcome: DriverEditOutcome): AppliedEdit => ({ outcome, content: null });

/**
 * Applies `edit` to `content`, with every check of SPEC 4.3/4.4 in its order: the edit's own
 * (`no-match`, `multiple`, `invalid-line`), then `too-large` against `maxFileBytes`. Quotas are the
 * driver's to judge on the result.
 */
export function applyEdit(content: string, edit: DriverEdit, maxFileBytes: number): AppliedEdit {
  let updated: string;
  let firstLine = 0;
  let lines: string[] = [];
  if (edit.kind === 'str_replace') {
    const found = findOccurrences(content, edit.oldStr, MAX_MATCH_LINES);
    if (found.count === 0) return NOT_EDITED({ outcome: 'no-match' });
    if (found.count > 1) {
      return NOT_EDITED({
        outcome: 'multiple',
        count: found.count,
        lines: linesOfOffsets(content, found.offsets),
      });
    }
    const at = found.offsets[0]!;
    updated = content.slice(0, at) + edit.newStr + content.slice(at + edit.oldStr.length);
    // The snippet: lines max(0, k-2) to min(count, k+3) of the new content, k the start line.
    const k = linesOfOffsets(content, [at])[0]! - 1;
    const all = updated.split('\n');
    const from = Math.max(0, k - 2);
    lines = all.slice(from, Math.min(all.length, k + 3));
    firstLine = from + 1;
  } else {
    const split = content.split('\n');
    if (edit.line < 0 || edit.line > split.length) {
      return NOT_EDITED({ outcome: 'invalid-line', lines: split.length });
    }
    split.splice(edit.line, 0, edit.text);
    updated = split.join('\n');
  }
  const bytes = utf8Length(updated);
  if (bytes > maxFileBytes) return NOT_EDITED({ outcome: 'too-large', bytes });
  return { outcome: { outcome: 'edited', firstLine, lines }, content: updated };
}
