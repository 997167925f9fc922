// A file's version is the hash of its content: the same bytes are the same version in every process,
// with nothing to store beside the file.
import { createHash } from 'node:crypto';
import type { DriverFile } from '@memdir/core';

export function contentVersion(content: string): string {
  return createHash('sha256').update(content).digest('base64url');
}

/** `content` with its version, hashed only if someone reads it (compare-and-swap does; views do not). */
export function versioned(content: string): DriverFile {
  let version: string | undefined;
  return {
    kind: 'file',
    content,
    get version() {
      version ??= contentVersion(content);
      return version;
    },
  };
}
