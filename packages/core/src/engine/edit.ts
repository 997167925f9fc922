// `str_replace` and `insert` (SPEC sections 4.3, 4.4 and 6): the edit never applies to content that
// changed under it. With the driver's `edit` the edit goes to the backend as data and is applied
// there in one atomic step (one round trip); with its `update` the read, edit and write are one
// atomic call; otherwise the engine reads, writes with the version it read, and starts over on fresh
// content when that compare-and-swap loses to another writer, until the command's deadline.
import { applyEdit } from '../driver/apply-edit.js';
import type { DriverEdit, DriverEditOutcome } from '../driver/contract.js';
import { sleep } from '../driver/deadline.js';
import { isMemoryToolError, MemoryToolError } from '../errors.js';
import {
  edited,
  inserted,
  invalidInsertLine,
  keptChanging,
  multipleMatches,
  noMatch,
  notAFile,
  numberLine,
  pathNotFoundPleaseProvide,
  tooLarge,
} from '../messages.js';
import type { CommandPath } from './engine.js';
import { type Operation, quotaError } from './operation.js';

const MAX_BACKOFF_MS = 25;

/** The text the model reads for an edit's outcome, or the error it reads (thrown). */
function render(
  path: CommandPath,
  edit: DriverEdit,
  outcome: DriverEditOutcome,
  maxFileBytes: number,
): string {
  const { memory } = path;
  switch (outcome.outcome) {
    case 'edited':
      if (edit.kind === 'insert') return inserted(memory);
      return edited(
        outcome.lines.map((line, index) => numberLine(outcome.firstLine + index, line)).join('\n'),
      );
    case 'missing':
      throw outcome.kind === 'directory'
        ? new MemoryToolError('NOT_A_FILE', notAFile(memory))
        : new MemoryToolError('NOT_FOUND', pathNotFoundPleaseProvide(memory));
    case 'no-match':
      throw new MemoryToolError('NO_MATCH', noMatch((edit as { oldStr: string }).oldStr, memory));
    case 'multiple':
      throw new MemoryToolError(
        'MULTIPLE_MATCHES',
        multipleMatches((edit as { oldStr: string }).oldStr, outcome.lines, outcome.count),
      );
    case 'invalid-line':
      throw new MemoryToolError(
        'INVALID_LINE',
        invalidInsertLine((edit as { line: number }).line, outcome.lines),
      );
    case 'too-large':
      throw new MemoryToolError('TOO_LARGE', tooLarge(memory, outcome.bytes, maxFileBytes));
    case 'quota':
      throw quotaError(memory, outcome.breach);
  }
}

/**
 * Edits the file at `path` and resolves to the model's text: `NOT_A_FILE` for a directory,
 * `NOT_FOUND` for nothing, the edit's own refusals, `TOO_LARGE` over `maxFileBytes`, `QUOTA_EXCEEDED`,
 * and `CONFLICT` when other writers win every compare-and-swap until the deadline.
 */
export async function editFile(operation: Operation, path: CommandPath, edit: DriverEdit): Promise<string> {
  const { memory, driver } = path;
  if (driver === '') throw new MemoryToolError('NOT_A_FILE', notAFile(memory));
  const { maxFileBytes } = operation.engine.options;
  const files = operation.engine.driver;

  if (files.edit) return render(path, edit, await operation.edit(driver, edit), maxFileBytes);

  // The edit runs here: its refusals are thrown from inside the driver's step, and stop it.
  let result = '';
  const transform = (content: string): string => {
    const applied = applyEdit(content, edit, maxFileBytes);
    result = render(path, edit, applied.outcome, maxFileBytes);
    return applied.content!;
  };

  if (files.update) {
    const kind = await operation.update(driver, transform);
    if (kind !== 'file') render(path, edit, { outcome: 'missing', kind }, maxFileBytes);
    return result;
  }

  for (let round = 0; ; round++) {
    const node = await operation.read(driver);
    if (node === null || node.kind === 'directory') {
      return render(path, edit, { outcome: 'missing', kind: node?.kind ?? null }, maxFileBytes);
    }
    const updated = transform(node.content);
    try {
      await operation.write(driver, updated, { version: node.version }, ['CONFLICT', 'PATH_CONFLICT']);
      return result;
    } catch (error) {
      // The file changed (or turned into something else) since it was read: start over on what is
      // there now, which may warrant another answer altogether.
      if (!isMemoryToolError(error) || (error.code !== 'CONFLICT' && error.code !== 'PATH_CONFLICT')) {
        throw error;
      }
      if (operation.trace) operation.trace.conflicts++;
      const left = operation.deadline - Date.now();
      if (left <= MAX_BACKOFF_MS) {
        throw new MemoryToolError('CONFLICT', keptChanging(memory), { cause: error });
      }
      await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
    }
  }
}
