// `edit` on the driver's side: the edit script's arguments and replies, and what the driver needs
// when the script cannot apply an edit (text with a lone surrogate, which has no UTF-8 form, or
// text built to exhaust the script's budget): the script then sends the file, the kit's applyEdit
// runs here, and a compare-and-swap write records the outcome (two round trips).
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

/** ARGV 2 to 4 of the edit script: the kind and its two operands ('x': send the file instead). */
export function editArgs(edit: DriverEdit, onServer: boolean): [string, string, string] {
  if (!onServer) return ['x', '', ''];
  return edit.kind === 'str_replace' ? ['s', edit.oldStr, edit.newStr] : ['i', String(edit.line), edit.text];
}

/** The file as the edit script sends it when the edit is to be applied here. */
export interface FileToEdit {
  readonly version: string;
  readonly content: string;
}

/**
 * The outcome an edit script's reply stands for; or the file, to apply the edit here; or 'late'
 * (the fence had passed).
 */
export function editOutcome(edit: DriverEdit, reply: unknown[]): DriverEditOutcome | FileToEdit | 'late' {
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
      return { version: String(reply[2]), content: String(reply[3]) };
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
  const receipt = outcome.outcome === 'edited' ? `#${outcome.firstLine}\n${outcome.lines.join('\n')}` : '';
  return { outcome, content: applied.content, receipt };
}

/** The outcome recorded by a write of {@link editHere}, when a replay of that write answers. */
export function receiptOutcome(edit: DriverEdit, receipt: string): DriverEditOutcome {
  const newline = receipt.indexOf('\n');
  return editOutcome(edit, [
    'ok',
    receipt.slice(1, newline),
    receipt.slice(newline + 1),
  ]) as DriverEditOutcome;
}
