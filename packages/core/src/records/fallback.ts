// The engine's fallbacks for a driver without the identity primitives (capabilities.records,
// updateById, removeExpect; docs/identity.md): records made from `read`, `list` and the history.
// They keep a custom driver working, at more cost and with weaker guarantees, which the docs list:
// - without history a file's id is derived from its path (a rename gives a new id), and its times
//   are unknown (null);
// - with history, the id, times and version come from the newest version at the path, when that
//   version holds the file's current content;
// - a listing reads every file of its page; `locate` without history walks the whole namespace;
// - an update that moves and rewrites is two steps (two versions), and a remove with an
//   expectation checks, then removes.
import { createHash } from 'node:crypto';
import type {
  DriverCallOptions,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverVersion,
  MemoryDriver,
} from '../driver/contract.js';
import { sha256Hex } from '../driver/history.js';
import { pageOfRecords, type RecordLike } from '../driver/records.js';
import type { DriverPath } from '../path.js';
import { utf8Length } from '../path.js';

/**
 * The id the fallback gives a file that neither its driver nor its history names: `mem_p_`, 27
 * characters of a hash of its path, and `_` (29 characters after `mem_`, where the kit's
 * `newFileId` makes 22, so the two never meet).
 */
export function pathFileId(path: string): string {
  return `mem_p_${createHash('sha256').update(path, 'utf8').digest('base64url').slice(0, 27)}_`;
}

/** True for an id {@link pathFileId} made. */
export function isPathFileId(id: string): boolean {
  return /^mem_p_[A-Za-z0-9_-]{27}_$/.test(id);
}

/** The newest version at exactly `path`, if history has one. */
async function newestAt(
  driver: MemoryDriver,
  path: DriverPath,
  options: DriverCallOptions | undefined,
): Promise<DriverVersion | undefined> {
  const page = await driver.listVersions!({ path, limit: 20 }, options);
  return page.versions.find((version) => version.path === path);
}

/** The oldest kept version of a file, within one page of 1,000 (its creation, when kept). */
async function oldestOf(
  driver: MemoryDriver,
  fileId: string,
  options: DriverCallOptions | undefined,
): Promise<DriverVersion | undefined> {
  const page = await driver.listVersions!({ fileId, limit: 1000 }, options);
  return page.versions[page.versions.length - 1];
}

/** How many times a read and its history are taken again when a change came between the two. */
const SNAPSHOT_TRIES = 5;

/**
 * `readRecord` made from `read` and, when `history`, the history. The file and its history are two
 * calls: when a change lands between them (the newest version at the path holds other content),
 * both are read again, so a record is made from a file and a version that agree.
 */
export async function readRecordFallback(
  driver: MemoryDriver,
  path: DriverPath,
  history: boolean,
  options?: DriverRecordOptions,
): Promise<DriverRecord | null> {
  for (let attempt = 1; ; attempt += 1) {
    const file = await driver.read(path, options);
    if (file?.kind !== 'file') return null;
    const sha256 = sha256Hex(file.content);
    let record: DriverRecord = {
      kind: 'file',
      path,
      fileId: pathFileId(path),
      sha256,
      size: utf8Length(file.content),
      createdAt: null,
      changedAt: null,
      versionId: null,
    };
    if (history && driver.listVersions) {
      const newest = await newestAt(driver, path, options);
      const agrees = newest !== undefined && newest.operation !== 'deleted' && newest.sha256 === sha256;
      // A newer version than the content read: the file changed meanwhile; read both again.
      if (!agrees && newest !== undefined && attempt < SNAPSHOT_TRIES) continue;
      if (agrees) {
        const oldest = await oldestOf(driver, newest.fileId, options);
        const created = oldest?.operation === 'created' ? oldest.at : null;
        record = {
          ...record,
          fileId: newest.fileId,
          changedAt: newest.at,
          createdAt: created,
          versionId: newest.id,
        };
      }
    }
    return options?.content ? { ...record, content: file.content } : record;
  }
}

/** `locate` made from the history (when `history`), else from a walk of the namespace. */
export async function locateFallback(
  driver: MemoryDriver,
  fileId: string,
  history: boolean,
  options?: DriverRecordOptions,
): Promise<DriverRecord | null> {
  if (history && driver.listVersions) {
    const page = await driver.listVersions({ fileId, limit: 1 }, options);
    const newest = page.versions[0];
    if (newest) {
      if (newest.operation === 'deleted' || newest.path === null) return null;
      const record = await readRecordFallback(driver, newest.path, history, options);
      return record?.fileId === fileId ? record : null;
    }
  }
  // No history of it: only an id made from a path can be here, found by a walk.
  if (!isPathFileId(fileId)) return null;
  for await (const entry of driver.list('' as DriverPath, options)) {
    if (pathFileId(entry.path) === fileId) {
      const record = await readRecordFallback(driver, entry.path, history, options);
      return record?.fileId === fileId ? record : null;
    }
  }
  return null;
}

/** `listRecords` made from `list` (every file beneath `under`), then a read of each file of the page. */
export async function listRecordsFallback(
  driver: MemoryDriver,
  query: DriverRecordQuery,
  history: boolean,
  options?: DriverCallOptions,
): Promise<DriverRecordPage> {
  const under = (query.under ?? '') as DriverPath;
  const files: RecordLike[] = [];
  for await (const entry of driver.list(under, options)) {
    if (entry.path !== under) files.push({ kind: 'file', path: entry.path });
  }
  const page = pageOfRecords(files, query);
  const items: DriverRecordPage['items'][number][] = [];
  for (const item of page.items) {
    if (item.kind === 'folder') {
      items.push(item);
      continue;
    }
    // A file removed since the listing is left out; the cursor still moves past it.
    const record = await readRecordFallback(driver, item.path, history, options);
    if (record) items.push(record);
  }
  return { items, next: page.next };
}
