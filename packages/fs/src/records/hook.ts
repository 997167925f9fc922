// What every change tells around its visible step (the rename or unlink), history on or off: the
// records of the files it changes (ids kept, hashes, times, the version holding the content), and,
// when the call carries a record, the versions (history/recorder.ts), with the ids the records give.
import type { DriverVersionWithContent } from '@memdir/core';
import { newFileId, sha256Hex } from '@memdir/core/driver';
import type { Generation } from '../generation.js';
import type { FileChange, HistoryHook, Recorder } from '../history/recorder.js';
import type { RecordEntry, StoredRecord } from './log.js';

/** How a call names the file ids of files it creates. */
export interface HookOptions {
  /** `write`'s `fileId` option. */
  readonly fileIdOption?: string | undefined;
  /** A restore's: the id of a file it creates at its target. */
  readonly fileIdIfNew?: string | undefined;
}

export class ChangeHook implements HistoryHook {
  #begun = false;
  #happened = false;
  /** Set by an update by id that writes its new path, then removes the old one: settled forward. */
  rollForward = false;

  constructor(
    private readonly generation: Generation,
    readonly recorder: Recorder | undefined,
    private readonly options: HookOptions = {},
  ) {}

  get wantsContent(): boolean {
    return this.recorder !== undefined;
  }

  before(changes: readonly FileChange[]): void {
    if (changes.length === 0) return;
    const records = this.generation.records;
    const history = this.generation.history;
    const at = Date.now();
    const olds = changes.map((change) =>
      change.operation === 'created' ? undefined : records.get(change.previousPath ?? change.path),
    );
    const identified = changes.map((change, index): FileChange => {
      let fileId: string;
      if (change.operation === 'created') {
        fileId = this.options.fileIdIfNew ?? this.options.fileIdOption ?? newFileId();
      } else {
        const from = change.previousPath ?? change.path;
        fileId = olds[index]?.i ?? history.index.fileIdAt(from) ?? newFileId();
      }
      return { ...change, fileId };
    });
    const versions: readonly (DriverVersionWithContent | undefined)[] =
      this.recorder?.before(identified, at) ?? [];
    const drops: RecordEntry[] = [];
    const sets: RecordEntry[] = [];
    identified.forEach((change, index) => {
      const old = olds[index];
      const version = versions[index];
      if (change.operation === 'deleted') {
        drops.push([change.path, null, old?.n]);
        return;
      }
      if (change.previousPath !== undefined) drops.push([change.previousPath, null, old?.n]);
      let record: StoredRecord | undefined;
      if (change.file && change.content !== null) {
        const adoptedAt = old?.c ?? history.index.oldestOf(change.fileId!).oldest?.at ?? at;
        record = {
          i: change.fileId!,
          h: version?.sha256 ?? sha256Hex(change.content),
          s: change.file.size,
          c: change.operation === 'created' ? at : adoptedAt,
          t: at,
          v: version?.id ?? null,
          n: change.file.ino,
          m: change.file.mtime,
        };
      } else if (old) {
        // A move: the same file (inode, bytes) at its new path.
        record = { ...old, i: change.fileId!, t: at, v: version?.id ?? old.v };
      }
      // Without a record to move (a file the records never saw), the next look gives it one.
      if (record) sets.push([change.path, record]);
    });
    records.begin([...drops, ...sets], this.rollForward);
    this.#begun = true;
  }

  happened(): void {
    this.#happened = true;
    if (this.#begun) this.generation.records.end(true);
    this.recorder?.happened();
  }

  /** Ends the call's groups once its locked step is over. True when versions were committed. */
  finish(): boolean {
    if (this.#begun && !this.#happened) this.generation.records.end(false);
    return this.recorder?.finish() ?? false;
  }
}
