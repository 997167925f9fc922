// `write` under the lock: the new content goes to a temporary file (written and fsynced while the
// path is checked), then one rename puts it in place; the quota is judged on the namespace's totals
// in the same locked step, and folders are made only once the content is safely on disk.
import type { DriverQuota, WriteExpectation } from '@memdir/core';
import {
  type DriverLog,
  judgeQuota,
  refuseConflict,
  refuseLink,
  refusePathConflict,
  refuseQuota,
  refuseTooLarge,
  sha256Hex,
} from '@memdir/core/driver';
import { type Dir, entryAt, openEntry, openFolder } from './dir.js';
import type { Generation } from './generation.js';
import type { HistoryHook } from './history/recorder.js';
import { closeHoldsFile, prefix, stopRefusal } from './lookup.js';
import { closeNow, errno, FOLDER_MODE, mkdir, rmdir } from './sys.js';
import { closeWalk, type FileText, FOLDER, readText, removeEmptyFolders, walk } from './tree.js';
import { contentVersion } from './version.js';

/** What a change under the lock knows of its call. */
export interface ChangeCall {
  readonly quota: DriverQuota | undefined;
  readonly log: DriverLog;
  /** Record reads of the file changed, for expiry (`touch`: `edit` and `update`). */
  readonly touch?: boolean | undefined;
  /** Told about the visible step: the records, and the history when it is on. */
  readonly history?: HistoryHook | undefined;
}

/** What a write expects of the file it replaces: the contract's, or a restore's content hash. */
export type Expectation = WriteExpectation | { readonly sha256: string | null };

/** A folder this command made, to remove again if the command fails (a failed write leaves no folder). */
export interface Made {
  readonly parent: Dir;
  readonly name: string;
  readonly folder: Dir;
}

/**
 * Makes (or opens, when another process made it meanwhile) the folders of `segments` from `depth`
 * up to the last name's parent, inside `from`. Returns the parent, and pushes what it made on `made`.
 */
export async function makeFolders(
  from: Dir,
  segments: readonly string[],
  depth: number,
  made: Made[],
): Promise<Dir> {
  let current = from;
  for (let index = depth; index < segments.length - 1; index++) {
    const name = segments[index]!;
    let fresh = true;
    await mkdir(current.at(name), FOLDER_MODE).catch((error) => {
      if (errno(error) !== 'EEXIST') throw error;
      fresh = false;
    });
    const opened = await openFolder(current, name);
    if (opened === 'link') throw refuseLink(prefix(segments, index + 1));
    if (typeof opened === 'string') throw refusePathConflict(prefix(segments, index + 1));
    made.push({ parent: current, name: fresh ? name : '', folder: opened });
    current = opened;
  }
  return current;
}

/** Removes the folders a failed command made, deepest first; closes their handles either way. */
export async function unmake(made: Made[], failed: boolean): Promise<void> {
  for (const entry of [...made].reverse()) {
    if (failed && entry.name !== '') await rmdir(entry.parent.at(entry.name)).catch(() => {});
    entry.folder.close();
  }
}

/** The current content of file `name` in `parent`, read through its handle; null when it is none. */
async function readIn(parent: Dir, name: string): Promise<FileText | null> {
  const entry = await openEntry(parent, name);
  if (typeof entry !== 'number') return null;
  try {
    const text = await readText(entry);
    return text === FOLDER ? null : text;
  } finally {
    closeNow(entry);
  }
}

/**
 * Writes `content` at `path`, with the refusals of the driver contract in its order: PATH_CONFLICT
 * (an ancestor is a file, then `path` is a directory), CONFLICT (`expect`), QUOTA_EXCEEDED.
 */
export async function writeLocked(
  generation: Generation,
  path: string,
  content: string,
  expect: Expectation | undefined,
  call: ChangeCall,
  /** A restore's `maxFileBytes`: content over it is TOO_LARGE (after CONFLICT, before the quota). */
  maxBytes?: number,
): Promise<void> {
  const segments = path.split('/');
  const name = segments.at(-1)!;
  const data = Buffer.from(content, 'utf8');
  // The new content is written and fsynced while the path is checked: the two overlap.
  const temp = generation.newTemp();
  const written = temp.write(data);
  written.catch(() => {});
  const walked = await walk(generation.memories!, segments).catch(async (error) => {
    await temp.discard();
    throw error;
  });
  const made: Made[] = [];
  let failed = true;
  try {
    const refusal = stopRefusal(walked, segments);
    if (refusal) throw refusal;
    let replaceEmptyFolder = false;
    /** The size of the file this write replaces; undefined when it creates one. */
    let replaced: number | undefined;
    if (walked.parent) {
      const entry = await entryAt(walked.parent, name);
      const kind = entry?.kind ?? null;
      if (kind === 'link') throw refuseLink(path);
      if (kind === 'other') throw refusePathConflict(path);
      if (kind === 'directory') {
        const inner = await openFolder(walked.parent, name);
        if (typeof inner !== 'string' && (await closeHoldsFile(inner))) throw refusePathConflict(path);
        replaceEmptyFolder = true;
      }
      if (kind === 'file') replaced = entry!.size;
      if (expect && 'absent' in expect && kind === 'file') throw refuseConflict(path);
      if (expect && 'version' in expect) {
        // Read in the folder the commit goes to, through its handle.
        const current = kind === 'file' ? await readIn(walked.parent, name) : null;
        if (current === null || contentVersion(current.content) !== expect.version) {
          throw refuseConflict(path);
        }
        replaced = current.bytes;
      }
      if (expect && 'sha256' in expect) {
        const current = kind === 'file' ? await readIn(walked.parent, name) : null;
        const holds =
          expect.sha256 === null
            ? kind !== 'file'
            : current !== null && sha256Hex(current.content) === expect.sha256;
        if (!holds) throw refuseConflict(path);
      }
    } else if (expect && ('version' in expect || ('sha256' in expect && expect.sha256 !== null))) {
      throw refuseConflict(path);
    }
    if (maxBytes !== undefined && data.length > maxBytes) throw refuseTooLarge(path);
    const totals = await generation.totals!.current(generation.memories!, call.log);
    const change = { bytes: data.length - (replaced ?? 0), files: replaced === undefined ? 1 : 0 };
    const breach = judgeQuota(call.quota, {
      bytes: totals.bytes,
      files: totals.files,
      addedBytes: change.bytes,
      newFile: change.files === 1,
    });
    if (breach) throw refuseQuota(path, breach);
    // From here until the rename the totals say "changing": a crash in between is recomputed.
    await generation.totals!.counted(
      totals,
      change,
      async () => {
        // Only once the content is safely on disk are folders made: a full disk leaves none behind.
        await written;
        const parent =
          walked.parent ?? (await makeFolders(walked.folders.at(-1)!, segments, walked.stop!.depth, made));
        if (replaceEmptyFolder && !(await removeEmptyFolders(parent, name))) throw refusePathConflict(path);
        call.history?.before([
          { path, operation: replaced === undefined ? 'created' : 'modified', content, file: temp.stat },
        ]);
        await temp.commit(parent.at(name)).catch((error) => {
          if (errno(error) === 'EISDIR' || errno(error) === 'ENOTEMPTY') throw refusePathConflict(path);
          throw error;
        });
        call.history?.happened();
      },
      call.log,
    );
    failed = false;
  } finally {
    if (failed) await temp.discard();
    await unmake(made, failed);
    closeWalk(walked);
  }
}
