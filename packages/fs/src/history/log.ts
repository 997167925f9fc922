// A namespace's versions: one append-only file, `.memdir/history`, of JSON lines, read and written
// under the folder's lock only, with an index of it in memory (every process keeps its own, brought
// up to date from the file's tail at each call; the content stays on disk until a version is read).
//
// Lines:
//   {"s":N}                   the namespace's version counter was at least N (first line of a rewrite)
//   {"g":[versions],"x":[ids]} a change's versions (with content) and the versions it prunes: pending
//   {"c":1}                    the pending group above happened
//   {"a":1}                    the pending group above did not happen
//   {"k":version}              a version, committed (a rewrite writes one per line)
//
// Crash safety. A change appends its group before its own visible step (the rename or
// unlink that makes it happen), then appends `{"c":1}`. A process that dies in between leaves a
// pending group: the next call under the lock settles it by looking at the files (a version whose
// content is at its path, or a deletion whose path is empty, happened), so history never shows a
// change that did not happen and never misses one that did. Redaction and compaction rewrite the
// file whole (a temporary file, fsynced, renamed over it): the redacted content is gone for good.
import * as fs from 'node:fs';
import type { DriverVersion, DriverVersionWithContent } from '@memdir/core';
import { nextVersionSequence, sequenceVersionId, versionSequence } from '@memdir/core/driver';
import type { Dir } from '../dir.js';
import { closeNow, FILE_MODE, O_CREAT, O_NOFOLLOW, O_RDWR, preadNow, pwriteNow } from '../sys.js';
import type { Temp } from '../temp.js';
import { VersionIndex } from './version-index.js';

/** What a pending group holds: its versions and the ids it prunes. */
export interface Group {
  readonly versions: readonly DriverVersionWithContent[];
  readonly pruned: readonly string[];
}

/** Rewrite once this many bytes of the file are dead (pruned, aborted) and they outweigh the live ones. */
const REWRITE_DEAD_BYTES = 256 * 1024;

type Line =
  | { readonly s: number }
  | { readonly g: readonly DriverVersionWithContent[]; readonly x?: readonly string[] }
  | { readonly c: 1 }
  | { readonly a: 1 }
  | { readonly k: DriverVersionWithContent };

function withoutContent(version: DriverVersionWithContent): DriverVersion {
  const { content: _content, ...rest } = version;
  return rest;
}

/** The history file of one store folder, open for the generation's life. Under the lock only. */
export class HistoryLog {
  readonly #memdir: Dir;
  #fd = -1;
  #ino = -1;
  /** Bytes of the file parsed so far (always at a line's end). */
  #offset = 0;
  /** The highest sequence number seen, live or not: ids are never reused. */
  #sequence = 0;
  #pending: { group: Group; offset: number; length: number } | undefined;
  index = new VersionIndex();
  #deadBytes = 0;

  /** Read-only: for a look from outside the lock (an admin listing), which never cuts a torn line. */
  readonly #readOnly: boolean;

  constructor(memdir: Dir, readOnly = false) {
    this.#memdir = memdir;
    this.#readOnly = readOnly;
  }

  get path(): string {
    return this.#memdir.at('history');
  }

  /**
   * The next version id (the caller appends it, still under the lock). Throws BACKEND when the
   * history holds an id past the exact range (the kit's nextVersionSequence): nothing is appended.
   */
  nextId(): string {
    this.#sequence = nextVersionSequence(this.#sequence);
    return sequenceVersionId(this.#sequence);
  }

  /** The group a process left pending (it died between its group and its commit), if any. */
  get pending(): Group | undefined {
    return this.#pending?.group;
  }

  /**
   * Brings the index up to date with the file: reopened when another process rewrote it, the new
   * lines parsed, a torn last line (a crash mid-append) cut off.
   */
  async refresh(): Promise<void> {
    // Synchronous lookups, as everywhere in this driver (see the README, "Cost"): every change makes them.
    const info = fs.lstatSync(this.path, { throwIfNoEntry: false }) ?? null;
    if (info === null) {
      // Never made, or removed by someone: nothing is recorded.
      if (this.#fd !== -1) this.#reset();
      return;
    }
    if (info.ino !== this.#ino) {
      this.#reset();
      this.#open();
    }
    const size = fs.fstatSync(this.#fd).size;
    if (size <= this.#offset) return;
    await this.#parse(size);
  }

  async #parse(size: number): Promise<void> {
    const buffer = Buffer.allocUnsafe(size - this.#offset);
    const length = preadNow(this.#fd, buffer, this.#offset);
    let start = 0;
    for (;;) {
      const end = buffer.indexOf(10, start);
      if (end === -1 || end >= length) break;
      const lineOffset = this.#offset + start;
      let line: Line;
      try {
        line = JSON.parse(buffer.toString('utf8', start, end)) as Line;
      } catch {
        break;
      }
      this.#apply(line, lineOffset, end - start + 1);
      start = end + 1;
    }
    this.#offset += start;
    // What follows the last whole line is torn: written by a process that died mid-append.
    if (this.#offset < size && !this.#readOnly) fs.ftruncateSync(this.#fd, this.#offset);
  }

  /** Opens (or makes) the file, never through a link. */
  #open(): void {
    this.#fd = this.#readOnly
      ? fs.openSync(this.path, fs.constants.O_RDONLY | O_NOFOLLOW)
      : fs.openSync(this.path, O_RDWR | O_CREAT | O_NOFOLLOW, FILE_MODE);
    this.#ino = fs.fstatSync(this.#fd).ino;
  }

  #reset(): void {
    if (this.#fd !== -1) closeNow(this.#fd);
    this.#fd = -1;
    this.#ino = -1;
    this.#offset = 0;
    this.#pending = undefined;
    this.index = new VersionIndex();
    this.#deadBytes = 0;
    // The counter survives a rewrite by another process in its `s` line; ours only grows.
  }

  #apply(line: Line, offset: number, length: number): void {
    if ('s' in line) {
      this.#sequence = Math.max(this.#sequence, line.s);
    } else if ('g' in line) {
      if (this.#pending) this.#deadBytes += this.#pending.length;
      this.#pending = { group: { versions: line.g, pruned: line.x ?? [] }, offset, length };
      for (const version of line.g) this.#sequence = Math.max(this.#sequence, versionSequence(version.id));
    } else if ('c' in line) {
      const pending = this.#pending;
      this.#pending = undefined;
      if (!pending) return;
      for (const id of pending.group.pruned) this.#deadBytes += this.index.remove(id);
      for (const version of pending.group.versions) {
        const share = Math.ceil(pending.length / pending.group.versions.length);
        this.index.add(withoutContent(version), pending.offset, pending.length, share);
      }
    } else if ('a' in line) {
      if (this.#pending) this.#deadBytes += this.#pending.length;
      this.#pending = undefined;
    } else if ('k' in line) {
      this.#sequence = Math.max(this.#sequence, versionSequence(line.k.id));
      this.index.add(withoutContent(line.k), offset, length);
    }
  }

  #append(lines: readonly Line[]): Buffer {
    if (this.#fd === -1) this.#open();
    const data = Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''), 'utf8');
    pwriteNow(this.#fd, data, this.#offset);
    return data;
  }

  /**
   * Appends `group` as pending: the change may now happen. Not synced, as the change's own rename
   * or unlink is not: a process that dies leaves the page cache behind it whole, and the next
   * call settles the group; after a power failure the tail may be lost with the changes it names
   * (see the README, "History").
   */
  begin(group: Group): void {
    const line = { g: group.versions, ...(group.pruned.length > 0 ? { x: group.pruned } : {}) };
    const data = this.#append([line]);
    this.#apply(line, this.#offset, data.length);
    this.#offset += data.length;
  }

  /** Ends the pending group: it happened (`true`) or not. */
  end(happened: boolean): void {
    if (!this.#pending) return;
    const line: Line = happened ? { c: 1 } : { a: 1 };
    const data = this.#append([line]);
    this.#apply(line, this.#offset, data.length);
    this.#offset += data.length;
  }

  /** Versions written as given, committed at once (`importVersions`). */
  import(versions: readonly DriverVersionWithContent[]): void {
    this.begin({ versions, pruned: [] });
    this.end(true);
    fs.fdatasyncSync(this.#fd);
  }

  /** A version with its content, read from the line that holds it. */
  read(id: string): DriverVersionWithContent | null {
    const entry = this.index.get(id);
    if (!entry) return null;
    const line = this.#readLine(entry.offset, entry.length);
    const found =
      'k' in line ? line.k : 'g' in line ? line.g.find((version) => version.id === id) : undefined;
    if (!found) throw new Error('history file does not hold an indexed version');
    return { ...found, ...entry.version, content: entry.version.redactedAt === null ? found.content : null };
  }

  #readLine(offset: number, length: number): Line {
    const buffer = Buffer.allocUnsafe(length);
    preadNow(this.#fd, buffer, offset);
    return JSON.parse(buffer.toString('utf8', 0, length - 1)) as Line;
  }

  /** Whether the file holds enough dead bytes to be worth a rewrite. */
  get wasteful(): boolean {
    return this.#deadBytes > REWRITE_DEAD_BYTES && this.#deadBytes > this.#offset - this.#deadBytes;
  }

  /**
   * Rewrites the file with the live versions only (and `change` applied to each, for redaction):
   * through `temp`, fsynced and renamed over the file, so a crash leaves the old file or the new.
   */
  async rewrite(
    temp: Temp,
    change?: (version: DriverVersionWithContent) => DriverVersionWithContent,
  ): Promise<void> {
    const parts = [`${JSON.stringify({ s: this.#sequence })}\n`];
    for (const entry of this.index.ordered()) {
      let version = this.read(entry.version.id)!;
      if (change) version = change(version);
      parts.push(`${JSON.stringify({ k: version })}\n`);
    }
    try {
      await temp.write(Buffer.from(parts.join(''), 'utf8'));
      await temp.commit(this.path);
    } catch (error) {
      await temp.discard();
      throw error;
    }
    const sequence = this.#sequence;
    this.#reset();
    this.#sequence = sequence;
    await this.refresh();
  }

  close(): void {
    if (this.#fd !== -1) closeNow(this.#fd);
    this.#fd = -1;
  }
}
