// The records as the files say they are, under the lock: a record checked against its file (inode,
// size, mtime) and refreshed from it when they disagree (edited by hand: the record keeps its id),
// a file without a record given one (a folder written before records, or by hand), a record whose
// file is gone dropped; and the adoption that gives every file a record once.
import * as fs from 'node:fs';
import type { DriverPath, DriverRecord } from '@memdir/core';
import { newFileId, sha256Hex } from '@memdir/core/driver';
import { type Dir, kindAt, openEntry, openFolder } from '../dir.js';
import type { Generation } from '../generation.js';
import type { HistoryLog } from '../history/log.js';
import { listFiles } from '../list-files.js';
import { closeNow, errno } from '../sys.js';
import { closeWalk, FOLDER, readText, walk } from '../tree.js';
import type { RecordsLog, StoredRecord } from './log.js';
import { type FileStat, fileStatOf } from './stat.js';

/** True when `record` was made for the file `stat` describes. */
export function agrees(record: StoredRecord, stat: FileStat): boolean {
  return record.n === stat.ino && record.s === stat.size && record.m === stat.mtime;
}

/** The regular file at `path` below `memories`, its stat, without reading it; null when none. */
export async function statAt(memories: Dir, path: string): Promise<FileStat | null> {
  if (path === '') return null;
  const segments = path.split('/');
  const walked = await walk(memories, segments).catch(() => null);
  if (!walked) return null;
  try {
    if (walked.stop || !walked.parent) return null;
    const info = fs.lstatSync(walked.parent.at(segments.at(-1)!), { bigint: true });
    return info.isFile() ? fileStatOf(info) : null;
  } catch (error) {
    if (errno(error) === 'ENOENT' || errno(error) === 'ENOTDIR') return null;
    throw error;
  } finally {
    closeWalk(walked);
  }
}

/** The regular file at `path`: its stat and content, from one open descriptor; null when none. */
export async function inspect(
  memories: Dir,
  path: string,
): Promise<{ stat: FileStat; content: string } | null> {
  if (path === '') return null;
  const segments = path.split('/');
  const walked = await walk(memories, segments).catch(() => null);
  if (!walked) return null;
  try {
    if (walked.stop || !walked.parent) return null;
    const fd = await openEntry(walked.parent, segments.at(-1)!);
    if (typeof fd !== 'number') return null;
    try {
      const info = fs.fstatSync(fd, { bigint: true });
      if (!info.isFile()) return null;
      const text = await readText(fd);
      if (text === null || text === FOLDER) return null;
      // Stat again after the read: a file written meanwhile (by hand) is judged as it now is.
      return { stat: fileStatOf(fs.fstatSync(fd, { bigint: true })), content: text.content };
    } finally {
      closeNow(fd);
    }
  } finally {
    closeWalk(walked);
  }
}

/** A record for a file memdir finds without one: the id its history knows there, else a new one. */
function adoptedRecord(
  history: HistoryLog | undefined,
  path: string,
  stat: FileStat,
  content: string,
  now: number,
) {
  const fileId = history?.index.fileIdAt(path) ?? newFileId();
  const sha256 = sha256Hex(content);
  const latest = history?.index.latestOf(fileId);
  const oldest = history?.index.oldestOf(fileId).oldest;
  const record: StoredRecord = {
    i: fileId,
    h: sha256,
    s: stat.size,
    c: oldest?.at ?? now,
    t: latest?.at ?? now,
    v: latest && latest.path === path && latest.sha256 === sha256 ? latest.id : null,
    n: stat.ino,
    m: stat.mtime,
  };
  return record;
}

/** The history of a generation (brought up to date by the locked call), to adopt ids from. */
function historyOf(generation: Generation): HistoryLog {
  return generation.history;
}

/** The contract's record of a stored one. */
export function driverRecord(path: string, record: StoredRecord, content?: string): DriverRecord {
  const out: DriverRecord = {
    kind: 'file',
    path: path as DriverPath,
    fileId: record.i,
    sha256: record.h,
    size: record.s,
    createdAt: record.c,
    changedAt: record.t,
    versionId: record.v,
  };
  return content === undefined ? out : { ...out, content };
}

/**
 * The record of the file at `path` as it is now (with its content when asked), refreshed or made
 * when the file disagrees, dropped when no file is there. Under the lock.
 */
export async function resolve(
  generation: Generation,
  path: string,
  withContent: boolean,
): Promise<{ record: StoredRecord; content?: string } | null> {
  const records = generation.records;
  const memories = generation.memories!;
  const known = records.get(path);
  if (!withContent && known) {
    const stat = await statAt(memories, path);
    if (stat && agrees(known, stat)) return { record: known };
  }
  const found = await inspect(memories, path);
  if (!found) {
    if (known) records.put([[path, null]]);
    return null;
  }
  if (known && agrees(known, found.stat)) return { record: known, content: found.content };
  const record = refreshed(generation, path, known, found.stat, found.content);
  records.put([[path, record]]);
  return { record, content: found.content };
}

/** A record made again from its file's content: the same id and creation time when there was one. */
function refreshed(
  generation: Generation,
  path: string,
  known: StoredRecord | undefined,
  stat: FileStat,
  content: string,
): StoredRecord {
  const now = Date.now();
  if (!known) return adoptedRecord(historyOf(generation), path, stat, content, now);
  const sha256 = sha256Hex(content);
  if (sha256 === known.h) return { ...known, s: stat.size, n: stat.ino, m: stat.mtime };
  return { ...known, h: sha256, s: stat.size, t: now, v: null, n: stat.ino, m: stat.mtime };
}

/** Makes sure every path of `paths` has a record that agrees with its file (a move's files). */
export async function ensureRecords(generation: Generation, paths: readonly string[]): Promise<void> {
  for (const path of paths) await resolve(generation, path, false);
}

/**
 * Gives every file a record once (a folder written before records kept them): the ids its history
 * knows, else new ones; records of files gone dropped. Under the lock, before anything else reads
 * or changes the records.
 */
export async function adopt(generation: Generation): Promise<void> {
  const records = generation.records;
  const memories = generation.memories!;
  const files = await listFiles(memories, '', false);
  const seen = new Set<string>();
  const extra: [string, StoredRecord | null][] = [];
  const now = Date.now();
  for (const file of files) {
    seen.add(file.path);
    const known = records.get(file.path);
    const stat = await statAt(memories, file.path);
    if (known && stat && agrees(known, stat)) continue;
    const found = await inspect(memories, file.path);
    if (!found) continue;
    extra.push([
      file.path,
      known
        ? refreshed(generation, file.path, known, found.stat, found.content)
        : adoptedRecord(historyOf(generation), file.path, found.stat, found.content, now),
    ]);
  }
  for (const path of [...records.paths()]) if (!seen.has(path)) extra.push([path, null]);
  await records.rewrite(generation.newTemp(), extra);
}

/** Settles a group a dead process left pending (see log.ts), rolling an update by id forward. */
export async function settleRecords(generation: Generation, records: RecordsLog): Promise<void> {
  const pending = records.pending;
  if (!pending) return;
  const memories = generation.memories!;
  let placed = true;
  const leftovers: string[] = [];
  for (const [path, record, was] of pending.entries) {
    const stat = await statAt(memories, path);
    if (record !== null) {
      if (stat?.ino !== record.n) placed = false;
    } else if (stat !== null && (was === undefined || stat.ino === was)) {
      leftovers.push(path);
    }
  }
  if (placed && leftovers.length > 0 && pending.rollForward) {
    // The new file is in place, the old one still there: finish the update (remove the old one).
    for (const path of leftovers) {
      const segments = path.split('/');
      const walked = await walk(memories, segments);
      try {
        if (walked.parent) await fs.promises.unlink(walked.parent.at(segments.at(-1)!)).catch(() => {});
      } finally {
        closeWalk(walked);
      }
    }
    leftovers.length = 0;
  }
  records.end(placed && leftovers.length === 0);
}

/** The driver paths of the files at or beneath `path` (a file: itself), links left out. */
export async function pathsAt(memories: Dir, path: string): Promise<string[]> {
  if (path === '') return (await listFiles(memories, '', false)).map((entry) => entry.path);
  const segments = path.split('/');
  const walked = await walk(memories, segments);
  try {
    if (walked.stop || !walked.parent) return [];
    const name = segments.at(-1)!;
    const kind = await kindAt(walked.parent, name);
    if (kind === 'file') return [path];
    if (kind !== 'directory') return [];
    const inner = await openFolder(walked.parent, name);
    if (typeof inner === 'string') return [];
    try {
      return (await listFiles(inner, path, false)).map((entry) => entry.path);
    } finally {
      inner.close();
    }
  } finally {
    closeWalk(walked);
  }
}
