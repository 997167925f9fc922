// `str_replace` and `insert` under the lock: read the file, apply the edit, judge the quota and write
// the result, all in one locked step, so an edit never applies to content that changed and there is
// nothing to compare or retry. `edit` (the edit as data, the kit's `applyEdit`) and `update` (the
// engine's own function) share it.
import type { DriverEdit, DriverEditOutcome } from '@memdir/core';
import { applyEdit, judgeQuota } from '@memdir/core/driver';
import type { Generation } from './generation.js';
import { closeHoldsFile, type Found, find } from './lookup.js';
import { closeWalk } from './tree.js';
import type { ChangeCall } from './write.js';

/**
 * What an edit of some content comes to: the outcome, with the new content when it is `edited`
 * (a transform that refuses returns its outcome with `content: null`).
 */
type Transform = (content: string) => {
  readonly outcome: DriverEditOutcome;
  readonly content: string | null;
};

/**
 * Reads the file at `path`, transforms it and writes the result, under the lock the caller holds.
 * `missing` when no file is there (`kind: 'directory'` for a directory), the transform's own
 * refusal, or `quota` when the result would pass the namespace's quota; nothing is written then.
 */
export async function editLocked(
  generation: Generation,
  path: string,
  transform: Transform,
  call: ChangeCall,
): Promise<DriverEditOutcome> {
  if (path === '') return { outcome: 'missing', kind: 'directory' };
  // Opened now, so creating the temporary file overlaps reading the old content.
  const temp = generation.newTemp();
  let failed = true;
  let found: Found = null;
  try {
    found = await find(generation.memories!, path, call.touch);
    if (found === null) return { outcome: 'missing', kind: null };
    if (found.kind === 'folder') {
      return { outcome: 'missing', kind: (await closeHoldsFile(found.folder)) ? 'directory' : null };
    }
    const applied = transform(found.text.content);
    if (applied.content === null) return applied.outcome;
    const data = Buffer.from(applied.content, 'utf8');
    const totals = await generation.totals!.current(generation.memories!, call.log);
    const added = data.length - found.text.bytes;
    const breach = judgeQuota(call.quota, {
      bytes: totals.bytes,
      files: totals.files,
      addedBytes: added,
      newFile: false,
    });
    if (breach) return { outcome: 'quota', breach };
    const parent = found.walked.parent!;
    await generation.totals!.counted(
      totals,
      { bytes: added, files: 0 },
      async () => {
        await temp.write(data);
        call.history?.before([{ path, operation: 'modified', content: applied.content!, file: temp.stat }]);
        // Into the folder the file was read from, through its handle: never through a link.
        await temp.commit(parent.at(path.split('/').at(-1)!));
        call.history?.happened();
      },
      call.log,
    );
    failed = false;
    return applied.outcome;
  } finally {
    if (failed) await temp.discard();
    if (found) closeWalk(found.walked);
  }
}

/** {@link editLocked} with the edit as data, by the reference semantics (SPEC 4.3, 4.4). */
export function applyEditLocked(
  generation: Generation,
  path: string,
  edit: DriverEdit,
  maxFileBytes: number,
  call: ChangeCall,
): Promise<DriverEditOutcome> {
  return editLocked(generation, path, (content) => applyEdit(content, edit, maxFileBytes), call);
}
