// The identity methods of the filesystem driver (capabilities.records, updateById, removeExpect):
// readRecord, locate, listRecords and updateById, each under the folder's lock (calls.ts), where
// the records are brought up to date and checked against the files (files.ts).
import type {
  DriverCallOptions,
  DriverFolderMarker,
  DriverPath,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
} from '@memdir/core';
import {
  isFileId,
  pageOfRecords,
  recordQueryParts,
  refuseConflict,
  refuseNotFound,
  refusePathConflict,
} from '@memdir/core/driver';
import type { FolderCalls } from '../calls.js';
import { moveLocked } from '../move.js';
import { writeLocked } from '../write.js';
import { driverRecord, pathsAt, resolve } from './files.js';
import type { ChangeHook } from './hook.js';
import { updateLocked } from './update.js';

export function readRecord(
  calls: FolderCalls,
  path: DriverPath,
  options?: DriverRecordOptions,
): Promise<DriverRecord | null> {
  const content = options?.content === true;
  return calls.change('readRecord', options ?? {}, async (generation) => {
    const found = await resolve(generation, path, content);
    return found ? driverRecord(path, found.record, content ? found.content : undefined) : null;
  });
}

export function locate(
  calls: FolderCalls,
  fileId: string,
  options?: DriverRecordOptions,
): Promise<DriverRecord | null> {
  // A malformed id names nothing: no lock taken for it.
  if (!isFileId(fileId)) return Promise.resolve(null);
  const content = options?.content === true;
  return calls.change('locate', options ?? {}, async (generation) => {
    const path = generation.records.pathOf(fileId);
    if (path === undefined) return null;
    const found = await resolve(generation, path, content);
    if (!found || found.record.i !== fileId) return null;
    return driverRecord(path, found.record, content ? found.content : undefined);
  });
}

export function listRecords(
  calls: FolderCalls,
  query: DriverRecordQuery,
  options?: DriverCallOptions,
): Promise<DriverRecordPage> {
  let under: string;
  try {
    under = recordQueryParts(query).under;
  } catch (error) {
    return Promise.reject(error);
  }
  return calls.change('listRecords', options ?? {}, async (generation) => {
    const records = generation.records;
    // The files as they are (names and kinds only): a file added by hand is listed, one removed is not.
    const paths = (await pathsAt(generation.memories!, under === '' ? '' : under)).filter(
      (path) => under === '' || path.startsWith(`${under}/`),
    );
    const present = new Set(paths);
    const gone: [string, null][] = [];
    for (const path of records.paths()) {
      if ((under === '' || path.startsWith(`${under}/`)) && !present.has(path)) gone.push([path, null]);
    }
    records.put(gone);
    const page = pageOfRecords(
      paths.map((path) => ({ kind: 'file' as const, path: path as DriverPath })),
      query,
    );
    const items: (DriverRecord | DriverFolderMarker)[] = [];
    for (const item of page.items) {
      if (item.kind === 'folder') {
        items.push(item);
        continue;
      }
      // Checked against its file (its size, inode and mtime): refreshed when edited by hand.
      const found = await resolve(generation, item.path, false);
      if (found) items.push(driverRecord(item.path, found.record));
    }
    return { items, next: page.next };
  });
}

export function updateById(
  calls: FolderCalls,
  fileId: string,
  change: DriverUpdateChange,
  options: DriverUpdateByIdOptions,
): Promise<DriverUpdateResult> {
  if (!isFileId(fileId)) return Promise.reject(refuseNotFound(''));
  return calls.change('updateById', options, async (generation, call) => {
    const records = generation.records;
    const from = records.pathOf(fileId);
    const current = from === undefined ? null : await resolve(generation, from, true);
    if (from === undefined || !current || current.record.i !== fileId) throw refuseNotFound('');
    const to = change.path ?? from;
    const content = change.content ?? current.content!;
    if (to === from && content === current.content) {
      return { record: driverRecord(from, current.record), changed: false };
    }
    if (options.expectSha256 !== undefined && options.expectSha256 !== current.record.h) {
      throw refuseConflict(from);
    }
    // The file itself is an ancestor of a path beneath it.
    if (to.startsWith(`${from}/`)) throw refusePathConflict(from);
    if (to === from) {
      await writeLocked(generation, from, content, undefined, call, options.maxFileBytes);
    } else if (content === current.content) {
      await moveLocked(generation, from, to, call);
    } else {
      (call.history as ChangeHook).rollForward = true;
      await updateLocked(generation, from, to, content, call, options.maxFileBytes);
    }
    const record = records.get(to);
    if (!record) throw new Error('the update left no record');
    return { record: driverRecord(to, record), changed: true };
  });
}
