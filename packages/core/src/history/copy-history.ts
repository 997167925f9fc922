// `copyStore(from, to, { withHistory: true })`: the source's versions go to the target as they are
// (ids, file ids, times, actors), oldest first, in batches, through the target's `importVersions`;
// then the files are written with their file ids and no new version. A copy that was interrupted
// resumes after the newest version the target already holds, when that version is the source's.

import type { DriverVersion, DriverVersionWithContent } from '../driver/contract.js';
import type { Engine } from '../engine/engine.js';
import { isMemoryToolError, MemoryToolError } from '../errors.js';

/** Versions read and imported per batch. */
const BATCH = 100;

/** What the versions' copy did, and the file id of each path the source's newest version leaves. */
export interface CopiedVersions {
  readonly versions: number;
  readonly fileIds: ReadonlyMap<string, string>;
}

function read<T>(engine: Engine, method: string, call: (options: object) => Promise<T>): Promise<T> {
  const operation = engine.operation('import');
  return operation.run(method, false, [], () => call(operation.readOptions()));
}

function sameVersion(a: DriverVersion, b: DriverVersion): boolean {
  return a.id === b.id && a.fileId === b.fileId && a.operationId === b.operationId && a.at === b.at;
}

/** Copies every version of `source` the target lacks; the target's history must be empty or a copy's start. */
export async function copyVersions(
  source: Engine,
  target: Engine,
  progress: (versions: number) => void,
): Promise<CopiedVersions> {
  const from = source.driver;
  const to = target.driver;
  if (!from.capabilities.history || !from.listVersions || !from.readVersion || !from.treeAt) {
    throw new MemoryToolError('UNSUPPORTED', 'copyStore withHistory: the source keeps no history.');
  }
  if (!to.capabilities.history || !to.importVersions || !to.listVersions) {
    throw new MemoryToolError(
      'UNSUPPORTED',
      'copyStore withHistory: the target cannot import versions (its driver has no importVersions).',
    );
  }
  const [held] = (await read(target, 'listVersions', (options) => to.listVersions!({ limit: 1 }, options)))
    .versions;
  if (held) {
    const same = await read(source, 'readVersion', (options) => from.readVersion!(held.id, options));
    if (!same || !sameVersion(same, held)) {
      throw new MemoryToolError(
        'CONFLICT',
        'copyStore withHistory: the target has a history of its own; copy into a store with no versions yet.',
      );
    }
  }

  // The ids to copy, newest first (only ids: contents are read batch by batch).
  const ids: string[] = [];
  let newest: string | undefined;
  for (let cursor: string | undefined; ; ) {
    const page = await read(source, 'listVersions', (options) =>
      from.listVersions!({ limit: 1_000, cursor }, options),
    );
    newest ??= page.versions[0]?.id;
    const fresh = page.versions.filter((version) => held === undefined || version.id > held.id);
    ids.push(...fresh.map((version) => version.id));
    if (page.next === null || fresh.length < page.versions.length) break;
    cursor = page.next;
  }
  ids.reverse();

  let copied = 0;
  for (let start = 0; start < ids.length; start += BATCH) {
    const batch: DriverVersionWithContent[] = [];
    for (const id of ids.slice(start, start + BATCH)) {
      // Pruned since it was listed: the history has a gap there, as the source's now has.
      const version = await read(source, 'readVersion', (options) => from.readVersion!(id, options));
      if (version) batch.push(version);
    }
    const operation = target.operation('import');
    try {
      await operation.run('importVersions', true, ['CONFLICT'], () =>
        to.importVersions!(batch, operation.readOptions()),
      );
    } catch (error) {
      if (isMemoryToolError(error) && error.code === 'CONFLICT') {
        throw new MemoryToolError(
          'CONFLICT',
          'copyStore withHistory: the target gained versions of its own during the copy.',
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    copied += batch.length;
    progress(copied);
  }

  const fileIds = new Map<string, string>();
  if (newest !== undefined) {
    const point = { version: newest };
    for (const entry of await read(source, 'treeAt', (options) => from.treeAt!(point, options))) {
      fileIds.set(entry.path, entry.fileId);
    }
  }
  return { versions: copied, fileIds };
}
