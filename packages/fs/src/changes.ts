// The change methods of the filesystem driver: write, edit, update, remove and move, each its
// locked step (write.ts, edit.ts, remove.ts, move.ts) run under the folder's lock (calls.ts).
import type {
  DriverChangeOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverPath,
  DriverRecord,
  DriverRemoveOptions,
  DriverWriteOptions,
} from '@memdir/core';
import { refuseConflict, refuseQuota } from '@memdir/core/driver';
import type { FolderCalls } from './calls.js';
import { applyEditLocked, editLocked } from './edit.js';
import { kindOfPath } from './lookup.js';
import { moveLocked } from './move.js';
import { driverRecord, resolve } from './records/files.js';
import { removeLocked } from './remove.js';
import { removeTree } from './tree.js';
import { versioned } from './version.js';
import { writeLocked } from './write.js';

const EDITED: DriverEditOutcome = { outcome: 'edited', firstLine: 0, lines: [] };

export function write(
  calls: FolderCalls,
  path: DriverPath,
  content: string,
  options: DriverWriteOptions,
): Promise<{ version: string; record?: DriverRecord }> {
  return calls.change('write', options, async (generation, call) => {
    await writeLocked(generation, path, content, options.expect, call);
    const stored = generation.records.get(path);
    // The version is hashed only if someone reads it (compare-and-swap does).
    const file = versioned(content);
    return Object.defineProperty(file, 'record', {
      value: stored && driverRecord(path, stored),
      enumerable: true,
    }) as typeof file & { record?: DriverRecord };
  });
}

/**
 * The edit as data, applied under the lock with the kit's `applyEdit` (the reference semantics):
 * one call, nothing to compare or retry, the quota judged in the same locked step.
 */
export function edit(
  calls: FolderCalls,
  path: DriverPath,
  edit: DriverEdit,
  options: DriverEditOptions,
): Promise<DriverEditOutcome> {
  return calls.change('edit', options, (generation, call) =>
    applyEditLocked(generation, path, edit, options.maxFileBytes, call),
  );
}

/**
 * The read-modify-write of an engine without `edit` (or a wrapper that hides it), in the same
 * locked step as `edit`. What `edit` throws is passed on as is (the contract), not taken for a
 * filesystem failure.
 */
export function update(
  calls: FolderCalls,
  path: DriverPath,
  edit: (content: string) => string,
  options: DriverChangeOptions,
): Promise<'file' | 'directory' | null> {
  let refused: { error: unknown } | undefined;
  const transform = (content: string) => {
    try {
      return { outcome: EDITED, content: edit(content) };
    } catch (error) {
      refused = { error };
      throw error;
    }
  };
  return calls
    .change('update', options, async (generation, call) => {
      const outcome = await editLocked(generation, path, transform, call);
      if (outcome.outcome === 'missing') return outcome.kind;
      if (outcome.outcome === 'quota') throw refuseQuota(path, outcome.breach);
      return 'file' as const;
    })
    .catch((error: unknown) => {
      throw refused ? refused.error : error;
    });
}

export function remove(calls: FolderCalls, path: DriverPath, options: DriverRemoveOptions): Promise<boolean> {
  const log = calls.backend.log;
  const { expect } = options;
  return calls.change(
    'remove',
    options,
    async (generation, call) => {
      if (expect) {
        // Checked in the removal's locked step: the file's record, checked against the file.
        const found = await resolve(generation, path, false);
        if (!found) {
          const kind = await kindOfPath(generation.memories!, path);
          if (kind === null) return { removed: false };
          throw refuseConflict(path);
        }
        const holds =
          (expect.fileId === undefined || expect.fileId === found.record.i) &&
          (expect.sha256 === undefined || expect.sha256 === found.record.h);
        if (!holds) throw refuseConflict(path);
      }
      return removeLocked(generation, path, call);
    },
    async (generation, removal) => {
      // The folder left every listing with the rename; its files go now, outside the lock. The
      // delete is done either way: trash that stays is swept by the next process that writes.
      if (removal.trash) {
        await removeTree(generation.tmp!, removal.trash).catch(() => {
          log.warn('trash could not be cleared', {});
        });
      }
      return removal.removed;
    },
  );
}

export function move(
  calls: FolderCalls,
  from: DriverPath,
  to: DriverPath,
  options: DriverChangeOptions,
): Promise<void> {
  return calls.change('move', options, (generation, call) => moveLocked(generation, from, to, call));
}
