// One pass of sync, both ways: DIR's files, the store's records and the baseline (what both last
// agreed on) decide, file by file, what to send, receive, delete, or keep as a conflict.
// The order of every step leaves a pass killed anywhere safe: a change is made on one side, then the
// baseline is saved; a pass that finds both sides equal without a baseline takes that as agreed.
import { hostname } from 'node:os';
import {
  isMemoryToolError,
  MAX_SEGMENT_BYTES,
  type MemdirStore,
  type MemoryRecord,
  normalizeMemoryPath,
  storeDriver,
  toDriverPath,
} from '@memdir/core';
import {
  currentSha,
  makeDurable,
  readLocal,
  removeLocal,
  replaceLocalAsync,
  sha256Hex,
  walk,
  writeLocal,
} from './local.js';
import { lockFolder } from './lock.js';
import { clearTemporaries, emptyState, readState, STATE_DIR, type SyncState, writeState } from './state.js';
import type { SyncEvent, SyncOptions, SyncSummary } from './types.js';

const ROOT = '/memories';

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return (
    error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && 'syscall' in error
  );
}

function toPath(rel: string): string {
  return `${ROOT}/${rel}`;
}

async function listRemote(store: MemdirStore): Promise<Map<string, MemoryRecord>> {
  const remote = new Map<string, MemoryRecord>();
  let cursor: string | undefined;
  do {
    const page = await store.records.list({ path: ROOT, limit: 1000, cursor });
    for (const item of page.items) {
      if (item.kind === 'file') remote.set(item.path.slice(ROOT.length + 1), item);
    }
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return remote;
}

/**
 * `record` (as listed) with its content. Read from the store's driver where the store shows one:
 * the drivers answer many reads in flight together (PostgreSQL in one statement), where record
 * lookups go one by one. Taken only when its SHA-256 is the listing's; a file changed since the
 * listing, a failed read, or a store without a driver is looked up as a record.
 */
async function contentFor(store: MemdirStore, record: MemoryRecord): Promise<MemoryRecord | null> {
  const driver = storeDriver(store);
  if (driver !== undefined) {
    try {
      const node = await driver.read(toDriverPath(normalizeMemoryPath(record.path)));
      if (node?.kind === 'file' && sha256Hex(node.content) === record.sha256) {
        return { ...record, content: node.content };
      }
    } catch {
      // The record lookup below reports what went wrong, as the store words it.
    }
  }
  return store.records.get(record.path, { content: true });
}

async function hasHistory(store: MemdirStore): Promise<boolean> {
  try {
    await store.history({ limit: 1 });
    return true;
  } catch (error) {
    if (isMemoryToolError(error) && error.code === 'UNSUPPORTED') return false;
    throw error;
  }
}

/** `NAME.conflict-HOST-TIME.md` beside `rel`, its stem shortened to keep the name within
 * the 255 bytes of a file name (and of a memdir path segment). */
function conflictName(rel: string, host: string, now: number): string {
  const time = new Date(now).toISOString().replace(/[:.]/g, '-');
  const slash = rel.lastIndexOf('/');
  const folder = rel.slice(0, slash + 1);
  const name = rel.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const safeHost = host.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  const tail = `.conflict-${safeHost}-${time}${extension}`;
  let kept = stem;
  while (kept.length > 1 && Buffer.byteLength(kept + tail) > MAX_SEGMENT_BYTES) {
    kept = [...kept].slice(0, -1).join('');
  }
  return `${folder}${kept}${tail}`;
}

/** Contents fetched ahead of the file being decided (and held in memory meanwhile). */
const FETCH_AHEAD = 32;
/** Downloads being written at once (off the event loop), their contents held in memory meanwhile. */
const WRITES_AHEAD = 16;
/** Changes (other than conflicts) whose baselines are saved together, at most. */
const SAVE_EVERY = 500;
/** ... or the most time between two saves of the baseline while changes are made. */
const SAVE_EVERY_MS = 1000;

/** How long a pass waits for another process's pass on the same folder. */
const LOCK_WAIT_MS = 30_000;

/**
 * One pass, both ways, of DIR and `store`; passes on one folder never overlap, in any process.
 * @throws SyncError when DIR is bound to another store or namespace, its state is unreadable, or
 *   another process's pass on it lasts more than 30 s more (BUSY).
 */
export async function syncOnce(dir: string, store: MemdirStore, options: SyncOptions): Promise<SyncSummary> {
  const release = await lockFolder(dir, LOCK_WAIT_MS);
  try {
    return await pass(dir, store, options);
  } finally {
    await release();
  }
}

async function pass(dir: string, store: MemdirStore, options: SyncOptions): Promise<SyncSummary> {
  const namespace = options.namespace ?? null;
  const deletions = options.deletions ?? 'enabled';
  const deleteDelayMs = (options.deleteDelay ?? 30) * 1000;
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const host = options.host ?? hostname();
  const now = options.now ?? Date.now;
  const readOnly = options.readOnly === true;
  const actor = { type: 'service' as const, id: `memdir-sync@${host}`.slice(0, 256) };
  const started = now();
  const summary: SyncSummary = { sent: 0, received: 0, deleted: 0, conflicts: 0, skipped: 0, events: [] };
  const emit = (event: SyncEvent) => {
    summary.events.push(event);
    options.onEvent?.(event);
  };

  const stored = readState(dir, options.storeId, namespace);
  clearTemporaries(dir);
  const state: SyncState = stored ?? emptyState(options.storeId, namespace);
  const { files: found, refused } = walk(dir);
  // A folder that lost its state or was emptied is downloaded again, never read as a mass delete.
  if (stored === null || (found.length === 0 && Object.keys(state.files).length > 0)) {
    if (stored !== null)
      emit({ kind: 'emptied', path: '', detail: 'the folder is empty: downloading again' });
    state.files = {};
    state.missing = {};
  }
  const skippedNow: Record<string, string> = {};
  const skip = (rel: string, reason: string, fingerprint: string) => {
    skippedNow[rel] = fingerprint;
    if (state.skipped[rel] === fingerprint) return;
    summary.skipped++;
    emit({ kind: 'skipped', path: rel, detail: reason });
  };
  for (const refusal of refused) skip(refusal.rel, refusal.reason, refusal.fingerprint);
  const refusedPaths = new Set(refused.map((r) => r.rel));

  const remote = await listRemote(store);
  // The store is untrusted: a file it holds under the state folder would overwrite the baseline.
  // Compared without case, for the file systems (macOS, Windows) that do the same.
  for (const [rel, record] of remote) {
    if (rel.split('/', 1)[0]!.toLowerCase() !== STATE_DIR) continue;
    remote.delete(rel);
    refusedPaths.add(rel);
    skip(rel, `its path is in ${STATE_DIR}, the sync state folder (never synced)`, record.sha256);
  }
  // Asked only at a conflict: on some stores (S3) even a one-version page of history scans the
  // namespace's versions, and a pass without a conflict needs no answer.
  let history: boolean | undefined;
  const keepsHistory = async () => {
    history ??= !readOnly && (await hasHistory(store));
    return history;
  };
  // Downloads being written, oldest first: each gives, once written, what it changes in the state
  // and the summary, applied in path order.
  const writing: Promise<() => void>[] = [];
  const settleOldest = async () => {
    const apply = await writing.shift()!;
    apply();
  };
  const settleAll = async () => {
    while (writing.length > 0) await settleOldest();
  };
  const changes = () => summary.sent + summary.received + summary.deleted;
  // Downloads not yet made durable: fsynced together before the baseline that names them is saved.
  let undurable: string[] = [];
  let savedChanges = 0;
  let savedAt = now();
  // The last save started: its fsyncs run while the next files are fetched and written, and the
  // state it writes is a copy taken when it started, naming only the files it makes durable (and
  // those of the saves before it, which it waits for).
  let saving: Promise<void> = Promise.resolve();
  const startSave = async () => {
    await settleAll();
    const durable = undurable;
    const saved: SyncState = {
      ...state,
      files: { ...state.files },
      missing: { ...state.missing },
      skipped: { ...state.skipped, ...skippedNow },
    };
    undurable = [];
    savedChanges = changes();
    savedAt = now();
    const previous = saving;
    saving = (async () => {
      await previous;
      await makeDurable(dir, durable);
      writeState(dir, saved);
    })();
    saving.catch(() => {}); // awaited (and its error raised) at the next save or the pass's end
  };
  const save = async () => {
    await startSave();
    await saving;
  };

  // Local hashes: a file whose size and mtime match its baseline is not read again.
  const local = new Map<string, { sha256: string; text?: string; size: number; mtimeMs: number }>();
  for (const entry of found) {
    const base = state.files[entry.rel];
    if (base && base.size === entry.size && base.mtimeMs === entry.mtimeMs) {
      local.set(entry.rel, { sha256: base.sha256, size: entry.size, mtimeMs: entry.mtimeMs });
      continue;
    }
    const read = readLocal(dir, entry.rel, maxBytes);
    if (read.ok) local.set(entry.rel, read);
    else if (!('gone' in read)) {
      refusedPaths.add(entry.rel);
      skip(entry.rel, read.reason, read.fingerprint);
    }
  }
  const textOf = (rel: string): string | null => {
    const entry = local.get(rel);
    if (entry?.text !== undefined) return entry.text;
    const read = readLocal(dir, rel, maxBytes);
    return read.ok && read.sha256 === entry?.sha256 ? read.text : null;
  };

  // Contents are fetched a window ahead of the walk through the paths, several at once: one file's
  // round trip to the store no longer waits for the previous file's.
  const fetched = new Map<string, Promise<MemoryRecord | null>>();
  let lookedAhead = 0;
  const willDownload = (rel: string): boolean => {
    const l = local.get(rel);
    const r = remote.get(rel);
    const base = state.files[rel];
    if (r === undefined || refusedPaths.has(rel) || l?.sha256 === r.sha256) return false;
    // Changed here (sent, or a conflict), or deleted here (a delete unless it comes back): no download.
    if (l !== undefined) return base?.sha256 === l.sha256;
    return base?.sha256 !== r.sha256 || readOnly || deletions === 'disabled';
  };
  const fetchAhead = (rels: readonly string[], from: number) => {
    lookedAhead = Math.max(lookedAhead, from);
    while (lookedAhead < rels.length && fetched.size < FETCH_AHEAD) {
      const rel = rels[lookedAhead++]!;
      if (!willDownload(rel)) continue;
      const pending = contentFor(store, remote.get(rel)!);
      pending.catch(() => {}); // awaited (and its error raised) where the file is decided
      fetched.set(rel, pending);
    }
  };
  const contentOf = (rel: string, record: MemoryRecord): Promise<MemoryRecord | null> => {
    const pending = fetched.get(rel);
    fetched.delete(rel);
    return pending ?? contentFor(store, record);
  };

  /** What one file's failure does: a store's refusal is reported, a file system's skips the file. */
  const fileFailed = (rel: string, error: unknown, fingerprint: string) => {
    if (isMemoryToolError(error)) emit({ kind: 'error', path: rel, detail: error.message });
    else if (isFileSystemError(error)) {
      // One file this file system refuses (a name too long, no permission) stops nothing else.
      skip(rel, `it cannot be written here (${error.code})`, fingerprint);
    } else throw error;
  };
  const nothing = () => {};

  const writeDownload = async (
    rel: string,
    record: MemoryRecord,
    expectLocal: string | null,
  ): Promise<() => void> => {
    const full = await contentOf(rel, record);
    if (full?.content === undefined) return nothing;
    // The file must still be as read: an edit made since waits for the next pass.
    const current = currentSha(dir, rel, maxBytes);
    if (current === false) {
      return () =>
        skip(rel, 'it cannot be written here (not a plain file, or a path this system refuses)', full.sha256);
    }
    if (current !== expectLocal) return nothing;
    const written = await replaceLocalAsync(dir, rel, full.content);
    if (written === null) return () => skip(rel, 'a folder on its way is not a plain folder', 'path');
    return () => {
      undurable.push(rel);
      state.files[rel] = { sha256: full.sha256, id: full.id, ...written };
      summary.received++;
      emit({ kind: 'received', path: rel });
    };
  };
  /** Starts writing `record`'s content to DIR/rel (when the file there is still `expectLocal`);
   * its baseline and event follow, in path order, once it is written. */
  const download = async (rel: string, record: MemoryRecord, expectLocal: string | null) => {
    if (writing.length >= WRITES_AHEAD) await settleOldest();
    writing.push(
      writeDownload(rel, record, expectLocal).catch(
        (error: unknown) => () => fileFailed(rel, error, record.sha256),
      ),
    );
  };

  const keepLosingLocal = async (rel: string, record: MemoryRecord, text: string): Promise<boolean> => {
    if (await keepsHistory()) {
      // The local text becomes a version attributed to this machine, then the store's text comes back.
      const remoteText = (await store.records.get(record.path, { content: true }))?.content;
      if (remoteText === undefined || sha256Hex(remoteText) !== record.sha256) return false;
      try {
        await store.records.update(record.id, { content: text }, { expectSha256: record.sha256, actor });
        await store.records.update(
          record.id,
          { content: remoteText },
          { expectSha256: sha256Hex(text), actor },
        );
      } catch (error) {
        if (isMemoryToolError(error) && error.code === 'CONFLICT') return false;
        throw error;
      }
      emit({ kind: 'conflict', path: rel, detail: 'the local text is kept in the store history' });
    } else {
      const sha = sha256Hex(text);
      const name = conflictName(rel, host, now());
      const prefix = name.slice(0, name.lastIndexOf('.conflict-') + '.conflict-'.length);
      // A pass killed after the conflict file was written does not write a second one.
      const kept = [...local.entries()].find(
        ([other, entry]) => other !== rel && other.startsWith(prefix) && entry.sha256 === sha,
      )?.[0];
      if (kept === undefined && writeLocal(dir, name, text) === null) return false;
      emit({ kind: 'conflict', path: rel, detail: `the local text is kept as ${kept ?? name}` });
    }
    summary.conflicts++;
    return true;
  };

  const paths = [...new Set([...local.keys(), ...remote.keys(), ...Object.keys(state.files)])].sort();
  try {
    for (const [index, rel] of paths.entries()) {
      if (index > 0) fetched.delete(paths[index - 1]!); // fetched, but decided otherwise
      fetchAhead(paths, index);
      if (refusedPaths.has(rel)) continue;
      const l = local.get(rel);
      const r = remote.get(rel);
      const conflictsBefore = summary.conflicts;
      const base = state.files[rel];
      // Only downloads are written while the next files are decided: any other change waits for them,
      // so that events and conflict files come in path order.
      if (!willDownload(rel) && l?.sha256 !== r?.sha256) await settleAll();
      try {
        if (l && r && l.sha256 === r.sha256) {
          if (!base || base.sha256 !== l.sha256 || base.mtimeMs !== l.mtimeMs || base.id !== r.id) {
            state.files[rel] = { sha256: r.sha256, id: r.id, size: l.size, mtimeMs: l.mtimeMs };
          }
          delete state.missing[rel];
        } else if (l && r) {
          delete state.missing[rel];
          if (base?.sha256 === l.sha256) {
            await download(rel, r, l.sha256);
          } else if (base?.sha256 === r.sha256 && !readOnly) {
            const text = textOf(rel);
            if (text === null) continue;
            try {
              const done = await store.records.update(
                r.id,
                { content: text },
                { expectSha256: r.sha256, actor },
              );
              state.files[rel] = {
                sha256: done.record.sha256,
                id: done.record.id,
                size: l.size,
                mtimeMs: l.mtimeMs,
              };
              summary.sent++;
              emit({ kind: 'sent', path: rel });
            } catch (error) {
              if (isMemoryToolError(error) && error.code === 'CONFLICT') continue; // the next pass sees both
              if (isMemoryToolError(error)) skip(rel, error.message, `${l.size}:${l.mtimeMs}`);
              else throw error;
            }
          } else if (base?.sha256 === r.sha256 && readOnly) {
            // Pull only: a local edit of a file the store did not change stays local.
          } else {
            const text = textOf(rel);
            if (text === null) continue;
            if (await keepLosingLocal(rel, r, text)) await download(rel, r, l.sha256);
          }
        } else if (l && !r) {
          if (base && base.sha256 === l.sha256) {
            // Deleted in the store, unchanged here: deleted here too.
            if (currentSha(dir, rel, maxBytes) === l.sha256) {
              removeLocal(dir, rel);
              delete state.files[rel];
              summary.deleted++;
              emit({ kind: 'deleted', path: rel, detail: 'deleted in the store' });
            }
          } else if (!readOnly) {
            // New here, or edited here while deleted in the store: sent (nothing lost).
            const text = textOf(rel);
            if (text === null) continue;
            try {
              await store.create({ command: 'create', path: toPath(rel), file_text: text }, { actor });
              const made = await store.records.get(toPath(rel));
              if (made)
                state.files[rel] = { sha256: made.sha256, id: made.id, size: l.size, mtimeMs: l.mtimeMs };
              summary.sent++;
              emit({ kind: 'sent', path: rel });
            } catch (error) {
              if (!isMemoryToolError(error)) throw error;
              skip(rel, `the store refused it: ${error.message}`, `${l.size}:${l.mtimeMs}`);
            }
          }
        } else if (!l && r) {
          if (base && base.sha256 === r.sha256) {
            // Deleted here, unchanged in the store: a delete, after the delay and a re-check.
            if (readOnly || deletions === 'disabled') {
              await download(rel, r, null);
            } else if (deletions === 'log-only') {
              if (state.missing[rel] === undefined) {
                state.missing[rel] = now();
                emit({ kind: 'delete-logged', path: rel, detail: 'missing here; deletions are log-only' });
              }
            } else {
              const since = state.missing[rel] ?? now();
              state.missing[rel] = since;
              if (now() - since >= deleteDelayMs && currentSha(dir, rel, maxBytes) === null) {
                try {
                  await store.records.remove(r.id, { expectSha256: r.sha256, actor });
                  delete state.files[rel];
                  delete state.missing[rel];
                  summary.deleted++;
                  emit({ kind: 'deleted', path: rel, detail: 'deleted here' });
                } catch (error) {
                  if (!(isMemoryToolError(error) && error.code === 'CONFLICT')) throw error;
                }
              }
            }
          } else {
            delete state.missing[rel];
            await download(rel, r, null);
          }
        } else {
          delete state.files[rel];
          delete state.missing[rel];
        }
      } catch (error) {
        fileFailed(rel, error, r?.sha256 ?? `${l?.size}:${l?.mtimeMs}`);
      }
      // A conflict is followed by its baseline at once: a pass killed later keeps the losing text once.
      // Other changes leave both sides equal (or both absent), which the next pass takes as agreed
      // even without a baseline, so their baselines are saved together, a batch at a time.
      if (summary.conflicts !== conflictsBefore) await save();
      else if (
        changes() - savedChanges >= SAVE_EVERY ||
        (changes() > savedChanges && now() - savedAt >= SAVE_EVERY_MS)
      ) {
        // The previous batch is saved before the next one starts: at most one batch behind.
        await saving;
        await startSave();
      }
    }
    await settleAll();
    await saving;
  } finally {
    // Nothing is written in DIR after the pass ends and releases the folder, even when it failed.
    await Promise.allSettled([...writing, saving]);
  }
  await makeDurable(dir, undurable);
  state.skipped = skippedNow;
  writeState(dir, state);
  summary.durationMs = now() - started;
  return summary;
}
