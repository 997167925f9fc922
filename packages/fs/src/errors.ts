import { isMemoryToolError, MemoryToolError } from '@memdir/core';

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

/** Wraps a filesystem failure as a `BACKEND` error whose message names no host path. */
export function backendFailure(cause: unknown): MemoryToolError {
  if (isMemoryToolError(cause)) return cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const reason = (code && REASONS[code]) ?? `the filesystem reported an error${code ? ` (${code})` : ''}`;
  return new MemoryToolError('BACKEND', `The memory store is unavailable: ${reason}. Try again.`, { cause });
}

/** The errno code of a Node.js filesystem error, if any. */
export function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
