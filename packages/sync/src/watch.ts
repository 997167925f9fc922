// Sync until stopped: a pass every `interval` seconds, and a prompt one after a local change.
// Node's own recursive `fs.watch` (Linux since Node 20, macOS, Windows) is used for the events rather
// than a watcher library: the events only ask for an earlier pass, the pass itself walks DIR, so a
// missed or duplicated event costs nothing, and there is no dependency to keep.
import { type FSWatcher, watch } from 'node:fs';
import type { MemdirStore } from '@memdir/core';
import { syncOnce } from './pass.js';
import { STATE_DIR } from './state.js';
import type { SyncOptions, SyncSummary } from './types.js';

export interface WatchOptions extends SyncOptions {
  /** Seconds between passes. @default 15 */
  interval?: number | undefined;
  /** Each pass's summary. */
  onPass?: ((summary: SyncSummary) => void) | undefined;
  /** A pass that failed (the watch goes on). */
  onError?: ((error: unknown) => void) | undefined;
}

export interface SyncWatch {
  /** Stops the watch after the pass under way; resolves when it is over. */
  stop(): Promise<void>;
}

/** Runs passes until `stop()`: at once, every `interval` seconds, and 300 ms after a local change. */
export function watchSync(dir: string, store: MemdirStore, options: WatchOptions): SyncWatch {
  const intervalMs = (options.interval ?? 15) * 1000;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = syncOnce(dir, store, options)
      .then(
        (summary) => options.onPass?.(summary),
        (error) => options.onError?.(error),
      )
      .finally(() => {
        running = null;
        schedule(again ? 0 : intervalMs);
        again = false;
      });
  };
  try {
    watcher = watch(dir, { recursive: true }, (_event, name) => {
      if (typeof name === 'string' && (name === STATE_DIR || name.startsWith(`${STATE_DIR}/`))) return;
      schedule(300);
    });
    watcher.on('error', () => undefined); // the interval still runs
  } catch {
    watcher = undefined;
  }
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      watcher?.close();
      await running;
    },
  };
}
