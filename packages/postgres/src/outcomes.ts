// Reading what the statements and functions of layout 2 answer (see layout.ts and edit-sql.ts).
import type {
  DriverEditOutcome,
  DriverListing,
  DriverListingEntry,
  DriverPath,
  DriverRecord,
} from '@memdir/core';
import {
  backendFailure,
  refuseAlreadyExists,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
  refuseQuota,
} from '@memdir/core/driver';
import type { Row } from './backend.js';
import { recordOf } from './records.js';

/** An answer memdir does not know: a layout it did not make, or a bug. */
function unknownAnswer(): Error {
  return backendFailure({ detail: 'PostgreSQL gave an answer memdir does not know', reason: 'unexpected' });
}

/** `qb{total}/{max}` or `qf{count}/{max}`: the breach a quota answer stands for. */
function breachOf(answer: string) {
  const [value, max] = answer.slice(1).split('/').map(Number) as [number, number];
  return answer[0] === 'b'
    ? { kind: 'bytes' as const, total: value, max }
    : { kind: 'files' as const, count: value, max };
}

/** What a write answers: its version, and the file's record (none from a call replayed from layout 3). */
export interface Written {
  readonly version: string;
  readonly record?: DriverRecord | undefined;
}

/** `write_v4`'s answer: the new version and the file's record, or the refusal it stands for. */
export function writeOutcome(path: DriverPath, outcome: string | null | undefined): Written {
  if (outcome?.startsWith('v')) {
    const tab = outcome.indexOf('\t');
    if (tab === -1) return { version: outcome.slice(1) };
    return { version: outcome.slice(1, tab), record: recordOf(outcome.slice(tab + 1)) };
  }
  if (outcome === 'c') throw refuseConflict(path);
  if (outcome?.startsWith('p')) throw refusePathConflict(outcome.slice(1));
  if (outcome?.startsWith('q')) throw refuseQuota(path, breachOf(outcome.slice(1)));
  throw unknownAnswer();
}

/** `move_v2`'s answer: done, or the refusal it stands for. */
export function moveOutcome(from: DriverPath, to: DriverPath, outcome: string | null | undefined): void {
  if (outcome === 't') return;
  if (outcome === 'n') throw refuseNotFound(from);
  if (outcome === 'e') throw refuseAlreadyExists(to);
  if (outcome?.startsWith('p')) throw refusePathConflict(outcome.slice(1));
  throw unknownAnswer();
}

/** `edit_v2`'s row: outcome, its numbers as text, the snippet's bytes (decoded). */
export function editOutcome(row: Row | undefined): DriverEditOutcome {
  const [outcome, info, snippet] = row ?? [];
  switch (outcome) {
    case 'edited':
      return {
        outcome,
        firstLine: Number(info),
        lines: snippet === null || snippet === undefined ? [] : snippet.split('\n'),
      };
    case 'missing':
      return { outcome, kind: info === 'directory' ? 'directory' : null };
    case 'no-match':
      return { outcome };
    case 'multiple': {
      const [count, lines] = (info ?? '').split(':') as [string, string];
      return { outcome, count: Number(count), lines: lines.split(',').map(Number) };
    }
    case 'invalid-line':
      return { outcome, lines: Number(info) };
    case 'too-large':
      return { outcome, bytes: Number(info) };
    case 'quota':
      return { outcome, breach: breachOf(info ?? '') };
  }
  throw unknownAnswer();
}

/**
 * The describe statement's row: the file (`f`, content, version), or the directory (`d`, size,
 * count, and its entries as `{d|f}{size}\t{relative path}` lines).
 */
export function describeOutcome(
  row: Row,
): { kind: 'file'; content: string; version: string } | DriverListing {
  if (row[0] === 'f') return { kind: 'file', content: row[1]!, version: row[2]! };
  const entries: DriverListingEntry[] = [];
  for (const line of row[5]?.split('\n') ?? []) {
    const tab = line.indexOf('\t');
    entries.push({ path: line.slice(tab + 1), directory: line[0] === 'd', size: Number(line.slice(1, tab)) });
  }
  return { kind: 'directory', size: Number(row[3]), count: Number(row[4]), entries };
}
