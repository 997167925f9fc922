// The history methods of the filesystem driver. Each runs under the folder's lock (calls.ts), reads
// included: the index is brought up to date from the history file, and a change a dead process left
// pending is settled before anyone sees the history. The pieces are in history/: the history file
// (log.ts), its index in memory (version-index.ts), the recorder a change writes its versions
// through (recorder.ts), and the file's compaction (compact.ts).
import type {
  DriverCallOptions,
  DriverChangeOptions,
  DriverPath,
  DriverPointInTime,
  DriverRestoreOptions,
  DriverTreeEntry,
  DriverTreeOptions,
  DriverVersion,
  DriverVersionPage,
  DriverVersionQuery,
  DriverVersionWithContent,
} from '@memdir/core';
import { checkImportedVersions, newFileId, refuseConflict, refuseNotFound } from '@memdir/core/driver';
import type { FolderCalls } from './calls.js';
import { compact } from './history/compact.js';
import { Recorder } from './history/recorder.js';
import { ChangeHook } from './records/hook.js';
import { writeLocked } from './write.js';

export function listVersions(
  calls: FolderCalls,
  query: DriverVersionQuery,
  options?: DriverCallOptions,
): Promise<DriverVersionPage> {
  return calls.change('listVersions', options ?? {}, async (generation) =>
    generation.history.index.list(query),
  );
}

export function readVersion(
  calls: FolderCalls,
  id: string,
  options?: DriverCallOptions,
): Promise<DriverVersionWithContent | null> {
  return calls.change('readVersion', options ?? {}, async (generation) => generation.history.read(id));
}

export function treeAt(
  calls: FolderCalls,
  at: DriverPointInTime,
  options?: DriverTreeOptions,
): Promise<readonly DriverTreeEntry[]> {
  return calls.change('treeAt', options ?? {}, async (generation) =>
    generation.history.index.treeAt(at, options?.path ?? ''),
  );
}

export function restoreVersion(
  calls: FolderCalls,
  id: string,
  options: DriverRestoreOptions,
): Promise<DriverVersion> {
  if (!options?.record) throw new TypeError('restoreVersion: options.record is required (history on)');
  // The record is the restore's own (a restored version, its file id by the restore rule).
  const { record, ...rest } = options;
  return calls.change('restoreVersion', { ...rest, signal: options.signal }, async (generation, call) => {
    const history = generation.history;
    const source = history.read(id);
    if (!source || source.content === null) throw refuseNotFound(options.to ?? '');
    const to = options.to ?? (source.path as DriverPath);
    // A deleted file comes back as itself where it was deleted; anywhere else it is a copy.
    const latest = history.index.latestOf(source.fileId);
    const comesBack = latest?.operation === 'deleted' && latest.path === to;
    const fileIdIfNew = comesBack ? source.fileId : newFileId();
    const recorder = new Recorder(history, record, options.op, undefined, { restoredFrom: id, fileIdIfNew });
    const hook = new ChangeHook(generation, recorder, { fileIdIfNew });
    const expect = options.expectSha256 === undefined ? undefined : { sha256: options.expectSha256 };
    try {
      await writeLocked(
        generation,
        to,
        source.content,
        expect,
        { ...call, history: hook },
        options.maxFileBytes,
      );
    } finally {
      if (hook.finish()) await compact(generation, calls.backend.log);
    }
    const { content: _content, ...version } = recorder.last!;
    return version;
  });
}

export function redactVersion(
  calls: FolderCalls,
  id: string,
  options: DriverChangeOptions,
): Promise<DriverVersion | null> {
  const { record: _record, ...rest } = options;
  return calls.change('redactVersion', rest, async (generation) => {
    const history = generation.history;
    const entry = history.index.get(id);
    if (!entry) return null;
    if (entry.version.redactedAt === null) {
      const redactedAt = Date.now();
      // The whole file is rewritten without the content: gone for good, not only hidden.
      await history.rewrite(generation.newTemp(), (version) =>
        version.id === id
          ? {
              ...version,
              content: null,
              path: null,
              previousPath: null,
              size: null,
              sha256: null,
              redactedAt,
            }
          : version,
      );
    }
    return history.index.get(id)!.version;
  });
}

export function importVersions(
  calls: FolderCalls,
  versions: readonly DriverVersionWithContent[],
  options: DriverCallOptions,
): Promise<void> {
  try {
    checkImportedVersions(versions);
  } catch (error) {
    return Promise.reject(error);
  }
  return calls.change('importVersions', options ?? {}, async (generation) => {
    if (versions.length === 0) return;
    const history = generation.history;
    const last = history.index.last;
    if (last !== undefined && last >= versions[0]!.id) throw refuseConflict('');
    history.import(versions);
  });
}
