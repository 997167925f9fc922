import { isMemoryToolError, MemoryToolError } from '@memdir/core';
import { storeUnavailable } from '@memdir/core/driver';
import type { NotAFolder } from './dir.js';

export { errno } from './sys.js';

// What the model and the application may read about a filesystem failure: the kind of failure in
// plain words and the errno code, never the host path (which `err.message` carries).
const REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission was denied on the memory folder',
  EPERM: 'the operation was not permitted on the memory folder',
  EROFS: 'the memory folder is on a read-only filesystem',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  EIO: 'the disk reported an input/output error',
  ENAMETOOLONG: 'a file name is too long for the filesystem',
};

// Failures that trying again will not mend: the folder cannot be written at all.
const CANNOT_WRITE: Record<string, string> = {
  EROFS:
    'The memory store is read-only: its folder is on a read-only filesystem, so changes cannot be saved. Viewing still works.',
  EACCES:
    'The memory store is read-only: permission to write its folder was denied, so changes cannot be saved. Viewing still works.',
  EPERM:
    'The memory store is read-only: writing its folder is not permitted, so changes cannot be saved. Viewing still works.',
};

/**
 * Wraps a filesystem failure as a `BACKEND` error whose message names no host path. `change`: the
 * failure came from a command that changes something (a read-only folder is then said to be one).
 */
export function backendFailure(cause: unknown, change = false): MemoryToolError {
  if (isMemoryToolError(cause)) return cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (change && code && CANNOT_WRITE[code])
    return new MemoryToolError('BACKEND', CANNOT_WRITE[code], { cause });
  const reason = (code && REASONS[code]) ?? `the filesystem reported an error${code ? ` (${code})` : ''}`;
  return storeUnavailable(reason, cause);
}

/** Something other than a folder where memdir keeps its own (`.memdir`, `.memdir/tmp`). */
export function folderInTheWay(found: NotAFolder): MemoryToolError {
  if (found === 'missing')
    return storeUnavailable('a folder memdir keeps its own files in could not be created');
  const what = found === 'link' ? 'a symbolic link' : 'something other than a folder';
  return storeUnavailable(`${what} is where memdir keeps its own files`);
}
