// What the model and the application may read about a filesystem failure: the kind of failure in
// plain words and the errno code, never the host path (which `err.message` carries, kept on
// `cause`), with the `reason` applications and the CLI branch on. Every failure a change raises
// comes before anything of it is visible (the commit is its last step), so none is `unknown`.
import { isMemoryToolError, MemoryToolError } from '@memdir/core';
import { backendFailure } from '@memdir/core/driver';
import type { NotAFolder } from './dir.js';

export { errno } from './sys.js';

// Failures that may pass (space freed, files closed): trying again can help.
const PASSING: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  EIO: 'the disk reported an input/output error',
  ENAMETOOLONG: 'a file name is too long for the filesystem',
};

// Failures that trying again will not mend: the folder's permissions or mount say no.
const NOT_PERMITTED: Record<string, string> = {
  EACCES: 'permission was denied on the memory folder',
  EPERM: 'the operation was not permitted on the memory folder',
  EROFS: 'the memory folder is on a read-only filesystem',
};

// The same, said of a change: the store can still be read.
const CANNOT_WRITE: Record<string, string> = {
  EROFS:
    'The memory store is read-only: its folder is on a read-only filesystem, so changes cannot be saved. Viewing still works.',
  EACCES:
    'The memory store is read-only: permission to write its folder was denied, so changes cannot be saved. Viewing still works.',
  EPERM:
    'The memory store is read-only: writing its folder is not permitted, so changes cannot be saved. Viewing still works.',
};

/**
 * A filesystem failure as a `BACKEND` error whose message names no host path. `change`: it came
 * from a command that changes something (a folder that cannot be written is then said to be
 * read-only). Refusals and other memdir errors pass as they are.
 */
export function filesystemFailure(cause: unknown, change = false): MemoryToolError {
  if (isMemoryToolError(cause)) return cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) {
    return backendFailure({
      detail: 'the filesystem store failed unexpectedly',
      reason: 'unexpected',
      cause,
    });
  }
  if (change && CANNOT_WRITE[code]) {
    return new MemoryToolError('BACKEND', CANNOT_WRITE[code], {
      cause,
      reason: 'misconfigured',
      outcome: 'not-applied',
    });
  }
  if (NOT_PERMITTED[code])
    return backendFailure({ detail: NOT_PERMITTED[code], reason: 'misconfigured', cause });
  return backendFailure({
    detail: PASSING[code] ?? `the filesystem reported an error (${code})`,
    reason: 'unavailable',
    cause,
  });
}

/** The root folder cannot be opened or made: the application's configuration to fix. */
export function misconfiguredRoot(cause: unknown): MemoryToolError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const detail =
    code === 'ENOTDIR'
      ? 'the path of the memory folder runs through a file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission to open the memory folder was denied'
        : code === 'ELOOP'
          ? 'the path of the memory folder has too many symbolic links'
          : `the memory folder cannot be opened (${code ?? 'unknown error'})`;
  return backendFailure({ detail, reason: 'misconfigured', cause });
}

/** Something other than a folder where memdir keeps its own (`.memdir`, `.memdir/tmp`). */
export function folderInTheWay(found: NotAFolder): MemoryToolError {
  if (found === 'missing') {
    return backendFailure({ detail: 'a folder memdir keeps its own files in could not be created' });
  }
  const what = found === 'link' ? 'a symbolic link' : 'something other than a folder';
  return backendFailure({ detail: `${what} is where memdir keeps its own files`, reason: 'misconfigured' });
}

/** A call on a driver whose `close()` was called. */
export function closedFailure(): MemoryToolError {
  return new MemoryToolError('BACKEND', 'The memory store is closed.', {
    reason: 'closed',
    outcome: 'not-applied',
  });
}
