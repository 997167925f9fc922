// The read-modify-write of `str_replace` and `insert` (SPEC section 6): the edit never applies to
// content that changed under it. With the driver's `update` the read, edit and write are one atomic
// call; otherwise the engine reads, writes with the version it read, and starts over on fresh content
// when that compare-and-swap loses to another writer.
import { isMemoryToolError, MemoryToolError } from '../errors.js';
import { keptChanging, notAFile, pathNotFoundPleaseProvide, tooLarge } from '../messages.js';
import { utf8Length } from '../path.js';
import type { CommandPath, Operation } from './context.js';

/** What an edit makes of a file's content: the new content and the text the model reads. */
export interface Edit {
  readonly updated: string;
  readonly result: string;
}

// Under heavy contention many writers retry at once, so the wait grows and is jittered; the budget
// is bounded in attempts and time so a command never spins forever.
const MAX_ATTEMPTS = 200;
const RETRY_BUDGET_MS = 15_000;
const MAX_BACKOFF_MS = 25;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Edits the file at `path`: `transform` computes the new content and the result from the current
 * content, or throws the error the model should read (`NO_MATCH`, `INVALID_LINE`...). Fails with
 * `NOT_A_FILE` for a directory, `NOT_FOUND` for nothing, `TOO_LARGE` over `maxFileBytes`, and
 * `CONFLICT` when other writers win every compare-and-swap within the budget.
 */
export async function editFile(
  operation: Operation,
  path: CommandPath,
  transform: (content: string) => Edit,
): Promise<string> {
  const { memory, driver } = path;
  if (driver === '') throw new MemoryToolError('NOT_A_FILE', notAFile(memory));
  const { maxFileBytes } = operation.engine.options;
  const apply = (content: string): Edit => {
    const change = transform(content);
    const bytes = utf8Length(change.updated);
    if (bytes > maxFileBytes) throw new MemoryToolError('TOO_LARGE', tooLarge(memory, bytes, maxFileBytes));
    return change;
  };
  const missing = (kind: 'directory' | null): MemoryToolError =>
    kind === 'directory'
      ? new MemoryToolError('NOT_A_FILE', notAFile(memory))
      : new MemoryToolError('NOT_FOUND', pathNotFoundPleaseProvide(memory));

  if (operation.engine.driver.update) {
    let result = '';
    const kind = await operation.update(driver, (content) => {
      const change = apply(content);
      result = change.result;
      return change.updated;
    });
    if (kind !== 'file') throw missing(kind);
    return result;
  }

  const deadline = Date.now() + RETRY_BUDGET_MS;
  for (let round = 0; ; round++) {
    const node = await operation.read(driver);
    if (node === null || node.kind === 'directory') throw missing(node?.kind ?? null);
    const change = apply(node.content);
    try {
      await operation.write(driver, change.updated, { version: node.version }, ['CONFLICT', 'PATH_CONFLICT']);
      return change.result;
    } catch (error) {
      // The file changed (or turned into something else) since it was read: start over on what is
      // there now, which may warrant another answer altogether.
      if (!isMemoryToolError(error) || (error.code !== 'CONFLICT' && error.code !== 'PATH_CONFLICT')) {
        throw error;
      }
      if (round + 1 >= MAX_ATTEMPTS || Date.now() >= deadline) {
        throw new MemoryToolError('CONFLICT', keptChanging(memory), { cause: error });
      }
      await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
    }
  }
}
