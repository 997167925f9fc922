// History in the change's own locked step: a change tells its recorder what it is about to do just
// before its visible step (the rename or unlink), and that it happened just after; the recorder
// turns that into versions (file ids, hashes, the record's attribution), prunes the files changed as
// retention says (at most PRUNE_PER_CHANGE each), and appends them to the history file (log.ts)
// before the visible step. What a dead process left pending is settled from the files themselves.
import type { ChangeRecord, DriverVersionWithContent, VersionOperation } from '@memdir/core';
import { newFileId, PRUNE_PER_CHANGE, prunable, sha256Hex } from '@memdir/core/driver';
import { type Dir, openEntry, openFolder } from '../dir.js';
import { find } from '../lookup.js';
import type { FileStat } from '../records/stat.js';
import { closeNow, readdir } from '../sys.js';
import { closeWalk, FOLDER, readText } from '../tree.js';
import type { HistoryLog } from './log.js';

const DAY_MS = 86_400_000;

/** One file a change is about to change, as the locked step knows it. */
export interface FileChange {
  readonly path: string;
  readonly previousPath?: string | undefined;
  readonly operation: 'created' | 'modified' | 'renamed' | 'deleted';
  /**
   * The content after the change; null for a deletion (and for a move when history is off: the
   * records take the moved files' hashes from their own).
   */
  readonly content: string | null;
  /** The file's id, when the records gave it (always, through the change's hook). */
  readonly fileId?: string | undefined;
  /** The stat of the file the change puts at `path` (the written temporary file), for the records. */
  readonly file?: FileStat | undefined;
}

/** What a locked change calls around its visible step when history is on. */
export interface HistoryHook {
  /** Just before the visible step: the files it changes. Throws when the versions cannot be written. */
  before(changes: readonly FileChange[]): void;
  /** Just after the visible step succeeded. */
  happened(): void;
  /** Whether `before` needs the content of moved files (history is on). */
  readonly wantsContent?: boolean | undefined;
}

/** What a restore changes about the version it records. */
export interface RestoreShape {
  readonly restoredFrom: string;
  /** The file id when no file is at the target (the restored file's own, or a new one). */
  readonly fileIdIfNew: string;
}

/** Records the versions of one change call (see {@link HistoryHook}). */
export class Recorder implements HistoryHook {
  #begun = false;
  #happened = false;

  constructor(
    private readonly log: HistoryLog,
    private readonly record: ChangeRecord,
    private readonly op: string,
    /** `write`'s `fileId` option: the id of a file it creates. */
    private readonly newFileIdOption?: string | undefined,
    private readonly restore?: RestoreShape | undefined,
  ) {}

  /** The version recorded last (a restore returns it). */
  last: DriverVersionWithContent | undefined;

  #fileIdOf(change: FileChange): string {
    if (change.fileId !== undefined) return change.fileId;
    const index = this.log.index;
    if (this.restore) {
      return change.operation === 'created'
        ? this.restore.fileIdIfNew
        : (index.fileIdAt(change.path) ?? newFileId());
    }
    if (change.operation === 'created') return this.newFileIdOption ?? newFileId();
    return index.fileIdAt(change.previousPath ?? change.path) ?? newFileId();
  }

  readonly wantsContent = true;

  /** Records the versions of `changes` (at `at`, the change's time), in their order. */
  before(changes: readonly FileChange[], at = Date.now()): readonly DriverVersionWithContent[] {
    if (changes.length === 0) return [];
    const versions = changes.map((change): DriverVersionWithContent => {
      const { content } = change;
      const operation: VersionOperation = this.restore ? 'restored' : change.operation;
      return {
        id: this.log.nextId(),
        fileId: this.#fileIdOf(change),
        path: change.path as DriverVersionWithContent['path'],
        previousPath: (change.previousPath ?? null) as DriverVersionWithContent['previousPath'],
        operation,
        sha256: content === null ? null : sha256Hex(content),
        size: content === null ? null : Buffer.byteLength(content, 'utf8'),
        at,
        actor: this.record.actor,
        command: this.record.command,
        operationId: this.op,
        toolUseId: this.record.toolUseId,
        restoredFrom: this.restore?.restoredFrom ?? null,
        redactedAt: null,
        content,
      };
    });
    const pruned: string[] = [];
    for (const version of versions) {
      const { count, oldest } = this.log.index.oldestOf(version.fileId);
      // Times only grow: when the file's oldest version is young, none is old.
      if (count < this.record.keepVersions || !oldest || at - oldest.at < this.record.keepDays * DAY_MS)
        continue;
      const kept = [version, ...this.log.index.versionsOf(version.fileId)];
      for (const index of prunable(kept, this.record, at, PRUNE_PER_CHANGE)) pruned.push(kept[index]!.id);
    }
    this.log.begin({ versions, pruned });
    this.#begun = true;
    this.last = versions[versions.length - 1];
    return versions;
  }

  happened(): void {
    this.#happened = true;
  }

  /**
   * Ends the group once the locked step is over (still under the lock): committed when the visible
   * step happened, aborted when it did not. True when versions were committed.
   */
  finish(): boolean {
    if (!this.#begun) return false;
    this.log.end(this.#happened);
    return this.#happened;
  }
}

/** The SHA-256 of the file at `path` now, or null when no file is there. */
async function shaAt(memories: Dir | null, path: string): Promise<string | null> {
  if (!memories || path === '') return null;
  const found = await find(memories, path).catch(() => null);
  if (!found) return null;
  closeWalk(found.walked);
  if (found.kind === 'folder') {
    found.folder.close();
    return null;
  }
  return sha256Hex(found.text.content);
}

/**
 * Settles a group a dead process left pending, under the lock: it happened when every version's
 * content is at its path (every deletion's path holds no file), else it did not.
 */
export async function settlePending(log: HistoryLog, memories: Dir | null): Promise<void> {
  const pending = log.pending;
  if (!pending) return;
  let happened = true;
  for (const version of pending.versions) {
    if ((await shaAt(memories, version.path!)) !== version.sha256) {
      happened = false;
      break;
    }
  }
  log.end(happened);
}

/** Every file at or beneath `path` with its content (what a move of it records). */
export async function readTree(
  memories: Dir,
  path: string,
): Promise<{ readonly path: string; readonly content: string }[]> {
  const found = await find(memories, path);
  if (!found) return [];
  closeWalk(found.walked);
  if (found.kind === 'file') return [{ path, content: found.text.content }];
  const files: { path: string; content: string }[] = [];
  try {
    await readFolder(found.folder, path, files);
  } finally {
    found.folder.close();
  }
  return files;
}

/** The files beneath the open folder `dir` (driver path `path`), read through its handle, links left out. */
async function readFolder(dir: Dir, path: string, into: { path: string; content: string }[]): Promise<void> {
  const children = await readdir(dir.self);
  // A folder's files are read at once: each read is a trip through the thread pool.
  const read = await Promise.all(
    children
      .filter((child) => child.isFile())
      .map(async (child) => {
        const fd = await openEntry(dir, child.name);
        if (typeof fd !== 'number') return null;
        try {
          const text = await readText(fd);
          return text === null || text === FOLDER
            ? null
            : { path: `${path}/${child.name}`, content: text.content };
        } finally {
          closeNow(fd);
        }
      }),
  );
  for (const file of read) if (file) into.push(file);
  for (const child of children) {
    if (!child.isDirectory()) continue;
    const inner = await openFolder(dir, child.name);
    if (typeof inner === 'string') continue;
    try {
      await readFolder(inner, `${path}/${child.name}`, into);
    } finally {
      inner.close();
    }
  }
}
