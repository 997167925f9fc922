// `edit` on the driver's side: the edit script's arguments and replies, and the path taken when the
// script cannot be used for an edit (a needle with a lone surrogate, which has no UTF-8 form to
// match on, or text built to exhaust the script's budget): the edit is applied here by the kit's
// applyEdit, between a read and a compare-and-swap write (two round trips).
import type { DriverEdit, DriverEditOutcome, DriverQuota } from '@memdir/core';
import { applyEdit } from '@memdir/core/driver';
import { unexpectedReply } from './errors.js';

/** A lone surrogate: a string holding one has no UTF-8 form, so Redis would see U+FFFD instead. */
const LONE_SURROGATE = /\p{Cs}/u;

/** True when the edit script gives exactly `applyEdit`'s outcome for `edit`. */
export function editsOnServer(edit: DriverEdit): boolean {
  return edit.kind === 'str_replace'
    ? !LONE_SURROGATE.test(edit.oldStr) && !LONE_SURROGATE.test(edit.newStr)
    : !LONE_SURROGATE.test(edit.text);
}

/** The quota's two ARGV fields ('' for no limit). */
export function quotaArgs(quota: DriverQuota | undefined): [string, string] {
  return [
    quota?.maxBytes === undefined ? '' : String(quota.maxBytes),
    quota?.maxFiles === undefined ? '' : String(quota.maxFiles),
  ];
}

/** ARGV 2 to 4 of the edit script: the kind and its two operands. */
export function editArgs(edit: DriverEdit): [string, string, string] {
  return edit.kind === 'str_replace'
    ? ['s', edit.oldStr, edit.newStr]
    : ['i', String(edit.line), edit.text];
}

/** The outcome an edit script's reply stands for, or 'slow' (apply it here), or a refusal to map. */
export function editOutcome(edit: DriverEdit, reply: unknown[]): DriverEditOutcome | 'slow' | 'late' {
  if (reply[0] === 'ok') {
    const snippet = reply[2];
    return {
      outcome: 'edited',
      firstLine: Number(reply[1]),
      lines: edit.kind === 'insert' || typeof snippet !== 'string' ? [] : snippet.split('\n'),
    };
  }
  switch (reply[1]) {
    case 'MISSING':
      return { outcome: 'missing', kind: reply[2] === 'directory' ? 'directory' : null };
    case 'NO_MATCH':
      return { outcome: 'no-match' };
    case 'MULTIPLE':
      return { outcome: 'multiple', count: Number(reply[2]), lines: reply.slice(3).map(Number) };
    case 'INVALID_LINE':
      return { outcome: 'invalid-line', lines: Number(reply[2]) };
    case 'TOO_LARGE':
      return { outcome: 'too-large', bytes: Number(reply[2]) };
    case 'QUOTA':
      return { outcome: 'quota', breach: quotaBreach(reply.slice(2)) };
    case 'SLOW':
      return 'slow';
    case 'LATE':
      return 'late';
    default:
      throw unexpectedReply(reply[1]);
  }
}

/** The breach of a QUOTA reply's fields: kind, then the total (or count), then the limit. */
export function quotaBreach([kind, n, max]: unknown[]) {
  return kind === 'files'
    ? { kind: 'files' as const, count: Number(n), max: Number(max) }
    : { kind: 'bytes' as const, total: Number(n), max: Number(max) };
}

/**
 * The edit applied to `content` here, as the script would: the outcome, the new content when it
 * was edited, and the receipt the write records (what a replay of the edit answers).
 */
export function editHere(
  content: string,
  edit: DriverEdit,
  maxFileBytes: number,
): { outcome: DriverEditOutcome; content: string | null; receipt: string } {
  const applied = applyEdit(content, edit, maxFileBytes);
  const { outcome } = applied;
  const receipt =
    outcome.outcome === 'edited' ? `#${outcome.firstLine}\n${outcome.lines.join('\n')}` : '';
  return { outcome, content: applied.content, receipt };
}

/** The outcome recorded by a write of {@link editHere}, when a replay of that write answers. */
export function receiptOutcome(edit: DriverEdit, receipt: string): DriverEditOutcome {
  const newline = receipt.indexOf('\n');
  return editOutcome(edit, ['ok', receipt.slice(1, newline), receipt.slice(newline + 1)]) as DriverEditOutcome;
}
