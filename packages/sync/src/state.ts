// The state folder `.memdir-sync/` in DIR: the baseline (the SHA-256 both sides last agreed on) of
// every file, and the store and namespace DIR is bound to. Written as a temporary file, fsynced,
// renamed over `state.json`, then the folder fsynced: a pass killed at any moment leaves either the
// old state or the new one, never half of one.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** The name of the state folder in DIR, never synced. */
export const STATE_DIR = '.memdir-sync';
const STATE_FILE = 'state.json';

/** What both sides last agreed on for one file. */
export interface BaselineEntry {
  readonly sha256: string;
  /** The store's id of the file (`mem_...`). */
  readonly id: string;
  /** The local file's size and mtime when it had that content: an unchanged file is not read again. */
  readonly size: number;
  readonly mtimeMs: number;
}

export interface SyncState {
  readonly format: 1;
  readonly store: string;
  readonly namespace: string | null;
  files: Record<string, BaselineEntry>;
  /** When a file with a baseline was first seen missing (ms), for the delete delay. */
  missing: Record<string, number>;
  /** Files skipped, by a fingerprint (size:mtime): one message until they change. */
  skipped: Record<string, string>;
}

/** A refusal of the folder itself (bound elsewhere, unreadable state, another pass under way). */
export class SyncError extends Error {
  readonly code: 'BOUND_ELSEWHERE' | 'BAD_STATE' | 'BAD_FOLDER' | 'BUSY';
  constructor(code: SyncError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SyncError';
    this.code = code;
  }
}

export function stateDir(dir: string): string {
  return join(dir, STATE_DIR);
}

/** The state of DIR, or null when it has none (first pass, or the state was lost). */
export function readState(dir: string, store: string, namespace: string | null): SyncState | null {
  let text: string;
  try {
    text = readFileSync(join(stateDir(dir), STATE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SyncError('BAD_STATE', `Cannot read ${STATE_DIR}/${STATE_FILE}.`, { cause: error });
  }
  let state: SyncState;
  try {
    state = JSON.parse(text) as SyncState;
  } catch (error) {
    throw new SyncError('BAD_STATE', `${STATE_DIR}/${STATE_FILE} is not valid JSON.`, { cause: error });
  }
  if (state.format !== 1 || typeof state.store !== 'string' || typeof state.files !== 'object') {
    throw new SyncError('BAD_STATE', `${STATE_DIR}/${STATE_FILE} is not a memdir sync state.`);
  }
  if (state.store !== store || state.namespace !== namespace) {
    const bound = `${state.store}${state.namespace === null ? '' : ` (namespace ${state.namespace})`}`;
    throw new SyncError(
      'BOUND_ELSEWHERE',
      `the folder is kept in step with ${bound}, not this store: sync another folder, or remove its ${STATE_DIR} to rebind it`,
    );
  }
  state.missing ??= {};
  state.skipped ??= {};
  return state;
}

export function emptyState(store: string, namespace: string | null): SyncState {
  return { format: 1, store, namespace, files: {}, missing: {}, skipped: {} };
}

/** Writes `path` whole or not at all: temp, fsync, rename, fsync of the folder. */
export function writeAtomic(folder: string, name: string, data: string): void {
  const temp = join(folder, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(folder, name));
  fsyncFolder(folder);
}

export function fsyncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeState(dir: string, state: SyncState): void {
  const folder = stateDir(dir);
  mkdirSync(folder, { recursive: true });
  writeAtomic(folder, STATE_FILE, `${JSON.stringify(state)}\n`);
}

/**
 * Removes what a pass killed before its rename left: the temporary files of the state and of
 * downloads. Called under the folder's lock, so no pass is writing them.
 */
export function clearTemporaries(dir: string): void {
  const folder = stateDir(dir);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return; // no state folder yet
  }
  for (const name of names) {
    if (name.startsWith('.tmp-')) rmSync(join(folder, name), { force: true });
  }
  rmSync(join(folder, 'tmp'), { recursive: true, force: true });
}
