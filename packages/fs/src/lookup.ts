// Finding what is at a driver path, through folder handles one name at a time: a file with its
// content, an open folder, or nothing; and the refusal a walk that stopped short calls for.
import * as fs from 'node:fs';
import type { MemoryToolError } from '@memdir/core';
import { refuseLink, refusePathConflict } from '@memdir/core/driver';
import { type Dir, kindAt, openEntry, openFolder } from './dir.js';
import { closeNow } from './sys.js';
import { closeWalk, type FileText, FOLDER, holdsFile, readText, type Walk, walk } from './tree.js';

/** The driver path of the first `count` segments. */
export function prefix(segments: readonly string[], count: number): string {
  return segments.slice(0, count).join('/');
}

/** The refusal for a walk that stopped on a link or a non-folder: INVALID_PATH, or PATH_CONFLICT for a write. */
export function stopRefusal(walked: Walk, segments: readonly string[]): MemoryToolError | undefined {
  const stop = walked.stop;
  if (!stop) return undefined;
  const at = prefix(segments, stop.depth + 1);
  if (stop.reason === 'link') return refuseLink(at);
  if (stop.reason === 'missing') return undefined;
  return refusePathConflict(at);
}

/** What is at a driver path, found through handles: a file's content, an open folder, or nothing. */
export type Found =
  | { readonly kind: 'file'; readonly text: FileText; readonly walked: Walk }
  | { readonly kind: 'folder'; readonly folder: Dir; readonly walked: Walk }
  | null;

/**
 * Opens `path` below `root` one name at a time. INVALID_PATH for a link anywhere on it; null for
 * nothing there (or a file where a folder would have to be, or something that is not a file).
 * The caller closes what it gets (`walked`, `folder`).
 */
export async function find(root: Dir, path: string, touch = false): Promise<Found> {
  const segments = path.split('/');
  const walked = await walk(root, segments);
  const refusal = stopRefusal(walked, segments);
  if (walked.stop) {
    closeWalk(walked);
    if (refusal?.code === 'INVALID_PATH') throw refusal;
    return null;
  }
  const entry = await openEntry(walked.parent!, segments.at(-1)!).catch((error) => {
    closeWalk(walked);
    throw error;
  });
  if (typeof entry === 'string') {
    closeWalk(walked);
    if (entry === 'link') throw refuseLink(path);
    return null;
  }
  let text: FileText | typeof FOLDER | null;
  try {
    text = await readText(entry);
  } catch (error) {
    closeNow(entry);
    closeWalk(walked);
    throw error;
  }
  if (text === FOLDER)
    return { kind: 'folder', folder: walked.parent!.child(entry, segments.at(-1)!), walked };
  if (touch && text !== null) touchOpen(entry);
  closeNow(entry);
  if (text === null) {
    closeWalk(walked);
    return null;
  }
  return { kind: 'file', text, walked };
}

/**
 * Records a read of the open file for expiry (`touch`): its times are set to what they are, which
 * moves its change time (ctime) to now. The kernel's own access-time updates never move ctime, so
 * a read that does not touch does not count. Best effort: a file that cannot be touched is read all
 * the same.
 */
function touchOpen(fd: number): void {
  try {
    const info = fs.fstatSync(fd);
    fs.futimesSync(fd, info.atime, info.mtime);
  } catch {
    // Not ours to change (another owner): the read stands.
  }
}

/** Whether the open folder holds a file (a directory, SPEC section 3); closes it. */
export async function closeHoldsFile(folder: Dir): Promise<boolean> {
  try {
    return await holdsFile(folder);
  } finally {
    folder.close();
  }
}

/** What is at `path` below `root`, without reading a file: INVALID_PATH for a link on the way. */
export async function kindOfPath(root: Dir, path: string): Promise<'file' | 'directory' | null> {
  const segments = path.split('/');
  const walked = await walk(root, segments);
  try {
    const refusal = stopRefusal(walked, segments);
    if (walked.stop) {
      if (refusal?.code === 'INVALID_PATH') throw refusal;
      return null;
    }
    const name = segments.at(-1)!;
    const kind = await kindAt(walked.parent!, name);
    if (kind === 'link') throw refuseLink(path);
    if (kind === 'file') return 'file';
    if (kind !== 'directory') return null;
    const inner = await openFolder(walked.parent!, name);
    if (inner === 'link') throw refuseLink(path);
    if (typeof inner === 'string') return null;
    return (await closeHoldsFile(inner)) ? 'directory' : null;
  } finally {
    closeWalk(walked);
  }
}
